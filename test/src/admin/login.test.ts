import { beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { useTestApp } from '../../helpers/app.js';
import { adminAgent, adminCookie, adminLogin } from '../../helpers/admin.js';

const LOAD_TIMEOUT = 60_000;

describe('the admin login at /admin/login', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('staffer', { email: 'Staffer@Example.com', staff: true });
    await app.createUser('member');
    await app.createUser('retired', { staff: true, active: false });
  });
  beforeAll(() => t.app.warm(), LOAD_TIMEOUT);

  test('an active staff member logs in by username and lands on the admin', async () => {
    const { res } = await adminLogin(t, 'staffer', 'staffer-password');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/admin');
  });

  test('an active staff member logs in by email address, in any letter case', async () => {
    const { agent, res } = await adminLogin(t, 'staffer@example.COM', 'staffer-password');
    expect(res.status).toBe(302);
    const page = await agent.get('/admin');
    expect(page.status).toBe(200);
    expect(page.text).toContain('window.REDUX_STATE');
  });

  test('the admin cookie is HttpOnly, SameSite=Strict and sent only to /admin', async () => {
    const { res } = await adminLogin(t, 'staffer', 'staffer-password');
    expect(adminCookie(res)).toMatch(/^admin_sessionid=[^;]+; Path=\/admin; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
  });

  test('the session lives in the database', async () => {
    const { res } = await adminLogin(t, 'staffer', 'staffer-password');
    const signed = decodeURIComponent(/^admin_sessionid=([^;]+)/.exec(adminCookie(res) ?? '')?.[1] ?? '');
    const sid = signed.slice(2).split('.')[0];
    const [rows] = await t.services.sequelize.query('SELECT data FROM sessions WHERE sid = :sid', { replacements: { sid } });
    expect(rows).toHaveLength(1);
    expect(JSON.parse((rows as { data: string }[])[0]!.data)).toMatchObject({ adminUserId: expect.any(Number) });
  });

  const refusals: [string, string, string][] = [
    ['a user who is not staff', 'member', 'member-password'],
    ['an inactive staff member', 'retired', 'retired-password'],
    ['a staff member with a wrong password', 'staffer', 'wrong-password'],
    ['an unknown user', 'nobody', 'nobody-password'],
  ];

  test.each(refusals)('%s gets the login page again with the refusal and no session', async (_who, identifier, password) => {
    const { agent, res } = await adminLogin(t, identifier, password);
    expect(res.status).toBe(200);
    expect(res.text).toContain('"errorMessage":"invalidCredentials"');
    expect(adminCookie(res)).toBeUndefined();
    expect((await agent.get('/admin')).headers.location).toBe('/admin/login');
  });

  test('every refusal is the very same page', async () => {
    const pages = await Promise.all(refusals.map(async ([, identifier, password]) => (await adminLogin(t, identifier, password)).res.text));
    expect(new Set(pages).size).toBe(1);
  });

  test('the refusal is written in the login page translations, in English and in Japanese', async () => {
    const en = await request(t.app).get('/admin/login').set('Accept-Language', 'en');
    expect(en.text).toContain('Please enter the correct email address or username and password of a staff account.');
    const ja = await request(t.app).get('/admin/login').set('Accept-Language', 'ja,en;q=0.5');
    expect(ja.text).toContain('<html lang=ja>');
    expect(ja.text).toContain('スタッフアカウントの正しいメールアドレスまたはユーザ名とパスワードを入力してください。');
    expect(ja.text).toContain('メールアドレスまたはユーザ名');
  });

  test('the admin is in English when the browser does not prefer Japanese', async () => {
    const agent = await adminAgent(t, 'staffer', 'staffer-password');
    const page = await agent.get('/admin/resources/users').set('Accept-Language', 'fr, en;q=0.8');
    expect(page.text).toContain('<html lang=en>');
    expect(page.text).toContain('"users":"Users"');
    const ja = await agent.get('/admin/resources/users').set('Accept-Language', 'ja');
    expect(ja.text).toContain('<html lang=ja>');
    expect(ja.text).toContain('"users":"ユーザ"');
  });

  test('the session id changes at login: a cookie from before is worth nothing after', async () => {
    const first = await adminLogin(t, 'staffer', 'staffer-password');
    const before = adminCookie(first.res)?.split(';')[0];
    const second = await adminLogin(t, 'staffer', 'staffer-password', first.agent);
    const after = adminCookie(second.res)?.split(';')[0];
    expect(after).toBeDefined();
    expect(after).not.toBe(before);
    const stale = await request(t.app).get('/admin/api/resources/users/actions/list').set('Cookie', before ?? '');
    expect(stale.status).toBe(401);
  });

  test('pages ask for the login and the API answers 401 without a session', async () => {
    const page = await request(t.app).get('/admin/resources/users');
    expect(page.status).toBe(302);
    expect(page.headers.location).toBe('/admin/login');
    const api = await request(t.app).get('/admin/api/resources/users/actions/list').set('Accept-Language', 'en');
    expect(api.status).toBe(401);
    expect(api.body).toEqual({ message: 'Authentication credentials were not provided.' });
  });

  test('a staff member who is deactivated is logged out on the next request', async () => {
    await t.createUser('leaving', { staff: true });
    const agent = await adminAgent(t, 'leaving', 'leaving-password');
    expect((await agent.get('/admin/api/resources/users/actions/list')).status).toBe(200);
    await t.services.registry.users().model.update({ is_active: false }, { where: { username: 'leaving' } });
    expect((await agent.get('/admin/api/resources/users/actions/list')).status).toBe(401);
  });

  test('logging out ends the session', async () => {
    const agent = await adminAgent(t, 'staffer', 'staffer-password');
    const res = await agent.get('/admin/logout');
    expect(res.headers.location).toBe('/admin/login');
    expect((await agent.get('/admin/api/resources/users/actions/list')).status).toBe(401);
  });

  test('a login posted from another site is refused', async () => {
    const res = await request(t.app)
      .post('/admin/login')
      .set('Origin', 'https://evil.example')
      .field('email', 'staffer')
      .field('password', 'staffer-password');
    expect(res.status).toBe(403);
    expect(adminCookie(res)).toBeUndefined();
  });

  test('the admin pages may not be framed and are not cached', async () => {
    const res = await request(t.app).get('/admin/login');
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  test('the front-end bundles are served without a session, the components bundle from the build', async () => {
    const components = await request(t.app).get('/admin/frontend/assets/components.bundle.js');
    expect(components.status).toBe(200);
    expect(components.text).toContain('Dashboard');
    expect((await request(t.app).get('/admin/frontend/assets/app.bundle.js')).status).toBe(200);
  });
});
