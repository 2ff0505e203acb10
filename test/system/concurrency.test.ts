import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.js';
import {
  basicAuth,
  createCommentsInParallel,
  createUserWithCli,
  PRODUCTION_ENV,
  startServerProcess,
  until,
  type ServerProcess,
} from '../helpers/server.js';

const CLIENTS = 8;
const CREATES_EACH = 500;

describe(`two worker processes on one ${onPostgres() ? 'PostgreSQL' : 'SQLite file'} database`, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-concurrency-'));
  const authorization = basicAuth('alice', 'alice-pw');
  let database: TestDatabase;
  let server: ServerProcess;

  beforeAll(async () => {
    database = await createTestDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
    const env = { ...PRODUCTION_ENV, DATABASE_URL: database.url, WEB_CONCURRENCY: '2' };
    await createUserWithCli(env, 'alice', 'alice-pw');
    server = await startServerProcess(env);
    await server.waitForLog(() => server.servingPids().length === 2);
  });
  afterAll(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  test('two workers, each a process of its own, serve on the same URL', () => {
    const serving = server.logs().filter((line) => line.msg.startsWith('serving on'));
    expect(new Set(serving.map((line) => line.pid)).size).toBe(2);
    expect(serving.map((line) => line.pid)).not.toContain(server.pid);
    expect(serving.map((line) => line.url)).toEqual([server.url, server.url]);
    expect(server.logs().filter((line) => line.msg === 'worker started')).toHaveLength(2);
  });

  test(`${CLIENTS} clients creating ${CREATES_EACH} comments each all get 201, and every comment is stored once`, async () => {
    const load = await createCommentsInParallel(server.url, authorization, CLIENTS, CREATES_EACH);
    expect(load.failures).toEqual([]);
    expect(new Set(load.created).size).toBe(CLIENTS * CREATES_EACH);
    const list = await fetch(new URL('comments/', server.url), { headers: { authorization } });
    expect(list.status).toBe(200);
    expect(await list.json()).toMatchObject({ count: CLIENTS * CREATES_EACH });
    // The request log says which process answered each create: both workers did. Its lines are written
    // off the request's path (gathered, at least every quarter second): all of them come, a moment later.
    const posted = () => server.logs().filter((line) => (line.req as { method?: string } | undefined)?.method === 'POST');
    await until(() => posted().length >= CLIENTS * CREATES_EACH, () => `${posted().length} logged creates`, 10_000);
    const creates = posted();
    expect(creates).toHaveLength(CLIENTS * CREATES_EACH);
    expect(new Set(creates.map((line) => line.pid))).toEqual(new Set(server.servingPids()));
  }, 120_000);
});
