import { describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { apiToken, recordingAgent, useTestApp, type TestApp } from '../../helpers/app.js';
import { recordingHandler } from '../../helpers/contract.js';
import { browserLogin, formToken, type Agent } from '../../helpers/pages.js';

/** Logs in through the browser login form; returns the agent holding the session, whose answers are checked against the API description. */
async function logIn(t: Pick<TestApp, 'app' | 'responses'>, username: string, password = `${username}-password`): Promise<Agent> {
  return (await browserLogin(recordingHandler(t.app, t.responses), username, password)).agent;
}

/** The CSRF token of the agent's session, from the log-out page's form. */
async function sessionToken(agent: Agent): Promise<string> {
  return formToken((await agent.get('/api-auth/logout/')).text);
}

async function putPassword(agent: Agent, body: Record<string, unknown>, token?: string) {
  const put = agent.put('/user/password').set('Accept', 'application/json');
  return (token === undefined ? put : put.set('X-CSRFToken', token)).send(body);
}

async function isLoggedIn(agent: Agent): Promise<boolean> {
  return (await agent.get('/api/user').set('Accept', 'application/json')).status === 200;
}

async function passwordWorks(t: Pick<TestApp, 'app'>, username: string, password: string): Promise<boolean> {
  const agent = request.agent(t.app);
  const form = await agent.get('/api-auth/login/');
  const res = await agent.post('/api-auth/login/').type('form').send({ csrfmiddlewaretoken: formToken(form.text), username, password });
  return res.status === 302;
}

/** Whether the account's stored password is `password`, asked of the accounts directly (a login might be throttled). */
async function storedPasswordIs(t: Pick<TestApp, 'services'>, username: string, password: string): Promise<boolean> {
  const row = await t.services.accounts.findByUsername(username, { withHidden: true });
  return row !== null && (await t.services.accounts.verify(row, password));
}

const NEW_PASSWORD = 'quiet-harbour-lantern';

describe('PUT /user/password, as Laravel Fortify', () => {
  const t = useTestApp(async (app) => {
    for (const name of ['alice', 'bob', 'carol', 'davidson', 'erin', 'frank', 'gina']) await app.createUser(name, { email: `${name}@example.com` });
  });

  test('a correct change answers 200, keeps this session, ends the other ones and keeps the API tokens', async () => {
    const token = await apiToken(t, 'alice');
    const first = await logIn(t, 'alice');
    const second = await logIn(t, 'alice');
    const res = await putPassword(first, { current_password: 'alice-password', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD }, await sessionToken(first));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.body).toEqual({});
    expect(await isLoggedIn(first)).toBe(true);
    expect(await isLoggedIn(second)).toBe(false);
    expect(await passwordWorks(t, 'alice', 'alice-password')).toBe(false);
    expect(await passwordWorks(t, 'alice', NEW_PASSWORD)).toBe(true);
    expect((await t.http.get('/api/user').set('Authorization', `Bearer ${token}`)).status).toBe(200);
  });

  test("a Blade form's POST with _method=PUT (Laravel's method spoofing) changes it too", async () => {
    const agent = await logIn(t, 'gina');
    const token = await sessionToken(agent);
    const res = await agent
      .post('/user/password')
      .type('form')
      .set('Accept', 'application/json')
      .send({ _method: 'PUT', _token: token, current_password: 'gina-password', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(res.status).toBe(200);
    expect(await storedPasswordIs(t, 'gina', NEW_PASSWORD)).toBe(true);
  });

  test('revoke_tokens revokes every API token of the account as well', async () => {
    const token = await apiToken(t, 'bob');
    const agent = await logIn(t, 'bob');
    const res = await putPassword(agent, { current_password: 'bob-password', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD, revoke_tokens: true }, await sessionToken(agent));
    expect(res.status).toBe(200);
    expect((await t.http.get('/api/user').set('Authorization', `Bearer ${token}`)).status).toBe(401);
    expect(await isLoggedIn(agent)).toBe(true);
  });

  test('a wrong current password is 422 with Fortify body, and nothing changes', async () => {
    const agent = await logIn(t, 'carol');
    const res = await putPassword(agent, { current_password: 'wrong', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD }, await sessionToken(agent));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The provided password does not match your current password.',
      errors: { current_password: ['The provided password does not match your current password.'] },
    });
    expect(await passwordWorks(t, 'carol', 'carol-password')).toBe(true);
  });

  test('a confirmation that differs is 422 on the password field', async () => {
    const agent = await logIn(t, 'carol');
    const res = await putPassword(agent, { current_password: 'carol-password', password: NEW_PASSWORD, password_confirmation: 'something-else-entirely' }, await sessionToken(agent));
    expect(res.status).toBe(422);
    expect(res.body).toEqual({
      message: 'The password field confirmation does not match.',
      errors: { password: ['The password field confirmation does not match.'] },
    });
  });

  test.each([
    ['short', 'kX9#q', 'The password field must be at least 8 characters.'],
    ['common', 'password123', 'The given password is too common. Please choose a different password.'],
    ['numeric', '4829301756', 'The password field must contain at least one letter.'],
    ['similar to the username', 'davidson1', 'The password is too similar to the username.'],
  ])('a %s password breaks the password rules: 422 with their messages', async (_kind, password, message) => {
    const agent = await logIn(t, 'davidson');
    const res = await putPassword(agent, { current_password: 'davidson-password', password, password_confirmation: password }, await sessionToken(agent));
    expect(res.status).toBe(422);
    expect(res.body.errors.password).toContain(message);
    expect(Object.keys(res.body.errors)).toEqual(['password']);
  });

  test('without the CSRF token the answer is 419, CSRF token mismatch', async () => {
    const agent = await logIn(t, 'erin');
    const res = await putPassword(agent, { current_password: 'erin-password', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD });
    expect(res.status).toBe(419);
    expect(res.body).toEqual({ message: 'CSRF token mismatch.' });
    expect(await passwordWorks(t, 'erin', 'erin-password')).toBe(true);
  });

  test('a visitor who is not logged in gets 401, Unauthenticated', async () => {
    const agent = recordingAgent(t);
    const token = formToken((await agent.get('/api-auth/login/')).text);
    const res = await putPassword(agent, { current_password: 'frank-password', password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD }, token);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Unauthenticated.' });
  });
});

