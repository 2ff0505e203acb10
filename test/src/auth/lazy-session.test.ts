import { describe, expect, jest, test } from '@jest/globals';
import { useTestApp, type TestApp } from '../../helpers/app.js';
import { browserLogin, formToken, setCookieHeader, type Agent } from '../../helpers/pages.js';

/** The stored sessions of one account, as the session store keeps them. */
async function sessionsOf(t: Pick<TestApp, 'services'>, username: string): Promise<{ sid: string; data: Record<string, unknown> }[]> {
  const account = await t.services.accounts.findByUsername(username);
  const rows = await t.services.sequelize.model('Session').findAll();
  return rows
    .map((row) => ({ sid: String(row.get('sid')), data: JSON.parse(String(row.get('data'))) as Record<string, unknown> }))
    .filter(({ data }) => (data.passport as { user?: unknown } | undefined)?.user === account?.get('id'));
}

/** Takes the CSRF token out of the account's stored sessions, as if it had never been asked for. */
async function forgetCsrfTokens(t: Pick<TestApp, 'services'>, username: string): Promise<void> {
  const Session = t.services.sequelize.model('Session');
  for (const { sid, data } of await sessionsOf(t, username)) {
    delete data.csrfToken;
    await Session.update({ data: JSON.stringify(data) }, { where: { sid } });
  }
}

/**
 * A safe request with a session cookie loads its session only when something
 * reads it (Django's lazy session): a JSON read is let in by the cookie alone,
 * and a page that needs the session (its CSRF token) still gets it, and saves
 * what it changed.
 */
describe('the browser session, loaded when read', () => {
  const t = useTestApp(async (app) => {
    for (const name of ['alice', 'bob', 'carol', 'dave']) await app.createUser(name, { email: `${name}@example.com` });
  });

  const jsonRead = (agent: Agent, path = '/comments/') => agent.get(path).set('Accept', 'application/json');
  const readWith = (cookie: string, path: string) => t.http.get(path).set('Accept', 'application/json').set('Cookie', cookie);

  /** A login through the form, by plain requests: the `sessionid=…` pair a browser would send back. */
  async function sessionCookie(username: string): Promise<string> {
    const page = await t.http.get('/api-auth/login/');
    const anonymous = setCookieHeader(page, 'csrftoken')?.split(';')[0] ?? '';
    const res = await t.http.post('/api-auth/login/').set('Cookie', anonymous).type('form').send({ csrfmiddlewaretoken: formToken(page.text), username, password: `${username}-password` });
    expect(res.status).toBe(302);
    return setCookieHeader(res, 'sessionid')?.split(';')[0] ?? '';
  }

  test('JSON reads, HEAD and OPTIONS are let in by the session, set no cookie and write no session', async () => {
    const { agent } = await browserLogin(t.app, 'alice');
    const before = await sessionsOf(t, 'alice');
    for (const res of [await jsonRead(agent), await jsonRead(agent, '/api/user'), await agent.head('/comments/'), await agent.options('/comments/').set('Accept', 'application/json')]) {
      expect(res.status).toBe(200);
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect((await jsonRead(agent, '/api/user')).body).toMatchObject({ user: { name: 'alice' } });
    expect(await sessionsOf(t, 'alice')).toEqual(before);
  });

  test("a page asked with a session whose CSRF token was never made makes it, saves it, and a form sent with it is taken", async () => {
    const { agent } = await browserLogin(t.app, 'bob');
    await forgetCsrfTokens(t, 'bob');
    const page = await agent.get('/comments/').set('Accept', 'text/html');
    expect(page.status).toBe(200);
    const token = formToken(page.text);
    expect((await sessionsOf(t, 'bob')).map(({ data }) => data.csrfToken)).toEqual([token]);
    const created = await agent.post('/comments/').set('Accept', 'application/json').set('X-CSRFToken', token).send({ title: 'lazy', body: 'saved token' });
    expect(created.status).toBe(201);
  });

  test("the token site's error page for a browser (a 404 to Accept */*) shows the session's log-out form with its token", async () => {
    const { agent } = await browserLogin(t.app, 'carol');
    await forgetCsrfTokens(t, 'carol');
    const missing = await agent.get('/api/comments/999999').set('Accept', '*/*');
    expect(missing.status).toBe(404);
    expect(missing.type).toBe('text/html');
    const token = formToken(missing.text);
    expect((await sessionsOf(t, 'carol')).map(({ data }) => data.csrfToken)).toEqual([token]);
  });

  test('after a log-out the same Cookie header lets no one in, however often it was let in before', async () => {
    const cookie = await sessionCookie('dave');
    for (let i = 0; i < 3; i += 1) expect((await readWith(cookie, '/api/user')).status).toBe(200);
    const confirm = await readWith(cookie, '/api-auth/logout/').set('Accept', 'text/html');
    const out = await t.http.post('/api-auth/logout/').set('Cookie', cookie).type('form').send({ csrfmiddlewaretoken: formToken(confirm.text) });
    expect(out.status).toBe(302);
    expect((await readWith(cookie, '/api/user')).status).toBe(401);
    expect((await readWith(cookie, '/comments/')).status).toBe(401);
  });

  test('a session cookie whose signature was changed lets no one in, even right after the cookie it was copied from', async () => {
    const cookie = await sessionCookie('alice');
    const forged = cookie.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
    expect((await readWith(cookie, '/comments/')).status).toBe(200);
    expect((await readWith(forged, '/comments/')).status).toBe(401);
    expect((await readWith(`${forged}; ${cookie}`, '/comments/')).status).toBe(401);
  });

  test('a JSON read is let in without loading the session; a page loads it once, when it reads it', async () => {
    const { agent } = await browserLogin(t.app, 'bob');
    const asked = jest.spyOn(t.services.sessions.store, 'get');
    try {
      expect((await jsonRead(agent)).status).toBe(200);
      expect(asked).not.toHaveBeenCalled();
      expect((await agent.get('/comments/').set('Accept', 'text/html')).status).toBe(200);
      expect(asked).toHaveBeenCalledTimes(1);
    } finally {
      asked.mockRestore();
    }
  });

  test('a session that ends while its page is being made still serves that page, with the session it was let in by', async () => {
    const { agent } = await browserLogin(t.app, 'carol');
    const Session = t.services.sequelize.model('Session');
    for (const { sid, data } of await sessionsOf(t, 'carol')) {
      delete data.csrfToken;
      data.cookie = { ...(data.cookie as object), expires: new Date(Date.now() + 300).toISOString() };
      await Session.update({ data: JSON.stringify(data) }, { where: { sid } });
    }
    // The account is read after the session was found current; by then, the session's end has passed.
    const { accounts } = t.services;
    const read = accounts.findStoredById.bind(accounts);
    const slow = jest.spyOn(accounts, 'findStoredById').mockImplementation(async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      return read(...args);
    });
    try {
      const page = await agent.get('/comments/').set('Accept', 'text/html');
      expect(page.status).toBe(200);
      expect(formToken(page.text)).toMatch(/\S/);
    } finally {
      slow.mockRestore();
    }
  });
});
