import { createHmac } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { sessionAuthHash } from '../../../src/auth/sessions.js';
import { useTestApp, type TestApp } from '../../helpers/app.js';
import { browserLogin, type Agent } from '../../helpers/pages.js';

async function logIn(t: Pick<TestApp, 'app'>, username: string): Promise<Agent> {
  return (await browserLogin(t.app, username)).agent;
}

async function isLoggedIn(agent: Agent): Promise<boolean> {
  return (await agent.get('/api/user').set('Accept', 'application/json')).status === 200;
}

/** The stored sessions' data, as the session store keeps them. */
async function storedSessions(t: Pick<TestApp, 'services'>): Promise<{ sid: string; data: Record<string, unknown> }[]> {
  const rows = await t.services.sequelize.model('Session').findAll();
  return rows.map((row) => ({ sid: String(row.get('sid')), data: JSON.parse(String(row.get('data'))) as Record<string, unknown> }));
}

describe("the session auth hash, Django's", () => {
  const t = useTestApp(async (app) => {
    for (const name of ['alice', 'bob', 'carol']) await app.createUser(name, { email: `${name}@example.com` });
  });

  test('the digest is keyed with the secret key and follows the stored password hash', () => {
    const hash = 'pbkdf2_sha256$1000$salt$digest';
    expect(sessionAuthHash('one', hash)).toMatch(/^[0-9a-f]{64}$/);
    expect(sessionAuthHash('one', hash)).not.toBe(sessionAuthHash('two', hash));
    expect(sessionAuthHash('one', hash)).not.toBe(sessionAuthHash('one', `${hash}x`));
  });

  test('the digest stays the one sessions were stored with, asked once or many times, whatever was asked between', () => {
    const hash = 'pbkdf2_sha256$1000$salt$digest';
    const stored = createHmac('sha256', 'one').update(`session-auth-hash:${hash}`, 'utf8').digest('hex');
    expect(sessionAuthHash('one', hash)).toBe(stored);
    expect(sessionAuthHash('two', hash)).not.toBe(stored);
    expect(sessionAuthHash('one', `${hash}x`)).not.toBe(stored);
    expect(sessionAuthHash('one', hash)).toBe(stored);
  });

  test("a login stores the digest of the account's password hash beside its id, never the hash itself", async () => {
    await logIn(t, 'alice');
    const row = await t.services.accounts.findByUsername('alice', { withHidden: true });
    const hash = String(row?.get('password'));
    const mine = (await storedSessions(t)).filter(({ data }) => (data.passport as { user?: number } | undefined)?.user === row?.get('id'));
    expect(mine.length).toBeGreaterThan(0);
    for (const { data } of mine) {
      expect(data.authHash).toMatch(/^[0-9a-f]{64}$/);
      expect(JSON.stringify(data)).not.toContain(hash);
    }
  });

  test('a password set anywhere else (the CLI, the admin) ends every browser session of the account', async () => {
    const agent = await logIn(t, 'bob');
    expect(await isLoggedIn(agent)).toBe(true);
    await t.services.accounts.setPassword('bob', 'amber-orchard-71');
    expect(await isLoggedIn(agent)).toBe(false);
  });

  test('a session stored before the digest existed is accepted once and given it, and ends at the next password change', async () => {
    const agent = await logIn(t, 'carol');
    const row = await t.services.accounts.findByUsername('carol');
    const Session = t.services.sequelize.model('Session');
    for (const { sid, data } of await storedSessions(t)) {
      if ((data.passport as { user?: number } | undefined)?.user !== row?.get('id')) continue;
      delete data.authHash;
      await Session.update({ data: JSON.stringify(data) }, { where: { sid } });
    }
    expect(await isLoggedIn(agent)).toBe(true);
    const given = (await storedSessions(t)).filter(({ data }) => (data.passport as { user?: number } | undefined)?.user === row?.get('id'));
    expect(given.length).toBeGreaterThan(0);
    expect(given.every(({ data }) => typeof data.authHash === 'string')).toBe(true);
    await t.services.accounts.setPassword('carol', 'amber-orchard-71');
    expect(await isLoggedIn(agent)).toBe(false);
  });
});
