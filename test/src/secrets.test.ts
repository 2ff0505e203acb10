import { describe, expect, test } from '@jest/globals';
import { credentials, useTestApp } from '../helpers/app.js';

describe('secrets never leave the server', () => {
  const alice = credentials('alice');
  let hash: string;

  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    hash = (await t.services.accounts.findByUsername('alice', { withHidden: true }))?.get('password') as string;
  });

  test('no response of any kind carries a password, a hash or created_at', async () => {
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
