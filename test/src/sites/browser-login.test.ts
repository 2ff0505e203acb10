import { createHmac } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import request from 'supertest';
import type { Response } from 'supertest';
import { createTestApp, useTestApp, type TestApp } from '../../helpers/app.js';
import { formToken, setCookieHeader } from '../../helpers/pages.js';

type Agent = ReturnType<typeof request.agent>;

/** A cookie's value among a response's Set-Cookie headers. */
function cookie(res: Response, name: string): string | undefined {
  const found = setCookieHeader(res, name);
  return found ? decodeURIComponent(found.slice(name.length + 1).split(';')[0] ?? '') : undefined;
}

/** Logs in through the form as a browser does; returns the agent (its cookies) and the response. */
async function logIn(t: Pick<TestApp, 'app'>, username: string, password: string, next?: string) {
  const agent = request.agent(t.app);
  const page = await agent.get('/api-auth/login/').set('Accept-Language', 'en');
  const form: Record<string, string> = { csrfmiddlewaretoken: formToken(page.text), username, password };
  if (next !== undefined) form.next = next;
  const res = await agent.post('/api-auth/login/').type('form').set('Accept-Language', 'en').send(form);
  return { agent, page, res };
}

/** The CSRF token of the agent's session, from a page that shows a form. */
async function sessionToken(agent: Agent): Promise<string> {
  return formToken((await agent.get('/api-auth/logout/')).text);
}

