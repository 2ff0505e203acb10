/**
 * A database that stops answering holds a request for one wait at most:
 * DATABASE_TIMEOUT_SECONDS + 5 s on PostgreSQL, DATABASE_TIMEOUT_SECONDS for
 * a SQLite write while another process holds the lock (docs/production.md).
 * The waits are counted, not timed: a TCP proxy the test freezes sees every
 * statement and connection the application asks for while frozen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, jest, test } from '@jest/globals';
import sqlite3 from 'sqlite3';
import request from 'supertest';
import { createApp } from '../../../src/app.js';
import { openDatabase } from '../../../src/db/database.js';
import { isDatabaseUnavailable } from '../../../src/db/unavailable.js';
import { createServices } from '../../../src/services.js';
import { createTestUser } from '../../../src/testing/index.js';
import { createTestApp, testConfig, type TestApp } from '../../helpers/app.js';
import { createTestDatabase, onPostgres } from '../../helpers/database.js';
import { frozenProxy, type AskedWhileFrozen, type FrozenProxy } from '../../helpers/frozen-proxy.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The statement that reads the kept versions: the first a request with a token sends. */
const KEPT_VERSIONS = 'SELECT table_name, row_count, version FROM row_counts';
/** The client gives up on a statement DATABASE_TIMEOUT_SECONDS + 5 s after sending it (src/db/database.ts). */
const CLIENT_WAIT_MS = 1_000 + 5_000;

/** How many times the application waited on the frozen database: each statement sent, each connection opened. */
const waits = ({ connections, statements }: AskedWhileFrozen): number => connections + statements.length;

interface Frozen {
  proxy: FrozenProxy;
  /** A GET of one comment with alice's token. */
  get(): Promise<request.Response>;
  /** The same comment on the browsable site (JSON unless `accept` says), with alice's password (HTTP Basic), never sent before. */
  getWithPassword(accept?: string): Promise<request.Response>;
  /** A DELETE of the comment with alice's token, under If-Match. */
  remove(etag: string): Promise<request.Response>;
  /** Changes the comment behind the app's back: its kept row no longer stands for it. */
  change(): Promise<void>;
  comment: object;
}

/**
 * The app as the server runs it (DATABASE_TIMEOUT_SECONDS=1) on a database
 * behind a proxy, with one comment, read until its token and row are kept:
 * a GET then sends the kept versions only.
 */
async function behindProxy(): Promise<Frozen> {
  const database = await createTestDatabase();
  cleanups.push(() => database.drop());
  const proxy = await frozenProxy(database.url);
  cleanups.push(() => proxy.close());
  const services = await createServices(testConfig({ DATABASE_URL: proxy.url, DATABASE_TIMEOUT_SECONDS: '1' }), { limitStatements: true });
  cleanups.push(() => services.close());
  // Before the services close: what they still have under way is answered once thawed.
  cleanups.push(async () => proxy.thaw());
  const alice = await createTestUser(services, 'alice', { password: 'alice-password' });
  const bearer = await services.tokens!.issue(alice);
  const http = request(createApp(services));
  const created = await http.post('/api/comments').auth(bearer, { type: 'bearer' }).send({ title: 'kept', body: 'between requests' });
  const id = (created.body as { comment: { id: number } }).comment.id;
  const get = (): Promise<request.Response> =>
    http
      .get(`/api/comments/${id}`)
      .auth(bearer, { type: 'bearer' })
      .set('Accept', 'application/json')
      .then((answer) => answer);
  const getWithPassword = (accept = 'application/json'): Promise<request.Response> =>
    http
      .get(`/comments/${id}/`)
      .auth('alice', 'alice-password')
      .set({ Accept: accept, 'Accept-Language': 'en' })
      .then((answer) => answer);
  // The first GET reads the token again (its last_used_at changed it) and the row; from then on both are kept.
  const read = await get();
  expect(read.status).toBe(200);
  const sent = proxy.statements.length;
  expect((await get()).body).toEqual(read.body);
  expect(proxy.statements.slice(sent)).toEqual([KEPT_VERSIONS]);
  const remove = (etag: string): Promise<request.Response> =>
    http
      .delete(`/api/comments/${id}`)
      .auth(bearer, { type: 'bearer' })
      .set({ Accept: 'application/json', 'If-Match': etag })
      .then((answer) => answer);
  const change = async (): Promise<void> => void (await services.sequelize.query(`UPDATE comments SET body = body WHERE id = ${id}`));
  return { proxy, get, getWithPassword, remove, change, comment: read.body as object };
}

