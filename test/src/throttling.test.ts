import { describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { useTestApp, type TestApp } from '../helpers/app.js';
import { adminLogin } from '../helpers/admin.js';
import { formToken } from '../helpers/pages.js';
import { clientAddress } from '../../src/throttling.js';
import type { Request } from 'express';

/**
 * Small allowances (3 failures of an account from one address, 5 of an
 * address, 6 of an account from addresses that failed for it), and client
 * addresses taken from X-Forwarded-For so that a test can be several clients.
 */
const LIMITS = { LOGIN_RATE_ACCOUNT_ADDRESS: '3/hour', LOGIN_RATE_ADDRESS: '5/hour', LOGIN_RATE_ACCOUNT: '6/hour', TRUST_PROXY: 'true' };

function basic(username: string, password: string): string {
  return `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
}

function tokenLogin(t: Pick<TestApp, 'http'>, email: string, password: string, address: string) {
  return t.http.post('/api/login').set('X-Forwarded-For', address).set('Accept', 'application/json').send({ email, password });
}

async function browserLogin(t: Pick<TestApp, 'app'>, username: string, password: string, address: string, language = 'ja') {
  const agent = request.agent(t.app);
  const page = await agent.get('/api-auth/login/').set('X-Forwarded-For', address);
  return agent
    .post('/api-auth/login/')
    .set('X-Forwarded-For', address)
    .set('Accept-Language', language)
    .type('form')
    .send({ csrfmiddlewaretoken: formToken(page.text), username, password });
}

describe('brute-force throttling of the token login', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice', { email: 'alice@example.com' });
    await app.createUser('bob', { email: 'bob@example.com' });
    await app.createUser('carol', { email: 'carol@example.com' });
  }, LIMITS);

  test('an account with three failed logins from one address is refused there with 429, Retry-After and the site message, not elsewhere', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await tokenLogin(t, 'alice@example.com', 'wrong', '10.0.0.1')).status).toBe(404);
    }
    const refused = await tokenLogin(t, 'ALICE@example.com', 'alice-password', '10.0.0.1');
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: 'Too Many Attempts.' });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
    expect(refused.body).not.toHaveProperty('token');
    // The owner, from an address that has not failed for the account, logs in.
    expect((await tokenLogin(t, 'alice@example.com', 'alice-password', '10.0.0.4')).status).toBe(201);
    // The address has failed three times of its five: another account logs in from it.
    expect((await tokenLogin(t, 'bob@example.com', 'bob-password', '10.0.0.1')).status).toBe(201);
  });

  test('an address with five failed logins is refused for every account, other addresses are not', async () => {
    for (const email of ['x1@example.com', 'x2@example.com', 'x3@example.com', 'x4@example.com', 'x5@example.com']) {
      expect((await tokenLogin(t, email, 'guess', '10.0.1.1')).status).toBe(404);
    }
    expect((await tokenLogin(t, 'carol@example.com', 'carol-password', '10.0.1.1')).status).toBe(429);
    expect((await tokenLogin(t, 'carol@example.com', 'carol-password', '10.0.1.2')).status).toBe(201);
  });

  test('guesses sent all at once from one address get no more password checks than the allowance', async () => {
    await t.createUser('frank', { email: 'frank@example.com' });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => tokenLogin(t, 'frank@example.com', `guess-${i}`, '10.0.4.1')));
    const statuses = answers.map((res) => res.status).sort();
    expect(statuses).toEqual([...Array<number>(3).fill(404), ...Array<number>(17).fill(429)]);
  });

  test('a successful login clears the failures counted against the account from that address', async () => {
    await t.createUser('dave', { email: 'dave@example.com' });
    for (let round = 0; round < 2; round += 1) {
      expect((await tokenLogin(t, 'dave@example.com', 'wrong', '10.0.2.1')).status).toBe(404);
      expect((await tokenLogin(t, 'dave@example.com', 'wrong', '10.0.2.1')).status).toBe(404);
      expect((await tokenLogin(t, 'dave@example.com', 'dave-password', '10.0.2.1')).status).toBe(201);
    }
  });

  test('a client that does not ask for JSON gets the 429 as an HTML page with Retry-After', async () => {
    await t.createUser('erin', { email: 'erin@example.com' });
    for (let attempt = 0; attempt < 3; attempt += 1) await tokenLogin(t, 'erin@example.com', 'wrong', '10.0.3.1');
    const res = await t.http.post('/api/login').set('X-Forwarded-For', '10.0.3.1').type('form').send({ email: 'erin@example.com', password: 'x' });
    expect(res.status).toBe(429);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.text).toContain('Too Many Attempts.');
  });
});

describe('brute-force throttling of HTTP Basic on the paginated site', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  }, LIMITS);

  test('after three wrong passwords from one address the account answers 429 there in Japanese with Retry-After, even to its right password', async () => {
    const from = (address: string) => t.http.get('/comments/').set('X-Forwarded-For', address);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      expect((await from('10.1.0.1').set('Authorization', basic('alice', 'wrong'))).status).toBe(401);
    }
    const refused = await from('10.1.0.1').set('Authorization', basic('alice', 'alice-password'));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ detail: 'リクエストの処理は絞られました。' });
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    const english = await from('10.1.0.1').set('Accept-Language', 'en').set('Authorization', basic('alice', 'alice-password'));
    expect(english.body).toEqual({ detail: 'Request was throttled.' });
    expect((await from('10.1.0.9').set('Authorization', basic('alice', 'alice-password'))).status).toBe(200);
  });

  test('right passwords are never counted, however many requests a client makes', async () => {
    await t.createUser('bob');
    for (let round = 0; round < 12; round += 1) {
      const res = await t.http.get('/comments/').set('X-Forwarded-For', '10.1.1.1').set('Authorization', basic('bob', 'bob-password'));
      expect(res.status).toBe(200);
    }
  });
});

describe('brute-force throttling of the browser login', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice', { email: 'alice@example.com' });
    await app.createUser('carol', { email: 'carol@example.com' });
  }, LIMITS);

  test('a name refused three times from one address is refused there in any letter case, and the form says why', async () => {
    expect((await browserLogin(t, 'alice', 'wrong', '10.2.0.1')).text).toContain('role="alert"');
    await browserLogin(t, 'ALICE', 'wrong', '10.2.0.1');
    await browserLogin(t, 'alice', 'wrong', '10.2.0.1');
    const refused = await browserLogin(t, 'Alice', 'alice-password', '10.2.0.1');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toMatch(/^\d+$/);
    expect(refused.headers['set-cookie']?.toString() ?? '').not.toContain('XSRF-TOKEN');
    expect(refused.text).toContain('リクエストの処理は絞られました。');
    expect(refused.text).toContain('name="password"');
  });

  test('a name that is no account is refused after as many failures as an account, so that the answers say nothing about which names are accounts', async () => {
    for (const [index, name] of ['bob-is-no-account', 'alice@example.com'].entries()) {
      const answers: number[] = [];
      for (let attempt = 0; attempt < 4; attempt += 1) answers.push((await browserLogin(t, name, 'wrong', `10.2.1.${index}`)).status);
      expect(answers).toEqual([200, 200, 200, 429]);
    }
  });

  test("an account's username and email address, in any letter case, count as one account", async () => {
    for (const name of ['carol', 'carol@example.com', 'CAROL@Example.com']) {
      expect((await browserLogin(t, name, 'wrong', '10.2.2.1')).status).toBe(200);
    }
    expect((await browserLogin(t, 'carol', 'carol-password', '10.2.2.1')).status).toBe(429);
    expect((await browserLogin(t, 'carol@example.com', 'carol-password', '10.2.2.2')).status).toBe(302);
  });
});

describe('brute-force throttling of the admin login', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('root', { email: 'root@example.com', staff: true, superuser: true });
    await app.createUser('plain', { email: 'plain@example.com' });
  }, LIMITS);

  test('three refused logins of an account from one address give 429 with the throttled message instead of the login', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const { res } = await adminLogin(t, 'root@example.com', 'wrong');
      expect(res.status).toBe(200);
    }
    const { res } = await adminLogin(t, 'ROOT@example.com', 'root-password');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toMatch(/^\d+$/);
    expect(res.headers['set-cookie']?.toString() ?? '').not.toContain('admin_sessionid');
    expect(res.text).toContain('Request was throttled.');
  });

  test('a right password of an account that is not staff counts as a failure', async () => {
    for (let attempt = 0; attempt < 3; attempt += 1) await adminLogin(t, 'plain', 'plain-password');
    expect((await adminLogin(t, 'plain', 'plain-password')).res.status).toBe(429);
  });
});

describe('what the login throttle counts', () => {
  const t = useTestApp(async () => undefined, LIMITS);
  const from = (ip: string) => t.services.throttles.login.guard({ ip, socket: {} } as unknown as Request);

  test('a check that could not run (the database is down) is no wrong password', async () => {
    const guard = from('10.6.0.1');
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await expect(guard('alice', () => Promise.reject(new Error('database is down')))).rejects.toThrow('database is down');
    }
    for (let attempt = 0; attempt < 3; attempt += 1) expect(await guard('alice', async () => false)).toBe(false);
    await expect(guard('alice', async () => true)).rejects.toMatchObject({ code: 'throttled' });
  });

  test('a name counts in any letter case, and apart from other names', async () => {
    const guard = from('10.6.1.1');
    for (const name of ['nobody', 'NOBODY', 'Nobody']) expect(await guard(name, async () => false)).toBe(false);
    await expect(guard('noBody', async () => false)).rejects.toMatchObject({ code: 'throttled' });
    expect(await guard('somebody', async () => true)).toBe(true);
  });
});

describe('the optional general API limit (API_RATE_LIMIT)', () => {
  const t = useTestApp(
    async (app) => {
      await app.createUser('alice');
      await app.createUser('bob');
    },
    { API_RATE_LIMIT: '3/minute' },
  );

  test('each user has the allowance; the request over it is 429 with Retry-After, the limit headers and when the allowance comes back', async () => {
    for (let left = 2; left >= 0; left -= 1) {
      const res = await t.http.get('/comments/').set('Authorization', basic('alice', 'alice-password'));
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBe('3');
      expect(res.headers['x-ratelimit-remaining']).toBe(String(left));
    }
    const over = await t.http.get('/comments/').set('Authorization', basic('alice', 'alice-password'));
    expect(over.status).toBe(429);
    expect(over.headers['retry-after']).toMatch(/^\d+$/);
    expect(over.headers['x-ratelimit-remaining']).toBe('0');
    const reset = Number(over.headers['x-ratelimit-reset']) - Date.now() / 1000;
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(Number(over.headers['retry-after']) + 1);
    expect(over.body).toEqual({ detail: 'リクエストの処理は絞られました。' });
    expect((await t.http.get('/comments/').set('Authorization', basic('bob', 'bob-password'))).status).toBe(200);
  });
});

describe('without API_RATE_LIMIT', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  });

  test('requests are not counted and carry no limit headers', async () => {
    const res = await t.http.get('/comments/').set('Authorization', basic('alice', 'alice-password'));
    expect(res.status).toBe(200);
    expect(res.headers).not.toHaveProperty('x-ratelimit-limit');
  });
});

describe('the client address that limits count', () => {
  const address = (ip: string): string => clientAddress({ ip, socket: {} } as unknown as Request);

  test('IPv4 counts by address, also when written as an IPv4-mapped IPv6 address in any case', () => {
    expect(address('203.0.113.7')).toBe('203.0.113.7');
    expect(address('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  test('IPv6 counts by /64 network, however the address is written', () => {
    expect(address('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(address('2001:0DB8:0001:0002::9')).toBe('2001:db8:1:2::/64');
    expect(address('2001:db8:1:3::9')).not.toBe(address('2001:db8:1:2::9'));
  });

  test('a forwarded value that is no address gets a short key of its own, not its text', () => {
    const key = address('x'.repeat(10_000));
    expect(key.length).toBeLessThan(64);
    expect(key).not.toBe(address('y'));
  });
});
