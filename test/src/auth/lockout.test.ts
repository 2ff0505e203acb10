import { describe, expect, test } from '@jest/globals';
import { useTestApp, type TestApp } from '../../helpers/app.js';

/**
 * Issue 23: nobody may lock an account's owner out by failing on purpose
 * (OWASP ASVS V6). Addresses come from X-Forwarded-For, and every Basic
 * request is checked (no remembered credentials), so that each answer is the
 * throttle's.
 */
const CLIENTS = { TRUST_PROXY: 'true', BASIC_AUTH_CACHE_SECONDS: '0' };

function basic(t: Pick<TestApp, 'http'>, username: string, password: string, address: string) {
  const credentials = Buffer.from(`${username}:${password}`).toString('base64');
  return t.http.get('/comments/').set('X-Forwarded-For', address).set('Authorization', `Basic ${credentials}`);
}

function tokenLogin(t: Pick<TestApp, 'http'>, email: string, password: string, address: string) {
  return t.http.post('/api/login').set('X-Forwarded-For', address).set('Accept', 'application/json').send({ email, password });
}

describe('an account attacked with the default limits', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('victim', { email: 'victim@example.com' });
  }, CLIENTS);

  test("thirty wrong passwords from one address leave the owner signing in from another, while that address stays refused", async () => {
    const answers: number[] = [];
    for (let attempt = 0; attempt < 30; attempt += 1) answers.push((await basic(t, 'victim', `guess-${attempt}`, '198.51.100.7')).status);
    expect(answers).toEqual([...Array<number>(10).fill(401), ...Array<number>(20).fill(429)]);
    expect((await basic(t, 'victim', 'victim-password', '203.0.113.5')).status).toBe(200);
    const refused = await basic(t, 'victim', 'victim-password', '198.51.100.7');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(3500);
  });
});

describe('an account attacked from many addresses', () => {
  // Two failures of an account per address, five for the account from addresses that have failed for it.
  const t = useTestApp(
    async (app) => {
      await app.createUser('victim', { email: 'victim@example.com' });
      await app.createUser('owner', { email: 'owner@example.com' });
    },
    { ...CLIENTS, LOGIN_RATE_ACCOUNT_ADDRESS: '2/hour', LOGIN_RATE_ACCOUNT: '5/hour', LOGIN_RATE_ADDRESS: '50/hour' },
  );

  test("guesses spread over addresses meet the account's cap, and an address that has not failed for it still signs in", async () => {
    for (let host = 1; host <= 5; host += 1) expect((await basic(t, 'victim', 'guess', `10.9.0.${host}`)).status).toBe(401);
    // Each of these addresses has failed once, under its own limit of two: the account's cap refuses them.
    expect((await basic(t, 'victim', 'guess-again', '10.9.0.1')).status).toBe(429);
    expect((await basic(t, 'victim', 'victim-password', '10.9.0.2')).status).toBe(429);
    expect((await basic(t, 'victim', 'victim-password', '10.9.1.1')).status).toBe(200);
    expect((await tokenLogin(t, 'victim@example.com', 'victim-password', '10.9.1.2')).status).toBe(201);
  });

  test("a new address gets one password check while the account's cap is spent, and is refused after it fails", async () => {
    for (let host = 1; host <= 5; host += 1) await basic(t, 'owner', 'guess', `10.8.0.${host}`);
    expect((await basic(t, 'owner', 'guess', '10.8.0.6')).status).toBe(401);
    expect((await basic(t, 'owner', 'owner-password', '10.8.0.6')).status).toBe(429);
  });
});

describe("an account's spellings", () => {
  const t = useTestApp(async (app) => {
    await app.createUser('victim', { email: 'victim@example.com' });
  }, { ...CLIENTS, LOGIN_RATE_ACCOUNT_ADDRESS: '3/hour' });

  test('its username on HTTP Basic and its email address on the token login count as one account', async () => {
    expect((await basic(t, 'victim', 'guess', '10.7.0.1')).status).toBe(401);
    expect((await tokenLogin(t, 'Victim@Example.com', 'guess', '10.7.0.1')).status).toBe(404);
    expect((await basic(t, 'VICTIM', 'guess', '10.7.0.1')).status).toBe(401);
    expect((await tokenLogin(t, 'victim@example.com', 'victim-password', '10.7.0.1')).status).toBe(429);
    expect((await basic(t, 'victim', 'victim-password', '10.7.0.2')).status).toBe(200);
  });

  test('an email address counts alike on every login, whether or not it is an account', async () => {
    for (const [index, email] of ['ghost@example.com', 'victim@example.com'].entries()) {
      for (let attempt = 0; attempt < 3; attempt += 1) expect((await basic(t, email, 'guess', `10.7.1.${index}`)).status).toBe(401);
      expect((await tokenLogin(t, email, 'victim-password', `10.7.1.${index}`)).status).toBe(429);
    }
  });

  test('a success clears the failures of the account from that address', async () => {
    for (let round = 0; round < 3; round += 1) {
      expect((await basic(t, 'victim@example.com', 'guess', '10.7.2.1')).status).toBe(401);
      expect((await tokenLogin(t, 'victim@example.com', 'guess', '10.7.2.1')).status).toBe(404);
      expect((await basic(t, 'victim', 'victim-password', '10.7.2.1')).status).toBe(200);
    }
  });
});
