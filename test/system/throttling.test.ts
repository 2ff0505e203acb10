import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Redis } from 'ioredis';
import { createTestApp } from '../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { basicAuth, createUserWithCli, PRODUCTION_ENV, startServerProcess, type ServerProcess } from '../helpers/server.js';

/** The machine's Redis (STACK.md); each run writes under a prefix of its own and removes it afterwards. */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function removeKeys(prefix: string): Promise<void> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

function tokenLogin(server: ServerProcess, email: string, password: string): Promise<Response> {
  return fetch(new URL('api/login', server.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ email, password }),
  });
}

describe('throttling across two server processes sharing Redis', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-throttle-'));
  const prefix = `comments-test-${randomBytes(6).toString('hex')}`;
  const env: Record<string, string> = { ...PRODUCTION_ENV, REDIS_URL, REDIS_PREFIX: prefix, LOGIN_RATE_ACCOUNT: '4/hour', LOGIN_RATE_ADDRESS: '50/hour' };
  let database: TestDatabase;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
    env.DATABASE_URL = database.url;
    await createUserWithCli(env, 'alice', 'alice-password');
    await createUserWithCli(env, 'bob', 'bob-password');
    await createUserWithCli(env, 'carol', 'carol-password');
    servers.push(await startServerProcess(env), await startServerProcess(env));
  }, 60_000);
  afterAll(async () => {
    for (const server of servers) if (server.child.exitCode === null) server.child.kill('SIGKILL');
    await removeKeys(prefix);
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('failures counted by one process refuse the account in the other, for every login path', async () => {
    const [first, second] = servers as [ServerProcess, ServerProcess];
    expect(first.pid).not.toBe(second.pid);
    for (const server of [first, second, first, second]) {
      expect((await tokenLogin(server, 'alice@example.com', 'wrong')).status).toBe(404);
    }
    const refused = await tokenLogin(first, 'alice@example.com', 'alice-password');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(3000);
    const basic = (server: ServerProcess, password: string) =>
      fetch(new URL('comments/', server.url), { headers: { authorization: basicAuth('bob', password) } });
    for (const server of [second, first, second, first]) expect((await basic(server, 'wrong')).status).toBe(401);
    const refusedBasic = await basic(second, 'bob-password');
    expect(refusedBasic.status).toBe(429);
    expect(await refusedBasic.json()).toEqual({ detail: 'リクエストの処理は絞られました。' });
    // Another account is not affected.
    expect((await tokenLogin(second, 'carol@example.com', 'carol-password')).status).toBe(201);
  });
});

describe('throttling when Redis cannot be reached', () => {
  test('logins still work and failures are counted in the process instead', async () => {
    const t = await createTestApp({ REDIS_URL: 'redis://127.0.0.1:1', LOGIN_RATE_ACCOUNT: '2/hour' });
    try {
      await t.createUser('alice');
      expect((await t.http.get('/comments/').auth('alice', 'alice-password')).status).toBe(200);
      const login = (password: string) => t.http.post('/api/login').send({ email: 'alice@example.com', password });
      for (let attempt = 0; attempt < 2; attempt += 1) expect((await login('wrong')).status).toBe(404);
      expect((await login('alice-password')).status).toBe(429);
    } finally {
      await t.close();
    }
  });
});