describe('the browser login at /api-auth/', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice', { email: 'alice@example.com' });
    await app.createUser('bob');
  });

  test("the login page is a form whose CSRF token is kept in a signed HttpOnly, SameSite=Lax cookie, as Django's csrftoken, and starts no session", async () => {
    const res = await t.http.get('/api-auth/login/').set('Accept-Language', 'en');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<form method="post" action="/api-auth/login/"');
    const token = formToken(res.text);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    expect(setCookieHeader(res, 'csrftoken')).toMatch(/; Max-Age=31536000; Path=\/; Expires=.+; HttpOnly; SameSite=Lax$/);
    expect(cookie(res, 'csrftoken')?.split('.')[0]).toBe(token);
    expect(setCookieHeader(res, 'sessionid')).toBeUndefined();
  });

  test('a CSRF cookie whose signature does not hold is no token: the login is refused', async () => {
    const page = await t.http.get('/api-auth/login/');
    const token = formToken(page.text);
    const forged = await t.http
      .post('/api-auth/login/')
      .set('Cookie', `csrftoken=${token}.${'A'.repeat(43)}`)
      .type('form')
      .send({ csrfmiddlewaretoken: token, username: 'alice', password: 'alice-password' });
    expect(forged.status).toBe(403);
    expect(setCookieHeader(forged, 'sessionid')).toBeUndefined();
  });

  test('the form is in Japanese unless the browser prefers English', async () => {
    const res = await t.http.get('/api-auth/login/');
    expect(res.text).toContain('ユーザ名またはメールアドレス');
  });

  test('a correct username and password lead to next, and the session authenticates both sites', async () => {
    const { agent, res } = await logIn(t, 'alice', 'alice-password', '/comments/?page=1');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/comments/?page=1');
    expect((await agent.get('/comments/').set('Accept', 'application/json')).status).toBe(200);
    const me = await agent.get('/api/user').set('Accept', 'application/json');
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ name: 'alice', email: 'alice@example.com' });
  });

  test('the email address logs in as well, and without next the comment list is the landing page', async () => {
    const { res } = await logIn(t, 'ALICE@example.com', 'alice-password');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/comments/');
  });

  test('a wrong password shows the form again with the message and the username, and no session', async () => {
    const { agent, res } = await logIn(t, 'alice', 'wrong');
    expect(res.status).toBe(200);
    expect(res.text).toContain('Please enter a correct username and password.');
    expect(res.text).toContain('value="alice"');
    expect((await agent.get('/comments/').set('Accept', 'application/json')).status).toBe(401);
  });

  test('an unknown user gets the same answer as a wrong password', async () => {
    const unknown = await logIn(t, 'nobody', 'whatever');
    const wrong = await logIn(t, 'alice', 'whatever');
    expect(unknown.res.status).toBe(wrong.res.status);
    expect(unknown.res.text.replace('nobody', 'alice').replace(/value="[0-9a-f]{64}"/, '')).toBe(
      wrong.res.text.replace(/value="[0-9a-f]{64}"/, ''),
    );
  });

  test('the session id changes at each login', async () => {
    const { agent, res: first } = await logIn(t, 'alice', 'alice-password');
    const page = await agent.get('/api-auth/login/');
    const res = await agent.post('/api-auth/login/').type('form').send({ csrfmiddlewaretoken: formToken(page.text), username: 'bob', password: 'bob-password' });
    const before = cookie(first, 'sessionid');
    const after = cookie(res, 'sessionid');
    expect(before).toBeDefined();
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    // The session of before the login is worth nothing.
    const stale = await request(t.app).get('/comments/').set('Cookie', `sessionid=${encodeURIComponent(before ?? '')}`).set('Accept', 'application/json');
    expect(stale.status).toBe(401);
  });

  test("a session cookie whose signature does not hold, or that is signed with another key, authenticates no one", async () => {
    const { res } = await logIn(t, 'alice', 'alice-password');
    const session = cookie(res, 'sessionid') ?? '';
    const [id, signature] = session.slice('s:'.length).split('.');
    const flipped = `${signature?.startsWith('A') ? 'B' : 'A'}${signature?.slice(1) ?? ''}`;
    const otherKey = createHmac('sha256', 'not-the-secret-key').update(id ?? '').digest('base64').replace(/=+$/, '');
    const asks = (value: string) => request(t.app).get('/comments/').set('Cookie', `sessionid=${encodeURIComponent(value)}`).set('Accept', 'application/json');
    expect((await asks(session)).status).toBe(200);
    for (const forged of [`s:${id}.${flipped}`, `s:${id}.${otherKey}`, `s:${id}.`, `s:${id}`, `${id}`]) {
      expect((await asks(forged)).status).toBe(401);
    }
  });

  test('the login form refuses a POST without its CSRF token', async () => {
    const res = await t.http.post('/api-auth/login/').type('form').set('Accept-Language', 'en').send({ username: 'alice', password: 'alice-password' });
    expect(res.status).toBe(403);
    expect(res.text).toContain('CSRF Failed: CSRF token missing or incorrect.');
    expect(cookie(res, 'sessionid')).toBeUndefined();
  });

  test('logout asks first on GET, and POST ends the session: its cookie no longer authenticates', async () => {
    const { agent, res } = await logIn(t, 'alice', 'alice-password');
    const session = cookie(res, 'sessionid') ?? '';
    const confirm = await agent.get('/api-auth/logout/').set('Accept-Language', 'en');
    expect(confirm.text).toContain('Log out of the comment service?');
    expect((await agent.get('/comments/').set('Accept', 'application/json')).status).toBe(200);
    const out = await agent.post('/api-auth/logout/').type('form').send({ csrfmiddlewaretoken: formToken(confirm.text) });
    expect(out.status).toBe(302);
    expect(out.headers.location).toBe('/api-auth/login/');
    const replayed = await request(t.app).get('/comments/').set('Cookie', `sessionid=${encodeURIComponent(session)}`).set('Accept', 'application/json');
    expect(replayed.status).toBe(401);
  });

  test.each([
    ['another host', '//evil.example/'],
    ['an absolute URL', 'https://evil.example/comments/'],
    ['a backslash host', '/\\evil.example'],
    ['a leading backslash', '\\\\evil.example'],
    ['a script URL', 'javascript:alert(1)'],
    ['a header injection', '/comments/\r\nSet-Cookie: x=y'],
    ['a relative path', 'comments/'],
    ['a dot segment that normalises into another host', '/.//evil.example'],
    ['a parent segment that normalises into another host', '/..//evil.example'],
    ['encoded parent segments', '/%2e%2e//evil.example'],
  ])('next naming %s is ignored for the landing page', async (_case, next) => {
    const { res } = await logIn(t, 'bob', 'bob-password', next);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/comments/');
  });

  test('a deactivated account is logged out at its next request', async () => {
    const carol = await t.createUser('carol');
    const { agent } = await logIn(t, 'carol', 'carol-password');
    expect((await agent.get('/comments/').set('Accept', 'application/json')).status).toBe(200);
    await t.services.registry.users().model.update({ is_active: false }, { where: { id: carol.id } });
    expect((await agent.get('/comments/').set('Accept', 'application/json')).status).toBe(401);
  });
});

