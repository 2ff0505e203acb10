import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import sqlite3 from 'sqlite3';
import request from 'supertest';
import { createApp } from '../../../src/app.js';
import { createServices, type Services } from '../../../src/services.js';
import { createTestUser } from '../../../src/testing/index.js';
import { testConfig } from '../../helpers/app.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../../helpers/database.js';
import { frozenProxy } from '../../helpers/frozen-proxy.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Served {
  services: Services;
  http: ReturnType<typeof request>;
  bearer: string;
}

/** The app as the server runs it (statements limited), by default with DATABASE_TIMEOUT_SECONDS=1, and a user with a token. */
async function serve(databaseUrl: string, timeoutSeconds = 1): Promise<Served> {
  const services = await createServices(testConfig({ DATABASE_URL: databaseUrl, DATABASE_TIMEOUT_SECONDS: String(timeoutSeconds) }), { limitStatements: true });
  cleanups.push(() => services.close());
  const alice = await createTestUser(services, 'alice', { password: 'alice-password' });
  const bearer = await services.tokens!.issue(alice);
  return { services, http: request(createApp(services)), bearer };
}

async function testDatabase(dir: string): Promise<TestDatabase> {
  const database = await createTestDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
  cleanups.push(() => database.drop());
  return database;
}

/** Holds the comments table's write lock from another connection (another process, as far as the app can tell) until released. */
async function lockComments(url: string): Promise<() => Promise<void>> {
  if (onPostgres()) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query('BEGIN');
    await client.query('LOCK TABLE comments IN ACCESS EXCLUSIVE MODE');
    return async () => {
      await client.query('COMMIT');
      await client.end();
    };
  }
  const connection = new sqlite3.Database(url.replace(/^sqlite:/, ''));
  const run = (sql: string): Promise<void> => new Promise((resolve, reject) => connection.exec(sql, (error) => (error ? reject(error) : resolve())));
  await run('BEGIN IMMEDIATE');
  return async () => {
    await run('COMMIT');
    await new Promise((resolve) => connection.close(resolve));
  };
}

/** Resolves once a statement of the database is waiting for a lock. */
async function someoneWaitsForALock(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const waiting = async (): Promise<boolean> =>
      (await client.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")).rowCount! > 0;
    while (!(await waiting())) await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    await client.end();
  }
}

describe('a database that does not answer in time', () => {
  test('a write waiting past DATABASE_TIMEOUT_SECONDS for a lock held elsewhere is 503 in each site’s error shape, stores nothing, and succeeds once the lock is gone', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-unavailable-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const database = await testDatabase(dir);
    const { services, http, bearer } = await serve(database.url);
    const release = await lockComments(database.url);

    const paginated = await http.post('/comments/').auth('alice', 'alice-password').set({ Accept: 'application/json', 'Accept-Language': 'en' }).send({ title: 'waits', body: 'for the lock' });
    const token = await http.post('/api/comments').auth(bearer, { type: 'bearer' }).set({ Accept: 'application/json', 'Accept-Language': 'en' }).send({ title: 'waits', body: 'for the lock' });
    await release();

    expect([paginated.status, paginated.body]).toEqual([503, { detail: 'The database did not answer in time. Try again shortly.' }]);
    expect([token.status, token.body]).toEqual([503, { message: 'Service Unavailable' }]);
    const stored = (await services.sequelize.query('SELECT count(*) AS n FROM comments', { plain: true })) as { n: number | string };
    expect(Number(stored.n)).toBe(0);
    const after = await http.post('/comments/').auth('alice', 'alice-password').set({ Accept: 'application/json', 'Accept-Language': 'en' }).send({ title: 'after', body: 'the lock' });
    expect(after.status).toBe(201);
  }, 30_000);

  if (onPostgres()) {
    test('a connection that stopped answering is given up after DATABASE_TIMEOUT_SECONDS + 5 s (503) and never lent again', async () => {
      const database = await testDatabase(os.tmpdir());
      const proxy = await frozenProxy(database.url);
      cleanups.push(() => proxy.close());
      const { http, bearer } = await serve(proxy.url);
      const created = await http.post('/api/comments').auth(bearer, { type: 'bearer' }).send({ title: 'read', body: 'while cut' });
      const row = `/api/comments/${(created.body as { comment: { id: number } }).comment.id}`;

      proxy.cutOpen();
      const cut = await http.get(row).auth(bearer, { type: 'bearer' }).set('Accept', 'application/json');
      const next = await http.get(row).auth(bearer, { type: 'bearer' }).set('Accept', 'application/json');

      expect([cut.status, cut.body]).toEqual([503, { message: 'Service Unavailable' }]);
      // Read on a new connection: lent again, the cut one would have made this request wait and fail too.
      expect(next.status).toBe(200);
      expect(next.body).toMatchObject(created.body as object);
    }, 60_000);

    test('a request whose connection the database ends mid-statement (a restart, a failover) is 503', async () => {
      const database = await testDatabase(os.tmpdir());
      // Long enough that the connection ends first.
      const { http } = await serve(database.url, 60);
      const release = await lockComments(database.url);
      const answer = http.post('/comments/').auth('alice', 'alice-password').set({ Accept: 'application/json', 'Accept-Language': 'en' }).send({ title: 'cut', body: 'short' }).then((res) => res);
      await someoneWaitsForALock(database.url);
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
      await admin.end();
      const ended = await answer;
      await release();

      expect([ended.status, ended.body]).toEqual([503, { detail: 'The database did not answer in time. Try again shortly.' }]);
      expect((await http.post('/comments/').auth('alice', 'alice-password').send({ title: 'again', body: 'later' })).status).toBe(201);
    }, 30_000);
  }
});
