import { describe, expect, test } from '@jest/globals';
import request from 'supertest';
import type { Response } from 'supertest';
import { apiToken, recordingAgent, useTestApp, type TestApp } from '../../helpers/app.js';
import { setCookieHeader } from '../../helpers/pages.js';

type Agent = ReturnType<typeof request.agent>;

/** What axios sends as a Laravel SPA's client: JSON, and the X-Requested-With that Laravel's bootstrap.js adds. */
const AXIOS = { Accept: 'application/json, text/plain, */*', 'X-Requested-With': 'XMLHttpRequest', 'Accept-Language': 'en' };

/** A cookie's value among a response's Set-Cookie headers. */
function cookie(res: Response, name: string): string | undefined {
  const found = setCookieHeader(res, name);
  return found ? decodeURIComponent(found.slice(name.length + 1).split(';')[0] ?? '') : undefined;
}

/** An agent (a cookie jar) that fetched the CSRF cookie, and the token axios would echo; its answers are checked against the API description. */
async function spa(t: Pick<TestApp, 'app' | 'responses'>, path = '/sanctum/csrf-cookie'): Promise<{ agent: Agent; xsrf: string }> {
  const agent = recordingAgent(t);
  const res = await agent.get(path).set(AXIOS);
  expect(res.status).toBe(204);
  const xsrf = cookie(res, 'XSRF-TOKEN');
  if (!xsrf) throw new Error('no XSRF-TOKEN cookie');
  return { agent, xsrf };
}