describe('session lifetime and end', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  });
  const sessions = () => t.services.sequelize.models.Session;

  test('a session kept past its expiry is over, whatever the cookie says', async () => {
    const { agent, res } = await logIn(t, 'alice', 'alice-password');
    const sid = decodeURIComponent(cookie(res, 'sessionid') ?? '').slice(2).split('.')[0] ?? '';
    const row = await sessions()?.findByPk(sid);
    const data = JSON.parse(String(row?.get('data'))) as { cookie: { expires: string } };
    data.cookie.expires = '2000-01-01T00:00:00.000Z';
    await row?.update({ data: JSON.stringify(data) });
    expect((await agent.get('/comments/').set('Accept', 'application/json')).status).toBe(401);
    expect(await sessions()?.findByPk(sid)).toBeNull();
  });

  test('using a session does not extend it, and a visitor who never logs in gets none', async () => {
    const { agent, page, res } = await logIn(t, 'alice', 'alice-password');
    const sid = (response: Response) => decodeURIComponent(cookie(response, 'sessionid') ?? '').slice(2).split('.')[0] ?? '';
    const expiresOf = async (id: string) => new Date(String((await sessions()?.findByPk(id))?.get('expires'))).getTime();
    const before = await expiresOf(sid(res));
    await agent.get('/comments/').set('Accept', 'application/json');
    expect(await expiresOf(sid(res))).toBe(before);
    expect(before - Date.now()).toBeGreaterThan(13 * 24 * 3600 * 1000);
    expect(cookie(page, 'sessionid')).toBeUndefined();
  });

  test("a hundred visitors each on the login form, the log-out page and the CSRF cookie leave no session row, and each one's token logs in", async () => {
    const rows = async () => (await sessions()?.count()) ?? 0;
    const before = await rows();
    for (let visitor = 0; visitor < 100; visitor += 1) {
      for (const path of ['/api-auth/login/', '/api-auth/logout/', '/api/sanctum/csrf-cookie']) expect((await t.http.get(path)).status).toBeLessThan(300);
    }
    expect(await rows()).toBe(before);
    const agent = request.agent(t.app);
    const xsrf = cookie(await agent.get('/api/sanctum/csrf-cookie'), 'XSRF-TOKEN') ?? '';
    expect((await agent.post('/api-auth/login/').set('X-XSRF-TOKEN', xsrf).send({ username: 'alice', password: 'alice-password' })).status).toBe(302);
    expect(await rows()).toBe(before + 1);
  });

  test("POST /api/logout on a session ends the session", async () => {
    const { agent } = await logIn(t, 'alice', 'alice-password');
    const token = await sessionToken(agent);
    expect((await agent.post('/api/logout').set('X-XSRF-TOKEN', token).set('Accept', 'application/json')).status).toBe(204);
    expect((await agent.get('/api/user').set('Accept', 'application/json')).status).toBe(401);
  });

  test('a logout form posted from another site (no token) is refused, logged in or not', async () => {
    const res = await t.http.post('/api-auth/logout/').type('form').send({ next: '/.//evil.example' });
    expect(res.status).toBe(403);
    expect(res.headers.location).toBeUndefined();
  });

  test('a login body that is JSON null is a failed login, not an error', async () => {
    const agent = request.agent(t.app);
    const token = formToken((await agent.get('/api-auth/login/')).text);
    const res = await agent.post('/api-auth/login/').set('X-CSRFToken', token).set('Content-Type', 'application/json').send('null');
    expect(res.status).toBe(200);
    expect(res.text).toContain('role="alert"');
  });
});