describe('the password change form at /api-auth/password_change/', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('grace', { email: 'grace@example.com' });
    await app.createUser('heidi', { email: 'heidi@example.com' });
  });

  test('a visitor who is not logged in is sent to the login, and back', async () => {
    const res = await request(t.app).get('/api-auth/password_change/');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/api-auth/login/?next=%2Fapi-auth%2Fpassword_change%2F');
  });

  test('the form shows each field error and changes nothing', async () => {
    const agent = await logIn(t, 'heidi');
    const page = await agent.get('/api-auth/password_change/').set('Accept-Language', 'en');
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="old_password"');
    const res = await agent
      .post('/api-auth/password_change/')
      .type('form')
      .set('Accept-Language', 'en')
      .send({ csrfmiddlewaretoken: formToken(page.text), old_password: 'wrong', new_password1: '12345678', new_password2: '12345679' });
    expect(res.status).toBe(200);
    expect(res.text).toContain('Your old password was entered incorrectly. Please enter it again.');
    expect(res.text).toContain('The two password fields didn’t match.');
    expect(res.text).toContain('This password is entirely numeric.');
    expect(await passwordWorks(t, 'heidi', 'heidi-password')).toBe(true);
  });

  test('a correct change leads to the done page, keeps this session and ends the others', async () => {
    const agent = await logIn(t, 'grace');
    const other = await logIn(t, 'grace');
    const page = await agent.get('/api-auth/password_change/').set('Accept-Language', 'en');
    const res = await agent
      .post('/api-auth/password_change/')
      .type('form')
      .send({ csrfmiddlewaretoken: formToken(page.text), old_password: 'grace-password', new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/api-auth/password_change/done/');
    const done = await agent.get('/api-auth/password_change/done/').set('Accept-Language', 'en');
    expect(done.status).toBe(200);
    expect(done.text).toContain('Your password was changed.');
    expect(await isLoggedIn(agent)).toBe(true);
    expect(await isLoggedIn(other)).toBe(false);
  });

  test("the form names the account's field a password is too like in the page's language", async () => {
    const agent = await logIn(t, 'heidi');
    const page = await agent.get('/api-auth/password_change/');
    const res = await agent
      .post('/api-auth/password_change/')
      .type('form')
      .send({ csrfmiddlewaretoken: formToken(page.text), old_password: 'heidi-password', new_password1: 'heidi@example', new_password2: 'heidi@example' });
    expect(res.text).toContain('このパスワードはメールアドレスと似すぎています。');
    expect(await passwordWorks(t, 'heidi', 'heidi-password')).toBe(true);
  });

  test('a post without the CSRF token is refused with 403', async () => {
    const agent = await logIn(t, 'heidi');
    const res = await agent.post('/api-auth/password_change/').type('form').send({ old_password: 'heidi-password', new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD });
    expect(res.status).toBe(403);
  });
});

describe('guesses of the current password', () => {
  const t = useTestApp(
    async (app) => {
      await app.createUser('ivan', { email: 'ivan@example.com' });
      await app.createUser('judy', { email: 'judy@example.com' });
    },
    { LOGIN_RATE_ACCOUNT_ADDRESS: '3/hour', LOGIN_RATE_ADDRESS: '100/hour', LOGIN_RATE_ACCOUNT: 'off' },
  );

  test('count as failed logins: past the limit, Fortify answers 429 with Retry-After, even for the right password', async () => {
    const agent = await logIn(t, 'ivan');
    const token = await sessionToken(agent);
    const guess = (current: string) => putPassword(agent, { current_password: current, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD }, token);
    // The login itself was a success, which cleared its count: three wrong guesses are allowed.
    for (let i = 0; i < 3; i += 1) expect((await guess(`wrong-${i}`)).status).toBe(422);
    const refused = await guess('ivan-password');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toEqual({ message: expect.any(String) });
    expect(await storedPasswordIs(t, 'ivan', 'ivan-password')).toBe(true);
  });

  test("count on Django's form too, which then answers 429 and changes nothing", async () => {
    const agent = await logIn(t, 'judy');
    const page = await agent.get('/api-auth/password_change/').set('Accept-Language', 'en');
    const post = (old: string) =>
      agent.post('/api-auth/password_change/').type('form').set('Accept-Language', 'en').send({ csrfmiddlewaretoken: formToken(page.text), old_password: old, new_password1: NEW_PASSWORD, new_password2: NEW_PASSWORD });
    for (let i = 0; i < 3; i += 1) expect((await post(`wrong-${i}`)).status).toBe(200);
    const refused = await post('judy-password');
    expect(refused.status).toBe(429);
    expect(await storedPasswordIs(t, 'judy', 'judy-password')).toBe(true);
  });
});
