import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { createApp, type App } from '../../../src/app.js';
import { PasswordHasher } from '../../../src/auth/hashers.js';
import { throttleKey } from '../../../src/auth/strategies.js';
import { createLogger } from '../../../src/logger.js';
import { createServices, type Services } from '../../../src/services.js';
import { createTestUser } from '../../../src/testing/index.js';
import { unguarded } from '../../../src/throttling.js';
import { TEST_ITERATIONS, testConfig } from '../../helpers/app.js';
import { createTestDatabase } from '../../helpers/database.js';
import { formToken } from '../../helpers/pages.js';

/** 3 failures of an account from one address, addresses from X-Forwarded-For so that a test can be several clients. */
const LIMITS = { LOGIN_RATE_ACCOUNT_ADDRESS: '3/hour', LOGIN_RATE_ADDRESS: '50/hour', LOGIN_RATE_ACCOUNT: '60/hour', TRUST_PROXY: 'true', LOG_LEVEL: 'info' };

type Flow = 'browser' | 'admin' | 'fortify' | 'token' | 'basic';
const FLOWS: readonly Flow[] = ['browser', 'admin', 'fortify', 'token', 'basic'];
type Outcome = 'in' | 'refused' | 'throttled';

/** What each flow answers, told apart: its own success, refusal and 429. */
interface Attempt {
  outcome: Outcome;
  status: number;
  retryAfter?: string;
}

let services: Services;
let app: App;
let drop: () => Promise<void>;
const lines: Record<string, unknown>[] = [];
let logged = '';