describe('CSRF protection of session requests', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  });
  const count = () => t.services.registry.get('Comment').model.count();

  test("an unsafe request on a session without the token is refused and writes nothing: DRF's 403 at the root, Laravel's 419 under /api", async () => {
    const { agent } = await logIn(t, 'alice', 'alice-password');
    const before = await count();
    const paginated = await agent.post('/comments/').type('form').set('Accept', 'application/json').send({ title: 't', body: 'b' });
    expect(paginated.status).toBe(403);
    expect(paginated.body).toEqual({ detail: 'CSRF検証に失敗しました: CSRFトークンがないか、正しくありません。' });
    const token = await agent.post('/api/comments').set('Accept', 'application/json').send({ title: 't', body: 'b' });
    expect(token.status).toBe(419);
    expect(token.body).toEqual({ message: 'CSRF token mismatch.' });
    const page = await agent.post('/api/comments').set('Accept', 'text/html').send({ title: 't', body: 'b' });
    expect(page.status).toBe(419);
    expect(page.text).toContain('<h1>419 | Page Expired</h1>');
    const wrong = await agent.post('/comments/').set('X-CSRFToken', 'f'.repeat(64)).set('Accept', 'application/json').send({ title: 't', body: 'b' });
    expect(wrong.status).toBe(403);
    expect(await count()).toBe(before);
  });

  test('the token in the form field, X-CSRFToken, X-XSRF-TOKEN or X-CSRF-TOKEN lets the write through', async () => {
    const { agent } = await logIn(t, 'alice', 'alice-password');
    const token = await sessionToken(agent);
    const form = await agent.post('/comments/').type('form').set('Accept', 'application/json').send({ title: 'form', body: 'b', csrfmiddlewaretoken: token });
    expect(form.status).toBe(201);
    const header = await agent.patch(`/comments/${form.body.id}/`).set('X-CSRFToken', token).set('Accept', 'application/json').send({ title: 'header' });
    expect(header.status).toBe(200);
    // Laravel's meta-tag header.
    const meta = await agent.patch(`/api/comments/${form.body.id}`).set('X-CSRF-TOKEN', token).set('Accept', 'application/json').send({ title: 'meta' });
    expect(meta.status).toBe(200);
    const laravel = await agent.delete(`/api/comments/${form.body.id}`).set('X-XSRF-TOKEN', token).set('Accept', 'application/json');
    expect(laravel.status).toBe(200);
  });

  test('Basic and bearer requests need no CSRF token', async () => {
    const basic = await t.http.post('/comments/').auth('alice', 'alice-password').set('Accept', 'application/json').send({ title: 'basic', body: 'b' });
    expect(basic.status).toBe(201);
    const login = await t.http.post('/api/login').send({ email: 'alice@example.com', password: 'alice-password' });
    const bearer = await t.http.post('/api/comments').set('Authorization', `Bearer ${login.body.token}`).set('Accept', 'application/json').send({ title: 'bearer', body: 'b' });
    expect(bearer.status).toBe(201);
  });

  test("the token API's first-party flow: csrf-cookie, log in, then writes with the session cookie and X-XSRF-TOKEN", async () => {
    const agent = request.agent(t.app);
    const first = await agent.get('/api/sanctum/csrf-cookie');
    expect(first.status).toBe(204);
    const xsrf = cookie(first, 'XSRF-TOKEN') ?? '';
    const login = await agent.post('/api-auth/login/').set('X-XSRF-TOKEN', xsrf).send({ username: 'alice', password: 'alice-password' });
    expect(login.status).toBe(302);
    // A new session gets a new token, in the cookie a script reads it from.
    const rotated = cookie(login, 'XSRF-TOKEN') ?? '';
    expect(rotated).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated).not.toBe(xsrf);
    const stale = await agent.post('/api/comments').set('X-XSRF-TOKEN', xsrf).set('Accept', 'application/json').send({ title: 'x', body: 'y' });
    expect(stale.status).toBe(419);
    const created = await agent.post('/api/comments').set('X-XSRF-TOKEN', rotated).set('Accept', 'application/json').send({ title: 'spa', body: 'y' });
    expect(created.status).toBe(201);
    expect(created.body.comment).toMatchObject({ title: 'spa' });
  });
});

