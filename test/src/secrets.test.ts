import { describe, expect, test } from '@jest/globals';
import { apiToken, credentials, useTestApp } from '../helpers/app.js';

describe('secrets never leave the server', () => {
  const alice = credentials('alice');
  let hash: string;
  let token: string;
  let tokenHash: string;

  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    const users = t.services.registry.users().model;
    await users.update({ remember_token: 'remember-me-secret' }, { where: { username: 'alice' } });
    hash = (await t.services.accounts.findByUsername('alice', { withHidden: true }))?.get('password') as string;
    token = await apiToken(t, 'alice');
    const tokens = t.services.registry.tokens()?.model.scope('withHidden');
    tokenHash = (await tokens?.findByPk(Number(token.split('|')[0])))?.get('token') as string;
  });

  test('no answer of the token site carries a password, a hash, the remember token or a token hash', async () => {
    const bearer = { Authorization: `Bearer ${token}` };
    const login = await t.http.post('/api/login').send({ email: 'alice@example.com', password: 'alice-password' });
    const id = (await t.http.post('/api/comments').set(bearer).send({ title: 't', body: 'b' })).body.comment.id as number;
    const responses = [
      login,
      await t.http.get('/api/user').set(bearer),
      await t.http.get('/api/comments').set(bearer),
      await t.http.get(`/api/comments/${id}`).set(bearer),
      await t.http.patch(`/api/comments/${id}`).set(bearer).send({ title: 'x' }),
      await t.http.options('/api/comments').set(bearer),
      await t.http.post('/api/comments').set(bearer).send({ title: '', password: 'p' }),
      await t.http.get('/api/user').set('Authorization', `Bearer ${tokenHash}`),
      await t.http.get('/api/user').set('Authorization', `Bearer ${token}x`),
    ];
    expect(tokenHash).toMatch(/^[0-9a-f]{64}$/);
    for (const res of responses) {
      const text = res.text ?? '';
      for (const secret of [hash, 'pbkdf2', 'password', 'remember', tokenHash]) expect(text).not.toContain(secret);
    }
  });

  test('no response of any kind carries a password, a hash or a created_at value', async () => {
    const id = (await t.http.post('/comments/').auth(...alice).send({ title: 't', body: 'b' })).body.id as number;
    const responses = await Promise.all([
      t.http.get('/').auth(...alice),
      t.http.get('/comments/').auth(...alice),
      t.http.get(`/comments/${id}/`).auth(...alice),
      t.http.get('/comments/').auth(...alice).set('Accept', 'text/html'),
      t.http.options('/comments/').auth(...alice),
      t.http.options(`/comments/${id}/`).auth(...alice),
      t.http.patch(`/comments/${id}/`).auth(...alice).send({ title: 'x' }),
      t.http.get('/comments/').auth('alice', 'wrong'),
      t.http.post('/comments/').auth(...alice).send({ title: '', password: 'p' }),
    ]);
    for (const res of responses) {
      const text = res.text ?? '';
      expect(text).not.toContain(hash);
      expect(text).not.toContain('pbkdf2');
      expect(text).not.toContain('password');
      // The root site shows no created_at, so neither names it: no filter, ordering, OPTIONS entry or form input.
      expect(text).not.toContain('created_at');
      expect(text).not.toContain('alice-password');
    }
  });

  test('rows loaded the ordinary way do not even hold the hash or remember token', async () => {
    const row = await t.services.registry.users().model.findOne({ where: { username: 'alice' } });
    expect(row?.get('password')).toBeUndefined();
    expect(row?.get('remember_token')).toBeUndefined();
    expect(row?.get('username')).toBe('alice');
  });
});
