import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { createApp } from '../../../src/app.js';
import { AccessTokens } from '../../../src/auth/tokens.js';
import { WITH_HIDDEN } from '../../../src/registry.js';
import { apiToken, useTestApp } from '../../helpers/app.js';
import { manualClock } from '../../helpers/clock.js';
import type { Row } from '../../../src/types/rows.js';

const MINUTE = 60_000;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('API tokens', () => {
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    await t.createUser('bob');
  });
  const time = manualClock();
  beforeEach(() => time.install());
  afterEach(() => time.restore());

  const tokenRow = async (token: string): Promise<Row> => {
    const id = Number(token.split('|')[0]);
    const row = await t.services.registry.tokens()?.model.scope(WITH_HIDDEN).findByPk(id);
    if (!row) throw new Error(`no token row ${id}`);
    return row;
  };
  const status = async (token: string, path = '/api/user') =>
    (await t.http.get(path).set('Authorization', `Bearer ${token}`).set('Accept', 'application/json')).status;

  describe('at rest', () => {
    test('only the SHA-256 of the secret is stored, under the login token name, with no expiry of its own', async () => {
      const token = await apiToken(t, 'alice');
      const row = await tokenRow(token);
      const secret = token.split('|')[1] ?? '';
      expect(row.get('token')).toBe(sha256(secret));
      expect(JSON.stringify(row.toJSON())).not.toContain(secret);
      expect(row.get('name')).toBe('comments-api-token');
      expect(row.get('expires_at')).toBeNull();
      expect(row.get('last_used_at')).toBeNull();
    });

    test('rows loaded the ordinary way do not hold the hash', async () => {
      const token = await apiToken(t, 'alice');
      const row = await t.services.registry.tokens()?.model.findByPk(Number(token.split('|')[0]));
      expect(row?.get('token')).toBeUndefined();
    });
  });

  describe('last_used_at', () => {
    test('is written on first use and then at most once a minute', async () => {
      const token = await apiToken(t, 'alice');
      await status(token);
      const first = (await tokenRow(token)).get('last_used_at') as Date;
      expect(first).toBeInstanceOf(Date);
      time.advance(30_000);
      await status(token);
      expect(((await tokenRow(token)).get('last_used_at') as Date).getTime()).toBe(first.getTime());
      time.advance(31_000);
      await status(token);
      expect(((await tokenRow(token)).get('last_used_at') as Date).getTime()).toBeGreaterThan(first.getTime());
    });
  });

  describe('Authorization headers that do not carry a valid token', () => {
    let valid = '';
    let bobs = '';
    beforeEach(async () => {
      valid = await apiToken(t, 'alice');
      bobs = await apiToken(t, 'bob');
    });
    const [id, secret] = [() => valid.split('|')[0] ?? '', () => valid.split('|')[1] ?? ''];

    test.each<[string, () => string]>([
      ['no Authorization header', () => ''],
      ['the scheme alone', () => 'Bearer'],
      ['the scheme and a space', () => 'Bearer '],
      ['a value with no |', () => 'Bearer garbage'],
      ['a non-numeric id', () => `Bearer abc|${secret()}`],
      ['an id beyond any row', () => `Bearer 99999999999|${secret()}`],
      ['an empty id', () => `Bearer |${secret()}`],
      ['an empty secret', () => `Bearer ${id()}|`],
      ['a wrong secret', () => `Bearer ${id()}|${'x'.repeat(40)}`],
      ['the secret with a character more', () => `Bearer ${valid}x`],
      ['the secret with a character less', () => `Bearer ${valid.slice(0, -1)}`],
      ['another user\'s token id with this secret', () => `Bearer ${bobs.split('|')[0]}|${secret()}`],
      ['two tokens', () => `Bearer ${valid} ${valid}`],
      ['another scheme', () => `Token ${valid}`],
      ['Basic credentials', () => `Basic ${Buffer.from('alice:alice-password').toString('base64')}`],
      ['a 10 kB header', () => `Bearer ${id()}|${'a'.repeat(10_000)}`],
      ['Latin-1 bytes', () => `Bearer ${id()}|\u00e9\u00e8`],
    ])('%s is 401, never 500', async (_case, header) => {
      const req = t.http.get('/api/comments').set('Accept', 'application/json');
      const res = await (header() ? req.set('Authorization', header()) : req);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
    });

    test('the secret alone, without its id, is accepted as Laravel Sanctum accepts it', async () => {
      expect(await status(secret())).toBe(200);
    });

    test('the scheme name is case-insensitive (RFC 9110)', async () => {
      const res = await t.http.get('/api/user').set('Authorization', `bearer ${valid}`);
      expect(res.status).toBe(200);
    });
  });

  describe('logout', () => {
    test('revokes the token in use and no other', async () => {
      const first = await apiToken(t, 'alice');
      const second = await apiToken(t, 'alice');
      const res = await t.http.post('/api/logout').set('Authorization', `Bearer ${first}`);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(await status(first)).toBe(401);
      expect(await status(second)).toBe(200);
      expect(await t.services.registry.tokens()?.model.findByPk(Number(first.split('|')[0]))).toBeNull();
    });

    test('without a token is 401', async () => {
      expect((await t.http.post('/api/logout').set('Accept', 'application/json')).status).toBe(401);
    });
  });

  describe('the account behind a token', () => {
    test('a deactivated user\'s tokens stop working at once, and work again when reactivated', async () => {
      const token = await apiToken(t, 'bob');
      const users = t.services.registry.users().model;
      await users.update({ is_active: false }, { where: { username: 'bob' } });
      expect(await status(token)).toBe(401);
      await users.update({ is_active: true }, { where: { username: 'bob' } });
      expect(await status(token)).toBe(200);
    });

    test('the token answers for its own user', async () => {
      const token = await apiToken(t, 'bob');
      const res = await t.http.get('/api/user').set('Authorization', `Bearer ${token}`);
      expect(res.body.user.email).toBe('bob@example.com');
    });
  });

  describe('expires_at', () => {
    test('a token past its own expires_at is refused; one before it is accepted', async () => {
      const token = await apiToken(t, 'alice');
      const row = await tokenRow(token);
      await row.update({ expires_at: new Date(time.now() + MINUTE) });
      expect(await status(token)).toBe(200);
      time.advance(MINUTE);
      expect(await status(token)).toBe(401);
    });
  });

  describe('TOKEN_EXPIRATION_MINUTES', () => {
    /** The same database served with a lifetime of `minutes`, as after a restart with the setting. */
    const withLifetime = (minutes: number) => {
      const { services } = t;
      const tokenModel = services.registry.tokens();
      if (!tokenModel) throw new Error('no token model');
      const tokens = new AccessTokens(tokenModel, services.accounts, { expirationMinutes: minutes });
      const config = { ...services.config, tokenExpirationMinutes: minutes };
      return request(createApp({ ...services, config, tokens }));
    };

    test('a token is accepted within N minutes of its creation and refused after', async () => {
      const http = withLifetime(1);
      const token = (await http.post('/api/login').send({ email: 'alice@example.com', password: 'alice-password' })).body.token;
      time.advance(59_000);
      expect((await http.get('/api/user').auth(token, { type: 'bearer' })).status).toBe(200);
      time.advance(2_000);
      const json = await http.get('/api/user').auth(token, { type: 'bearer' }).set('Accept', 'application/json');
      expect(json.status).toBe(401);
      expect(json.body).toEqual({ message: 'Unauthenticated.' });
      const page = await http.get('/api/user').auth(token, { type: 'bearer' });
      expect(page.status).toBe(401);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    });

    test('tokens issued before the setting are measured from their created_at too', async () => {
      const old = await apiToken(t, 'alice');
      time.advance(5 * MINUTE);
      expect(await status(old)).toBe(200);
      const http = withLifetime(1);
      expect((await http.get('/api/user').auth(old, { type: 'bearer' })).status).toBe(401);
      const recent = await apiToken(t, 'alice');
      expect((await http.get('/api/user').auth(recent, { type: 'bearer' })).status).toBe(200);
    });

    test('use does not extend a token\'s life', async () => {
      const http = withLifetime(2);
      const token = (await http.post('/api/login').send({ email: 'alice@example.com', password: 'alice-password' })).body.token;
      for (let minute = 0; minute < 2; minute += 1) {
        time.advance(MINUTE - 1_000);
        expect((await http.get('/api/user').auth(token, { type: 'bearer' })).status).toBe(200);
      }
      time.advance(3_000);
      expect((await http.get('/api/user').auth(token, { type: 'bearer' })).status).toBe(401);
    });
  });
});