describe('session cookies behind a proxy', () => {
  test('with TRUST_PROXY, a request forwarded as HTTPS gets Secure cookies; without it, no Secure', async () => {
    for (const [trust, secure] of [['1', true], ['', false]] as const) {
      const app = await createTestApp(trust ? { TRUST_PROXY: trust } : {});
      try {
        const res = await app.http.get('/api-auth/login/').set('X-Forwarded-Proto', 'https');
        expect([trust, setCookieHeader(res, 'csrftoken')?.includes('; Secure')]).toEqual([trust, secure]);
      } finally {
        await app.close();
      }
    }
  });
});

describe('the account menu of the pages', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
    await app.createUser('mallory', { name: '<script>alert(1)</script>' });
  });
  const html = { Accept: 'text/html', 'Accept-Language': 'en' };

  test('a visitor who is not logged in gets a 403 page with a log-in link that returns to the page', async () => {
    const res = await t.http.get('/comments/?page=1').set(html);
    expect(res.status).toBe(403);
    expect(res.text).toContain('<a href="/api-auth/login/?next=%2Fcomments%2F%3Fpage%3D1">Log in to see this page.</a>');
    expect(res.text).toContain('Not logged in');
  });

  test("a session's page names the user and offers a log-out form that works", async () => {
    const { agent } = await logIn(t, 'alice', 'alice-password');
    const page = await agent.get('/comments/').set(html);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Logged in as alice');
    expect(page.text).toContain('<form method="post" action="/api-auth/logout/" class="inline">');
    expect(page.text).toContain('<input type="hidden" name="next" value="/comments/">');
    const out = await agent.post('/api-auth/logout/').type('form').send({ csrfmiddlewaretoken: formToken(page.text), next: '/comments/' });
    expect(out.headers.location).toBe('/comments/');
    expect((await agent.get('/comments/').set(html)).status).toBe(403);
  });

  test("a session's save refused for a missing CSRF token gets a page that still names the user, with no log-in link", async () => {
    const { agent } = await logIn(t, 'alice', 'alice-password');
    const refused = await agent.post('/comments/').type('form').set(html).send({ title: 'no token', body: 'sent' });
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('CSRF Failed');
    expect(refused.text).toContain('Logged in as alice');
    expect(refused.text).not.toContain('Log in to see this page.');
  });

  test('a Basic-authenticated page names the user, with no log-out form (there is no session to end)', async () => {
    const page = await t.http.get('/comments/').auth('alice', 'alice-password').set(html);
    expect(page.text).toContain('Logged in as alice');
    expect(page.text).not.toContain('/api-auth/logout/');
  });

  test("the token site's error page for a browser has the same menu", async () => {
    const page = await t.http.get('/api/user').set(html);
    expect(page.status).toBe(401);
    expect(page.text).toContain('href="/api-auth/login/?next=%2Fapi%2Fuser"');
  });

  test("a user's name is shown as text, never as markup", async () => {
    const page = await t.http.get('/comments/').auth('mallory', 'mallory-password').set(html);
    expect(page.text).toContain('Logged in as &lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.text).not.toContain('<script>alert(1)');
  });
});