if (onPostgres()) {
  describe('a PostgreSQL database that stops answering', () => {
    test('a request waits for it once and is answered 503; once it answers again, the next request is 200 with its kept rows', async () => {
      const { proxy, get, comment } = await behindProxy();
      proxy.freeze();
      const frozen = await get();
      expect([frozen.status, frozen.body]).toEqual([503, { message: 'Service Unavailable' }]);
      // Its first statement, never answered, was its last: nothing read again, no connection opened to try once more.
      expect(waits(proxy.whileFrozen)).toBe(1);

      proxy.thaw();
      const sent = proxy.statements.length;
      const thawed = await get();
      expect([thawed.status, thawed.body]).toEqual([200, comment]);
      // The kept versions are read at once, not switched off for a while: the token and the row, unchanged, come from memory.
      expect(proxy.statements.slice(sent).filter((sql) => sql.startsWith('SELECT'))).toEqual([KEPT_VERSIONS]);
    }, 60_000);

    test('requests that come while one waits for it share its wait and its 503, and start no wait of their own', async () => {
      const { proxy, get } = await behindProxy();
      proxy.freeze();
      const first = get();
      await proxy.nextAsked();
      const later = [get(), get()];
      const answers = await Promise.all([first, ...later]);
      expect(answers.map((answer) => answer.status)).toEqual([503, 503, 503]);
      expect(waits(proxy.whileFrozen)).toBe(1);
    }, 60_000);

    test('requests with the same password that come while its check waits for it share that wait and its 503', async () => {
      const { proxy, getWithPassword } = await behindProxy();
      proxy.freeze();
      const first = getWithPassword();
      await proxy.nextAsked();
      const answers = await Promise.all([first, getWithPassword(), getWithPassword()]);
      expect(answers.map((answer) => [answer.status, answer.body])).toEqual(
        Array.from({ length: 3 }, () => [503, { detail: 'The database did not answer in time. Try again shortly.' }]),
      );
      expect(waits(proxy.whileFrozen)).toBe(1);
    }, 60_000);

    test('a browsable page whose row gets no answer is a 503 page, with no form read from the database again', async () => {
      const { proxy, getWithPassword, change } = await behindProxy();
      expect((await getWithPassword('text/html')).status).toBe(200);
      await change();
      // The row is read again (changed), and the database stops answering there.
      proxy.freezeOn(/FROM "comments" AS "base"/);
      const page = await getWithPassword('text/html');
      expect(page.status).toBe(503);
      expect(page.text).toContain('The database did not answer in time.');
      expect(waits(proxy.whileFrozen)).toBe(1);
    }, 60_000);

    test('a write under If-Match whose transaction gets no answer is 503 after that wait, and gives its claimed version back on no other', async () => {
      const { proxy, get, remove } = await behindProxy();
      const etag = (await get()).headers.etag as string;
      // The version is claimed (one UPDATE), then the delete's transaction begins: the database stops answering there.
      proxy.freezeOn(/^START TRANSACTION/);
      const removed = await remove(etag);
      expect([removed.status, removed.body]).toEqual([503, { message: 'Service Unavailable' }]);
      expect(waits(proxy.whileFrozen)).toBe(1);
    }, 60_000);

    test('a transaction whose statement gets no answer fails after that one wait, without waiting again for its ROLLBACK', async () => {
      const database = await createTestDatabase();
      cleanups.push(() => database.drop());
      const proxy = await frozenProxy(database.url);
      cleanups.push(() => proxy.close());
      const sequelize = openDatabase(proxy.url, { statementTimeoutMs: 1_000 });
      cleanups.push(() => sequelize.close());
      // Thawed and on real timers again before the database closes, whatever the outcome.
      cleanups.push(async () => {
        jest.useRealTimers();
        proxy.thaw();
      });
      await sequelize.query('SELECT 1');
      // Sequelize says on the console that it ends the connection its ROLLBACK could not be sent on.
      const warned = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
      cleanups.push(async () => warned.mockRestore());
      let settled = false;
      const outcome = sequelize
        .transaction(async (transaction) => {
          proxy.freeze();
          // The client's wait is driven from here on; the sockets' callbacks stay real.
          jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
          await sequelize.query('SELECT 2', { transaction });
        })
        .catch((error: unknown) => error)
        .finally(() => (settled = true));
      await proxy.nextAsked();
      await jest.advanceTimersByTimeAsync(CLIENT_WAIT_MS);
      for (let turn = 0; turn < 50 && !settled; turn += 1) await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(true);
      expect(String(await outcome)).toContain('Query read timeout');
      expect(proxy.whileFrozen.statements).toEqual(['SELECT 2']);
    }, 60_000);
  });
}

