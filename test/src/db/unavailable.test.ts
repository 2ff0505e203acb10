import { mkdtempSync, rmSync } from 'node:fs';
import net, { type AddressInfo, type Socket } from 'node:net';
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

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Served {
  services: Services;
  http: ReturnType<typeof request>;
  bearer: string;
}

/** The app as the server runs it (statements limited), with DATABASE_TIMEOUT_SECONDS=1, and a user with a token. */
async function serve(databaseUrl: string): Promise<Served> {
  const services = await createServices(testConfig({ DATABASE_URL: databaseUrl, DATABASE_TIMEOUT_SECONDS: '1' }), { limitStatements: true });
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

/**
 * A TCP relay to PostgreSQL that can stop passing bytes, as a database that
 * froze, or a network cut without a reset, does.
 */
async function freezableRelay(target: URL): Promise<{ url: string; freeze(): void; thaw(): void }> {
  let frozen = false;
  const held: (() => void)[] = [];
  const pass = (from: Socket, to: Socket): void => {
    from.on('data', (chunk: Buffer) => (frozen ? held.push(() => to.write(chunk)) : to.write(chunk)));
  };
  const sockets = new Set<Socket>();
  const relay = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => (client.destroy(), upstream.destroy()));
    }
    pass(client, upstream);
    pass(upstream, client);
  });
  relay.listen(0, '127.0.0.1');
  await new Promise((resolve) => relay.once('listening', resolve));
  cleanups.push(async () => {
    sockets.forEach((socket) => socket.destroy());
    await new Promise((resolve) => relay.close(resolve));
  });
  const url = new URL(target);
  url.host = `127.0.0.1:${(relay.address() as AddressInfo).port}`;
  return {
    url: url.toString(),
    freeze: () => void (frozen = true),
    thaw: () => {
      frozen = false;
      held.splice(0).forEach((send) => send());
    },
  };
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
    test('a request to a database that stopped answering altogether is 503, and answers come back when it does', async () => {
      const database = await testDatabase(os.tmpdir());
      const relay = await freezableRelay(new URL(database.url));
      const { http } = await serve(relay.url);
      expect((await http.get('/comments/').auth('alice', 'alice-password')).status).toBe(200);

      relay.freeze();
      const frozen = await http.get('/comments/?page=1').auth('alice', 'alice-password').set({ Accept: 'application/json', 'Accept-Language': 'en' });
      relay.thaw();

      expect([frozen.status, frozen.body]).toEqual([503, { detail: 'The database did not answer in time. Try again shortly.' }]);
      expect((await http.get('/comments/').auth('alice', 'alice-password')).status).toBe(200);
    }, 30_000);
  }
});