describe('a Laravel SPA signing in at POST /login as Fortify answers', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice', { email: 'alice@example.com' });
    await app.createUser('bob', { email: 'bob@example.com' });
  });

  test('the CSRF cookie, the login, API calls with the session, the logout and then no session, as Laravel documents the flow', async () => {
    const { agent, xsrf } = await spa(t);
    const login = await agent.post('/login').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ email: 'alice@example.com', password: 'alice-password' });
    expect(login.status).toBe(200);
    expect(login.body).toEqual({ two_factor: false });
    const rotated = cookie(login, 'XSRF-TOKEN');
    expect(rotated).toMatch(/^[0-9a-f]{64}$/);
    expect(rotated).not.toBe(xsrf);

    const me = await agent.get('/api/user').set(AXIOS);
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({ name: 'alice', email: 'alice@example.com' });
    const created = await agent.post('/api/comments').set(AXIOS).set('X-XSRF-TOKEN', rotated ?? '').send({ title: 'spa', body: 'from the SPA' });
    expect(created.status).toBe(201);

    const logout = await agent.post('/logout').set(AXIOS).set('X-XSRF-TOKEN', rotated ?? '');
    expect(logout.status).toBe(204);
    expect(logout.text).toBe('');
    const after = await agent.get('/api/user').set(AXIOS);
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ message: 'Unauthenticated.' });
  });

  test('a bearer token decides over the session cookie sent with it, and one that does not check out leaves it to the session', async () => {
    const { agent, xsrf } = await spa(t);
    expect((await agent.post('/login').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ email: 'alice', password: 'alice-password' })).status).toBe(200);
    const bobToken = await apiToken(t, 'bob');
    // No XSRF header: a token needs none, whatever cookie comes with it.
    const asBob = await agent.post('/api/comments').set(AXIOS).set('Authorization', `Bearer ${bobToken}`).send({ title: 't', body: 'by the token' });
    expect(asBob.status).toBe(201);
    expect((await agent.get('/api/user').set(AXIOS).set('Authorization', `Bearer ${bobToken}`)).body.user.name).toBe('bob');
    const refusedToken = await agent.post('/api/comments').set(AXIOS).set('Authorization', 'Bearer 1|not-a-token').send({ title: 't', body: 'x' });
    expect(refusedToken.status).toBe(419);
    expect((await agent.get('/api/user').set(AXIOS).set('Authorization', 'Bearer 1|not-a-token')).body.user.name).toBe('alice');
  });

  test('OPTIONS on its routes answers as Laravel\'s router: 200, no body, the method in Allow', async () => {
    for (const [path, allow] of [['/login', 'POST'], ['/logout', 'POST'], ['/user/password', 'PUT']]) {
      const res = await t.http.options(path!);
      expect([path, res.status, res.headers.allow, res.text]).toEqual([path, 200, allow, '']);
    }
  });

  test('the old XSRF token is worthless after the login rotated it', async () => {
    const { agent, xsrf } = await spa(t, '/api/sanctum/csrf-cookie');
    const login = await agent.post('/login').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ email: 'alice', password: 'alice-password' });
    expect(login.status).toBe(200);
    const stale = await agent.post('/api/comments').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ title: 'stale', body: 'token' });
    expect(stale.status).toBe(419);
  });

  test('the username logs in as well as the email address, in the email field as Fortify names it', async () => {
    const { agent, xsrf } = await spa(t);
    const login = await agent.post('/login').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ email: 'bob', password: 'bob-password' });
    expect(login.status).toBe(200);
    expect((await agent.get('/api/user').set(AXIOS)).body.user).toMatchObject({ name: 'bob' });
  });

  test('a wrong password is 422 with the auth.failed message of Laravel on the email field, and no session', async () => {
    const { agent, xsrf } = await spa(t);
    const res = await agent.post('/login').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ email: 'alice@example.com', password: 'wrong' });
    expect(res.status).toBe(422);
    // The token site's JSON, as Laravel's JsonResponse: no charset parameter.
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({
      message: 'These credentials do not match our records.',
      errors: { email: ['These credentials do not match our records.'] },
    });
    expect((await agent.get('/api/user').set(AXIOS)).status).toBe(401);
  });

  test('an unknown account gets the same answer as a wrong password', async () => {
    const { agent, xsrf } = await spa(t);
    const res = await agent.post('/login').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ email: 'nobody@example.com', password: 'wrong' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ email: ['These credentials do not match our records.'] });
  });

  test('missing or blank fields are 422 with each field required, as the token site validates', async () => {
    const { agent, xsrf } = await spa(t);
    const res = await agent.post('/login').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ email: '  ' });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The email field is required. (and 1 more error)',
      errors: { email: ['The email field is required.'], password: ['The password field is required.'] },
    });
  });

  test('a login without the CSRF token is 419 with the body Laravel gives, and nothing logs in', async () => {
    const { agent } = await spa(t);
    const res = await agent.post('/login').set(AXIOS).send({ email: 'alice@example.com', password: 'alice-password' });
    expect(res.status).toBe(419);
    expect(res.body).toEqual({ message: 'CSRF token mismatch.' });
    expect((await agent.get('/api/user').set(AXIOS)).status).toBe(401);
  });

  test('a logout without the CSRF token is 419 and the session stays', async () => {
    const { agent, xsrf } = await spa(t);
    const login = await agent.post('/login').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ email: 'alice', password: 'alice-password' });
    expect(login.status).toBe(200);
    const res = await agent.post('/logout').set(AXIOS);
    expect(res.status).toBe(419);
    expect(res.body).toEqual({ message: 'CSRF token mismatch.' });
    expect((await agent.get('/api/user').set(AXIOS)).status).toBe(200);
  });

  test('a logout with no one logged in is 401 Unauthenticated for JSON and a redirect to the login form for a form', async () => {
    const { agent, xsrf } = await spa(t);
    const json = await agent.post('/logout').set(AXIOS).set('X-XSRF-TOKEN', xsrf);
    expect(json.status).toBe(401);
    expect(json.body).toEqual({ message: 'Unauthenticated.' });
    const form = await agent.post('/logout').type('form').send({ _token: xsrf });
    expect(form.status).toBe(302);
    expect(form.headers.location).toBe('/api-auth/login/');
  });

  test('the messages are Japanese for Accept-Language ja', async () => {
    const { agent, xsrf } = await spa(t);
    const ja = { ...AXIOS, 'Accept-Language': 'ja', 'X-XSRF-TOKEN': xsrf };
    const failed = await agent.post('/login').set(ja).send({ email: 'alice', password: 'wrong' });
    expect(failed.status).toBe(422);
    expect(failed.body).toEqual({ message: '認証情報が記録と一致しません。', errors: { email: ['認証情報が記録と一致しません。'] } });
    const missing = await agent.post('/login').set(ja).send({ email: 'alice' });
    expect(missing.body).toEqual({ message: 'passwordは必ず指定してください。', errors: { password: ['passwordは必ず指定してください。'] } });
    const csrf = await agent.post('/login').set({ ...ja, 'X-XSRF-TOKEN': 'wrong' }).send({ email: 'alice', password: 'alice-password' });
    expect(csrf.status).toBe(419);
    expect(csrf.body).toEqual({ message: 'CSRFトークンが一致しません。' });
  });

  test('a form post that logs in is redirected to its next path, and the session lasts SESSION_COOKIE_AGE when remembered', async () => {
    const { agent, xsrf } = await spa(t);
    const res = await agent
      .post('/login')
      .type('form')
      .send({ _token: xsrf, email: 'alice@example.com', password: 'alice-password', remember: 'on', next: '/api/user' });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/api/user');
    expect(setCookieHeader(res, 'sessionid')).toMatch(/; Expires=/);
    expect((await agent.get('/api/user').set(AXIOS)).status).toBe(200);
  });

  test('a login without remember gets a session cookie that ends with the browser', async () => {
    const { agent, xsrf } = await spa(t);
    const res = await agent.post('/login').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ email: 'alice', password: 'alice-password' });
    expect(res.status).toBe(200);
    const session = setCookieHeader(res, 'sessionid');
    expect(session).toMatch(/; Path=\/; HttpOnly; SameSite=Lax$/);
    expect((await agent.get('/api/user').set(AXIOS)).status).toBe(200);
  });

  test('a form post to an unsafe next lands at the root, and a failed one goes back to the login form with its next', async () => {
    const { agent, xsrf } = await spa(t);
    const failed = await agent.post('/login').type('form').send({ _token: xsrf, email: 'alice', password: 'wrong', next: '/comments/' });
    expect(failed.status).toBe(302);
    expect(failed.headers.location).toBe('/api-auth/login/?next=%2Fcomments%2F');
    const stale = await agent.post('/login').type('form').send({ _token: 'stale', email: 'alice', password: 'alice-password' });
    expect(stale.status).toBe(302);
    expect(stale.headers.location).toBe('/api-auth/login/');
    const offsite = await agent.post('/login').type('form').send({ _token: xsrf, email: 'alice', password: 'alice-password', next: '//evil.example/' });
    expect(offsite.status).toBe(302);
    expect(offsite.headers.location).toBe('/');
    const logout = await agent.post('/logout').type('form').send({ _token: cookie(offsite, 'XSRF-TOKEN') ?? '' });
    expect(logout.status).toBe(302);
    expect(logout.headers.location).toBe('/');
    expect((await agent.get('/api/user').set(AXIOS)).status).toBe(401);
  });
});

describe('a throttled SPA login', () => {
  const t = useTestApp(
    async (app) => {
      await app.createUser('alice', { email: 'alice@example.com' });
    },
    { LOGIN_RATE_ACCOUNT_ADDRESS: '2/hour' },
  );

  test('is 429 with the message of Fortify on the email field, and Retry-After', async () => {
    const { agent, xsrf } = await spa(t);
    const attempt = () => agent.post('/login').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ email: 'alice@example.com', password: 'wrong' });
    expect((await attempt()).status).toBe(422);
    expect((await attempt()).status).toBe(422);
    const res = await attempt();
    expect(res.status).toBe(429);
    const seconds = Number(res.headers['retry-after']);
    expect(seconds).toBeGreaterThan(0);
    const message = `Too many login attempts. Please try again in ${seconds} seconds.`;
    expect(res.body).toEqual({ message, errors: { email: [message] } });
    const ja = await agent.post('/login').set(AXIOS).set({ 'X-XSRF-TOKEN': xsrf, 'Accept-Language': 'ja' }).send({ email: 'alice', password: 'wrong' });
    expect(ja.status).toBe(429);
    expect(ja.body.message).toMatch(/^ログインの試行回数が多すぎます。\d+秒後にもう一度お試しください。$/);
  });
});