/** Takes a SQLite file's write lock on a connection of its own (another process, as far as the app can tell) until released. */
async function holdWriteLock(file: string): Promise<() => Promise<void>> {
  const connection = new sqlite3.Database(file);
  const run = (sql: string): Promise<void> => new Promise((resolve, reject) => connection.exec(sql, (error) => (error ? reject(error) : resolve())));
  await run('BEGIN IMMEDIATE');
  return async () => {
    await run('COMMIT');
    await new Promise((resolve) => connection.close(resolve));
  };
}

if (!onPostgres()) {
  describe('a SQLite file whose write lock another process holds', () => {
    test('writes that come while a write waits for the lock fail with it, without a wait of their own, reads go on meanwhile, and writes succeed once it is free', async () => {
      const dir = mkdtempSync(path.join(os.tmpdir(), 'frozen-sqlite-'));
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
      const file = path.join(dir, 'db.sqlite3');
      // Long enough for the requests below to come while the first write waits, on a machine however busy.
      const services = await createServices(testConfig({ DATABASE_URL: `sqlite:${file}`, DATABASE_TIMEOUT_SECONDS: '3' }), { limitStatements: true });
      cleanups.push(() => services.close());
      const alice = await createTestUser(services, 'alice', { password: 'alice-password' });
      const bearer = await services.tokens!.issue(alice);
      const http = request(createApp(services));
      const api = (method: 'get' | 'post' | 'delete', url: string): request.Test => http[method](url).auth(bearer, { type: 'bearer' }).set('Accept', 'application/json');
      const ids: number[] = [];
      for (const title of ['kept', 'removed', 'other']) ids.push(((await api('post', '/api/comments').send({ title, body: 'b' })).body as { comment: { id: number } }).comment.id);
      const [kept, removed, other] = ids as [number, number, number];
      const release = await holdWriteLock(file);
      cleanups.push(() => release().catch(() => undefined));

      // A write of this process (through the model, as a delete without hooks is made) waits for the lock; the requests come behind it.
      let settled = false;
      const first = services.registry
        .get('Comment')
        .model.destroy({ where: { id: removed } })
        .catch((error: unknown) => error)
        .finally(() => (settled = true));
      const posted = api('post', '/api/comments').send({ title: 'new', body: 'b' }).then((answer) => answer);
      const deleted = api('delete', `/api/comments/${other}`).then((answer) => answer);
      // Reads go on while it waits: its wait holds no connection they read on.
      const read = await api('get', `/api/comments/${kept}`);
      expect(read.status).toBe(200);
      expect(settled).toBe(false);

      expect(isDatabaseUnavailable(await first)).toBe(true);
      // Free at once: a write that waited again after the first failed would now succeed.
      await release();
      const [post, remove] = [await posted, await deleted];
      expect([post.status, post.body]).toEqual([503, { message: 'Service Unavailable' }]);
      expect([remove.status, remove.body]).toEqual([503, { message: 'Service Unavailable' }]);

      expect((await api('post', '/api/comments').send({ title: 'new', body: 'b' })).status).toBe(201);
      expect((await api('delete', `/api/comments/${other}`)).status).toBe(200);
    }, 60_000);
  });
}

describe('a database whose migrations made no row_counts table yet', () => {
  let t: TestApp;
  afterEach(async () => t.close());

  test('answers rows and lists, their counts counted', async () => {
    t = await createTestApp();
    const alice = await t.createUser('alice');
    const bearer = await t.services.tokens!.issue(alice);
    const created = await t.http.post('/api/comments').auth(bearer, { type: 'bearer' }).send({ title: 'counted', body: 'without counters' });
    expect(created.status).toBe(201);
    // The triggers would write to it: reads only from here.
    await t.services.sequelize.query(t.services.sequelize.getDialect() === 'postgres' ? 'DROP TABLE row_counts CASCADE' : 'DROP TABLE row_counts');
    const row = await t.http.get(`/api/comments/${(created.body as { comment: { id: number } }).comment.id}`).auth(bearer, { type: 'bearer' });
    expect([row.status, row.body]).toMatchObject([200, created.body]);
    const list = await t.http.get('/comments/').auth('alice', 'alice-password').set('Accept', 'application/json');
    expect([list.status, (list.body as { count: number }).count]).toEqual([200, 1]);
  });
});
