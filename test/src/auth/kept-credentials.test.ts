import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { QueryTypes } from 'sequelize';
import { compiledReads } from '../../../src/db/compiled.js';
import { dropRowCounter } from '../../../src/db/row-counter.js';
import { apiToken, createTestApp, credentials, type TestApp } from '../../helpers/app.js';
import { browserLogin, type Agent } from '../../helpers/pages.js';

/**
 * Every authenticated request stands on rows: the token with its owner, the
 * account behind a session or a remembered HTTP Basic password. Those rows
 * are kept in memory while the kept versions of their tables are unchanged;
 * any write to them, made anywhere (another process, a tool, plain SQL),
 * counts on the very next request.
 */
describe('credentials kept in memory while their tables are unchanged', () => {
  let t: TestApp;
  let reads: jest.SpiedFunction<ReturnType<typeof compiledReads>['one']>;

  beforeEach(async () => {
    t = await createTestApp();
    await t.createUser('alice');
    reads = jest.spyOn(compiledReads(t.services.sequelize), 'one');
  });
  afterEach(async () => {
    reads.mockRestore();
    await t.close();
  });

  /** What another process, or an operator at the database's prompt, would run: plain SQL, which only the triggers see. */
  const sql = (statement: string): Promise<unknown> => t.services.sequelize.query(statement, { type: QueryTypes.RAW });
  const readsOf = (shape: string): number => reads.mock.calls.filter(([, called]) => called === shape).length;
  const bearer = (token: string) => t.http.get('/api/comments').set('Authorization', `Bearer ${token}`);
  const basic = () => t.http.get('/comments/').auth(...credentials('alice'));
  const sessionUser = async (agent: Agent): Promise<number> => (await agent.get('/api/user').set('Accept', 'application/json')).status;

  /** A token after its first use: that use writes its last_used_at, which has it read once more. */
  async function usedToken(): Promise<string> {
    const token = await apiToken(t, 'alice');
    expect((await bearer(token)).status).toBe(200);
    reads.mockClear();
    return token;
  }

  test('a token is read once for many requests, and its deletion by plain SQL refuses the very next one', async () => {
    const token = await usedToken();
    for (let i = 0; i < 4; i += 1) expect((await bearer(token)).status).toBe(200);
    expect(readsOf('token-by-id')).toBe(1);
    await sql('DELETE FROM personal_access_tokens');
    expect((await bearer(token)).status).toBe(401);
  });

  test("a token's owner deactivated by plain SQL is refused on the very next request, and let in again once active", async () => {
    const token = await apiToken(t, 'alice');
    expect((await bearer(token)).status).toBe(200);
    await sql("UPDATE users SET is_active = false WHERE username = 'alice'");
    expect((await bearer(token)).status).toBe(401);
    await sql("UPDATE users SET is_active = true WHERE username = 'alice'");
    expect((await bearer(token)).status).toBe(200);
  });

  test('an expiry set on a kept token by plain SQL counts on the very next request', async () => {
    const token = await apiToken(t, 'alice');
    expect((await bearer(token)).status).toBe(200);
    await sql("UPDATE personal_access_tokens SET expires_at = '2000-01-01 00:00:00'");
    expect((await bearer(token)).status).toBe(401);
  });

  test('a remembered HTTP Basic password reads its account once, and a new hash stored by plain SQL refuses it at once', async () => {
    for (let i = 0; i < 4; i += 1) expect((await basic()).status).toBe(200);
    expect(readsOf('account-by-id')).toBe(1);
    await sql("UPDATE users SET password = 'pbkdf2_sha256$1000$salt$bm90IHRoZSBwYXNzd29yZA==' WHERE username = 'alice'");
    expect((await basic()).status).toBe(401);
  });

  test("a browser session's account is read once for many pages, and its deactivation by plain SQL ends the session at once", async () => {
    const { agent } = await browserLogin(t.app, 'alice');
    reads.mockClear();
    for (let i = 0; i < 4; i += 1) expect(await sessionUser(agent)).toBe(200);
    // Once, or not at all when the login's own pages read it last.
    expect(readsOf('account-by-id')).toBeLessThanOrEqual(1);
    expect(readsOf('session-by-sid')).toBeLessThanOrEqual(1);
    await sql("UPDATE users SET is_active = false WHERE username = 'alice'");
    expect(await sessionUser(agent)).not.toBe(200);
  });

  test('a session row deleted by plain SQL (a logout elsewhere, a sweep) ends the session on the very next request', async () => {
    const { agent } = await browserLogin(t.app, 'alice');
    expect(await sessionUser(agent)).toBe(200);
    expect(await sessionUser(agent)).toBe(200);
    await sql('DELETE FROM sessions');
    expect(await sessionUser(agent)).not.toBe(200);
  });

  test('a write to another table leaves the kept rows standing, and a write to theirs has them read again', async () => {
    const token = await usedToken();
    expect((await bearer(token)).status).toBe(200);
    await sql("INSERT INTO comments (title, body, user_id, created_at, updated_at) SELECT 'A', 'B', id, '2026-01-01 00:00:00', '2026-01-01 00:00:00' FROM users");
    expect((await bearer(token)).status).toBe(200);
    expect(readsOf('token-by-id')).toBe(1);
    await sql("UPDATE users SET first_name = 'Alice'");
    expect((await bearer(token)).status).toBe(200);
    expect(readsOf('token-by-id')).toBe(2);
  });

  test('a token table whose counter is gone is read on every request, and still answers rightly', async () => {
    await dropRowCounter(t.services.sequelize.getQueryInterface(), 'personal_access_tokens');
    const token = await apiToken(t, 'alice');
    for (let i = 0; i < 3; i += 1) expect((await bearer(token)).status).toBe(200);
    expect(readsOf('token-by-id')).toBe(3);
    await sql('DELETE FROM personal_access_tokens');
    expect((await bearer(token)).status).toBe(401);
  });
});
