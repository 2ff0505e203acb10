import { describe, expect, test } from '@jest/globals';
import { useTestApp } from '../helpers/app.js';
import { siteMounts } from '../../src/app.js';
import { tokenHash } from '../../src/auth/tokens.js';

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

describe("Django REST Framework's Token keys on the paginated site", () => {
  // Keys as DRF makes them (40 hexadecimal digits), stored here as loaddata stores them: their SHA-256 only.
  const KEY = '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b';
  const RETIRED_KEY = 'f3a1c2d4e5b60718293a4b5c6d7e8f9011223344';
  const EXPIRED_KEY = '0123456789abcdef0123456789abcdef01234567';
  let aliceId: number;
  let sanctumToken: string;

  const t = useTestApp(async (t) => {
    const alice = await t.createUser('alice');
    const retired = await t.createUser('retired', { active: false });
    aliceId = alice.id;
    const tokens = t.services.registry.tokens()!.model;
    const key = (user: number, secret: string, extra: Record<string, unknown> = {}) =>
      tokens.create({ tokenable_id: user, name: 'drf-token', token: tokenHash(secret), abilities: '["*"]', ...extra });
    await key(alice.id, KEY);
    await key(retired.id, RETIRED_KEY);
    await key(alice.id, EXPIRED_KEY, { expires_at: new Date('2025-01-01T00:00:00Z') });
    sanctumToken = (await t.services.tokens!.create(alice)).plainText;
  });

  const get = (authorization: string, language = 'ja') =>
    t.http.get('/comments/').set('Authorization', authorization).set('Accept-Language', language);

  test('the key lets its user in, with the keyword in any letter case', async () => {
    for (const keyword of ['Token', 'token', 'TOKEN']) expect((await get(`${keyword} ${KEY}`)).status).toBe(200);
    const created = await t.http.post('/comments/').set('Authorization', `Token ${KEY}`).send({ title: 'by key', body: 'b' });
    expect(created.status).toBe(201);
    const row = await t.services.registry.get('Comment').model.findByPk(created.body.id as number);
    expect(row?.get('user_id')).toBe(aliceId);
  });

  test('a use of the key is recorded in last_used_at, as a bearer token', async () => {
    const tokens = t.services.registry.tokens()!.model.scope('withHidden');
    await tokens.update({ last_used_at: null }, { where: { token: tokenHash(KEY) } });
    expect((await get(`Token ${KEY}`)).status).toBe(200);
    expect((await tokens.findOne({ where: { token: tokenHash(KEY) } }))?.get('last_used_at')).toBeInstanceOf(Date);
  });

  test.each([
    ['an unknown key', `Token ${'a'.repeat(40)}`],
    ['a key of the wrong length', `Token ${KEY}0`],
    ['an expired key', `Token ${EXPIRED_KEY}`],
    ["the key's hash instead of the key", `Token ${tokenHash(KEY)}`],
  ])('%s gets 401 "Invalid token." with the Token challenge', async (_case, header) => {
    const res = await get(header);
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Token');
    expect(res.body).toEqual({ detail: '不正なトークンです。' });
    expect((await get(header, 'en')).body).toEqual({ detail: 'Invalid token.' });
  });

  test('a Sanctum token is no DRF key: "Token <id>|<secret>" is refused as an invalid token', async () => {
    expect((await get(`Bearer ${sanctumToken}`)).status).toBe(401);
    const res = await get(`Token ${sanctumToken}`, 'en');
    expect([res.status, res.body]).toEqual([401, { detail: 'Invalid token.' }]);
  });

  test("an inactive user's key gets DRF's 401 \"User inactive or deleted.\"", async () => {
    const res = await get(`Token ${RETIRED_KEY}`);
    expect([res.status, res.headers['www-authenticate'], res.body]).toEqual([401, 'Token', { detail: 'ユーザが無効か削除されています。' }]);
    expect((await get(`Token ${RETIRED_KEY}`, 'en')).body).toEqual({ detail: 'User inactive or deleted.' });
  });

  test.each([
    ['the keyword alone', 'Token', 'Invalid token header. No credentials provided.', '不正なトークンヘッダです。認証情報が含まれていません。'],
    ['the keyword and spaces', 'Token   ', 'Invalid token header. No credentials provided.', '不正なトークンヘッダです。認証情報が含まれていません。'],
    ['a key with a space', `Token ${KEY.slice(0, 20)} ${KEY.slice(20)}`, 'Invalid token header. Token string should not contain spaces.', '不正なトークンヘッダです。トークン文字列に空白を含めてはいけません。'],
    ['a key that is not UTF-8', 'Token caf\u00e9', 'Invalid token header. Token string should not contain invalid characters.', '不正なトークンヘッダです。トークン文字列に不正な文字を含めてはいけません。'],
  ])('a malformed header (%s) gets 401 with DRF\'s message', async (_case, header, english, japanese) => {
    const res = await get(header);
    expect([res.status, res.headers['www-authenticate'], res.body]).toEqual([401, 'Token', { detail: japanese }]);
    expect((await get(header, 'en')).body).toEqual({ detail: english });
  });

  test('a request without credentials is still asked for Basic', async () => {
    const res = await t.http.get('/comments/');
    expect([res.status, res.headers['www-authenticate']]).toEqual([401, 'Basic realm="api"']);
  });

  test('the root site tries the session, then Basic, then a Token key', () => {
    const site = siteMounts(t.services).find((mount) => mount.path === '/')?.site;
    expect(site?.authenticators.map((authenticator) => authenticator.described.name)).toEqual(['sessionCookie', 'basicAuth', 'tokenAuth']);
  });
});