beforeAll(async () => {
  const database = await createTestDatabase();
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      const text = chunk.toString('utf8');
      logged += text;
      for (const line of text.split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = testConfig({ DATABASE_URL: database.url, ...LIMITS });
  services = await createServices(config, { logger: createLogger('info', sink) });
  app = createApp(services);
  drop = () => database.drop();
});

afterAll(async () => {
  await services.close();
  await drop();
});

async function staff(username: string): Promise<void> {
  await createTestUser(services, username, { email: `${username}@example.com`, staff: true });
}

/** Each flow as its client speaks it; the identifier is the username (the token login takes the email address). */
async function attempt(flow: Flow, username: string, password: string, address: string): Promise<Attempt> {
  const agent = request.agent(app);
  const answer = (status: number, inWhen: boolean, headers: Record<string, string>): Attempt => ({
    outcome: status === 429 ? 'throttled' : inWhen ? 'in' : 'refused',
    status,
    retryAfter: headers['retry-after'],
  });
  if (flow === 'browser') {
    const page = await agent.get('/api-auth/login/').set('X-Forwarded-For', address);
    const res = await agent.post('/api-auth/login/').set('X-Forwarded-For', address).type('form').send({ csrfmiddlewaretoken: formToken(page.text), username, password });
    return answer(res.status, res.status === 302, res.headers as Record<string, string>);
  }
  if (flow === 'admin') {
    const res = await agent.post('/admin/login').set('X-Forwarded-For', address).set('Accept-Language', 'en').field('email', username).field('password', password);
    return answer(res.status, res.status === 302 && res.headers.location === '/admin', res.headers as Record<string, string>);
  }
  if (flow === 'fortify') {
    const spa = { Accept: 'application/json', 'X-Requested-With': 'XMLHttpRequest', 'Accept-Language': 'en', 'X-Forwarded-For': address };
    const cookie = await agent.get('/sanctum/csrf-cookie').set(spa);
    const xsrf = decodeURIComponent(/XSRF-TOKEN=([^;]+)/.exec(String(cookie.headers['set-cookie']))?.[1] ?? '');
    const res = await agent.post('/login').set(spa).set('X-XSRF-TOKEN', xsrf).send({ email: username, password });
    return answer(res.status, res.status === 200, res.headers as Record<string, string>);
  }
  if (flow === 'token') {
    const res = await agent.post('/api/login').set('X-Forwarded-For', address).set('Accept', 'application/json').send({ email: `${username}@example.com`, password });
    return answer(res.status, res.status === 201, res.headers as Record<string, string>);
  }
  const header = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
  const res = await agent.get('/comments/').set('X-Forwarded-For', address).set('Authorization', header);
  return answer(res.status, res.status === 200, res.headers as Record<string, string>);
}

async function storedHash(username: string): Promise<string> {
  return String((await services.accounts.findByUsername(username, { withHidden: true }))?.get('password'));
}

describe('the login policy: one set of passport strategies behind every flow', () => {
  test.each(FLOWS)('%s: the right password lets in, a wrong one is refused with the answer of the flow', async (flow) => {
    const username = `right-${flow}`;
    await staff(username);
    expect(await attempt(flow, username, 'wrong-password', '10.1.0.1')).toMatchObject({
      outcome: 'refused',
      status: { browser: 200, admin: 200, fortify: 422, token: 404, basic: 401 }[flow],
    });
    expect(await attempt(flow, username, `${username}-password`, '10.1.0.1')).toMatchObject({ outcome: 'in' });
  });

  test('failures in the browser, admin and Basic flows count for the token and Fortify logins from the same address, not from another', async () => {
    await staff('tom');
    for (const flow of ['browser', 'admin', 'basic'] as const) expect((await attempt(flow, 'tom', 'guess', '10.2.0.1')).outcome).toBe('refused');
    for (const flow of ['token', 'fortify'] as const) {
      const refused = await attempt(flow, 'tom', 'tom-password', '10.2.0.1');
      expect(refused.outcome).toBe('throttled');
      expect(Number(refused.retryAfter)).toBeGreaterThan(3500);
    }
    expect((await attempt('token', 'tom', 'tom-password', '10.2.0.2')).outcome).toBe('in');
  });

  test('failures in the token, Fortify and Basic flows count for the browser, admin and Basic logins from the same address', async () => {
    await staff('uma');
    for (const flow of ['token', 'fortify', 'basic'] as const) expect((await attempt(flow, 'uma', 'guess', '10.3.0.1')).outcome).toBe('refused');
    for (const flow of ['browser', 'admin', 'basic'] as const) {
      const refused = await attempt(flow, 'uma', 'uma-password', '10.3.0.1');
      expect(refused).toMatchObject({ outcome: 'throttled', status: 429 });
      expect(Number(refused.retryAfter)).toBeGreaterThan(3500);
    }
    expect((await attempt('browser', 'uma', 'uma-password', '10.3.0.2')).outcome).toBe('in');
  });

  test.each(FLOWS)('%s: an older hash is replaced at the first successful login only, never at a failed one', async (flow) => {
    const username = `rehash-${flow}`;
    await staff(username);
    const row = await services.accounts.findByUsername(username, { withHidden: true });
    await row?.update({ password: await new PasswordHasher(TEST_ITERATIONS / 2).make(`${username}-password`) });
    const older = await storedHash(username);
    expect((await attempt(flow, username, 'wrong', '10.4.0.1')).outcome).toBe('refused');
    expect(await storedHash(username)).toBe(older);
    expect((await attempt(flow, username, `${username}-password`, '10.4.0.1')).outcome).toBe('in');
    const upgraded = await storedHash(username);
    expect(upgraded).toMatch(new RegExp(`^pbkdf2_sha256\\$${TEST_ITERATIONS}\\$`));
    expect((await attempt(flow, username, `${username}-password`, '10.4.0.1')).outcome).toBe('in');
    expect(await storedHash(username)).toBe(upgraded);
  });

  test.each(FLOWS)('%s: a failure is logged at info with the address and the throttle key, a throttled attempt at warn, never the password', async (flow) => {
    const username = `logged-${flow}`;
    await staff(username);
    const secret = `Sekrit-${flow}-guess-42`;
    const address = `10.5.0.${FLOWS.indexOf(flow) + 1}`;
    for (let time = 0; time < 3; time += 1) expect((await attempt(flow, username, secret, address)).outcome).toBe('refused');
    expect((await attempt(flow, username, secret, address)).outcome).toBe('throttled');
    const policy = flow === 'basic' ? 'basic' : flow;
    const failures = lines.filter((line) => line.msg === 'login failed' && line.flow === policy && line.address === address);
    expect(failures).toHaveLength(3);
    for (const line of failures) expect(line).toMatchObject({ level: 30, account: throttleKey(username) });
    expect(lines.filter((line) => line.msg === 'login throttled' && line.flow === policy && line.address === address)).toEqual([
      expect.objectContaining({ level: 40, account: throttleKey(username), retryAfter: expect.stringMatching(/^\d+$/) }),
    ]);
    expect(logged).not.toContain(secret);
    expect(logged).not.toContain(Buffer.from(`${username}:${secret}`).toString('base64'));
  });

  test("an admin session ends when the account's password changes, as the browser sessions do", async () => {
    await staff('vera');
    const agent = request.agent(app);
    const login = await agent.post('/admin/login').set('X-Forwarded-For', '10.6.0.1').field('email', 'vera').field('password', 'vera-password');
    expect(login.headers.location).toBe('/admin');
    expect((await agent.get('/admin/api/resources/users/actions/list')).status).toBe(200);
    await services.accounts.setPassword('vera', 'amber-orchard-71');
    expect((await agent.get('/admin/api/resources/users/actions/list')).status).toBe(401);
    expect((await agent.get('/admin')).headers.location).toBe('/admin/login');
    const again = request.agent(app);
    await again.post('/admin/login').set('X-Forwarded-For', '10.6.0.1').field('email', 'vera').field('password', 'amber-orchard-71');
    expect((await again.get('/admin/api/resources/users/actions/list')).status).toBe(200);
  });

  test('a staff member who sets their own password in the admin stays logged in there; their other admin sessions end', async () => {
    await staff('xena');
    const id = String((await services.accounts.findByUsername('xena'))?.get('id'));
    const [mine, other] = [request.agent(app), request.agent(app)];
    for (const agent of [mine, other]) await agent.post('/admin/login').set('X-Forwarded-For', '10.8.0.1').field('email', 'xena').field('password', 'xena-password');
    const edit = await mine.post(`/admin/api/resources/users/records/${id}/edit`).set('Accept-Language', 'en').field('password', 'amber-orchard-73');
    expect(edit.status).toBe(200);
    expect(await services.accounts.checkCredentials('xena', 'amber-orchard-73', { by: ['username'], guard: unguarded })).not.toBeNull();
    expect((await mine.get('/admin/api/resources/users/actions/list')).status).toBe(200);
    expect((await other.get('/admin/api/resources/users/actions/list')).status).toBe(401);
  });

  test('an admin session stored before the digest existed is accepted once and given it, then ends at the next password change', async () => {
    await staff('walt');
    const agent = request.agent(app);
    await agent.post('/admin/login').set('X-Forwarded-For', '10.7.0.1').field('email', 'walt').field('password', 'walt-password');
    const sessions = services.sequelize.model('Session');
    const userId = (await services.accounts.findByUsername('walt'))?.get('id');
    for (const row of await sessions.findAll()) {
      const data = JSON.parse(String(row.get('data'))) as Record<string, unknown>;
      if (data.adminUserId !== userId) continue;
      delete data.authHash;
      await row.update({ data: JSON.stringify(data) });
    }
    expect((await agent.get('/admin/api/resources/users/actions/list')).status).toBe(200);
    expect((await agent.get('/admin/api/resources/users/actions/list')).status).toBe(200);
    await services.accounts.setPassword('walt', 'amber-orchard-72');
    expect((await agent.get('/admin/api/resources/users/actions/list')).status).toBe(401);
  });
});
