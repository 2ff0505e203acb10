import { describe, expect, test } from '@jest/globals';
import { useTestApp } from '../helpers/app.js';

const basic = (text: string): string => `Basic ${Buffer.from(text, 'utf8').toString('base64')}`;

describe('HTTP Basic authentication on the paginated site', () => {

  const t = useTestApp(async (t) => {
    await t.createUser('alice', { password: 'alice-pw' });
    await t.createUser('retired', { password: 'retired-pw', active: false });
    await t.createUser('山田', { password: 'パスワード:含む', email: 'yamada@example.jp' });
  });

  const get = (authorization?: string) => {
    const req = t.http.get('/comments/');
    return authorization === undefined ? req : req.set('Authorization', authorization);
  };

  test('the right username and password are let in', async () => {
    expect((await get(basic('alice:alice-pw'))).status).toBe(200);
  });

  test('UTF-8 usernames and passwords containing a colon work', async () => {
    expect((await get(basic('山田:パスワード:含む'))).status).toBe(200);
  });

  test('extra white space around and between the parts is tolerated', async () => {
    const encoded = Buffer.from('alice:alice-pw').toString('base64');
    expect((await get(`Basic   ${encoded}  `)).status).toBe(200);
  });

  test('the scheme name is case-insensitive', async () => {
    const encoded = Buffer.from('alice:alice-pw').toString('base64');
    expect((await get(`basic ${encoded}`)).status).toBe(200);
    expect((await get(`BASIC ${encoded}`)).status).toBe(200);
  });

  test.each([
    ['a wrong password', basic('alice:wrong')],
    ['an unknown user', basic('nobody:x')],
    ['an inactive user with the right password', basic('retired:retired-pw')],
    ['no colon at all', basic('alice')],
    ['an empty password', basic('alice:')],
    ['the username in another case', basic('ALICE:alice-pw')],
    ['a NUL character in the username', basic('ali\u0000ce:alice-pw')],
  ])('%s gets the same 401 wrong-credentials answer', async (_case, header) => {
    const res = await get(header);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="api"');
    expect(res.body).toEqual({ detail: 'ユーザ名かパスワードが違います。' });
  });

  test.each([
    ['not base64', 'Basic !!!not-base64!!!', '不正な基本ヘッダです。認証情報がBASE64で正しくエンコードされていません。'],
    ['base64 with bad padding', 'Basic YWxpY2U6eA', '不正な基本ヘッダです。認証情報がBASE64で正しくエンコードされていません。'],
    ['the scheme alone', 'Basic', '不正な基本ヘッダです。認証情報が含まれていません。'],
    ['the scheme and a space', 'Basic ', '不正な基本ヘッダです。認証情報が含まれていません。'],
    ['credentials with spaces', 'Basic YWxp Y2U6eA==', '不正な基本ヘッダです。認証情報に空白を含めることはできません。'],
  ])('a malformed header (%s) gets 401 with its own message', async (_case, header, detail) => {
    const res = await get(header);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail });
  });

  test.each([
    ['no Authorization header', undefined],
    ['a Bearer token', 'Bearer abc'],
    ['an unknown scheme', 'Digest username="alice"'],
    ['an empty header', ''],
  ])('%s counts as no credentials', async (_case, header) => {
    const res = await get(header);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="api"');
    expect(res.body).toEqual({ detail: '認証情報が含まれていません。' });
  });

  test('an enormous Authorization header is refused without a server error', async () => {
    const res = await get(basic(`alice:${'x'.repeat(6000)}`));
    expect(res.status).toBe(401);
  });

  test('Latin-1 credentials that are not UTF-8 are decoded as Latin-1', async () => {
    await t.createUser('jose', { password: 'café' });
    const latin1 = `Basic ${Buffer.from('jose:café', 'latin1').toString('base64')}`;
    expect((await get(latin1)).status).toBe(200);
  });
});
