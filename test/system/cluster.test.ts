import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { basicAuth, createUserWithCli, PRODUCTION_ENV, refusedStart, startServerProcess } from '../helpers/server.js';

describe('WEB_CONCURRENCY', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-cluster-'));
  const authorization = basicAuth('alice', 'alice-pw');
  let database: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    database = await createTestDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
    env = { ...PRODUCTION_ENV, DATABASE_URL: database.url };
    await createUserWithCli(env, 'alice', 'alice-pw');
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  async function listStatus(url: string): Promise<number> {
    const res = await fetch(new URL('comments/', url), { headers: { authorization } });
    await res.arrayBuffer();
    return res.status;
  }

  test('1 (the default): the process started serves by itself, with no workers', async () => {
    const server = await startServerProcess({ ...env, WEB_CONCURRENCY: '1' });
    expect(server.servingPids()).toEqual([server.pid]);
    expect(server.logs().filter((line) => line.msg === 'worker started')).toEqual([]);
    expect(await listStatus(server.url)).toBe(200);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });

  test('2: a worker killed with SIGKILL is replaced, the server answers all along, and SIGINT stops everything', async () => {
    const server = await startServerProcess({ ...env, WEB_CONCURRENCY: '2' });
    await server.waitForLog(() => server.servingPids().length === 2);
    const [killed, survivor] = server.servingPids() as [number, number];
    process.kill(killed, 'SIGKILL');
    const died = await server.waitForLog((line) => line.msg === 'worker exited unexpectedly; replacing it');
    expect(died).toMatchObject({ pid: server.pid, workerPid: killed, signal: 'SIGKILL' });
    expect(await listStatus(server.url)).toBe(200);

    await server.waitForLog(() => server.servingPids().length === 3);
    const replacement = server.servingPids()[2];
    expect([killed, survivor]).not.toContain(replacement);
    for (let i = 0; i < 4; i += 1) expect(await listStatus(server.url)).toBe(200);

    server.child.kill('SIGINT');
    expect(await server.exited).toBe(0);
    const exits = server.logs().filter((line) => line.msg === 'worker exited');
    expect(exits.map((line) => line.workerPid).sort()).toEqual([survivor, replacement].sort());
  }, 30_000);

  test('2: a port already in use stops the start with status 1 and says why', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as net.AddressInfo;
    try {
      const { status, stderr } = await refusedStart({ ...env, WEB_CONCURRENCY: '2', PORT: String(port) });
      expect(status).toBe(1);
      expect(stderr).toContain(`Error: cannot listen on 127.0.0.1:${port}: `);
    } finally {
      taken.close();
    }
  });
});

test('WEB_CONCURRENCY=2 over an in-memory SQLite database is refused: each process would have its own', async () => {
  const { status, stderr } = await refusedStart({ ...PRODUCTION_ENV, DATABASE_URL: 'sqlite::memory:', WEB_CONCURRENCY: '2' });
  expect(status).toBe(1);
  expect(stderr).toBe('Invalid setting WEB_CONCURRENCY=2: expected 1 with an in-memory SQLite database, which each process would have to itself.\n');
});

describe('WEB_CONCURRENCY=2 on an empty development database', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-cluster-demo-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('the demo data is loaded once, before the workers serve it, and what one worker sealed the other opens', async () => {
    const database = await createTestDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
    try {
      const env = { DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', PASSWORD_HASH_ITERATIONS: '1000', WEB_CONCURRENCY: '2' };
      const server = await startServerProcess(env);
      await server.waitForLog(() => server.servingPids().length === 2);
      expect(server.output().split('The database was empty, so the demo data was loaded')).toHaveLength(2);
      const res = await fetch(new URL('comments/', server.url), { headers: { authorization: basicAuth('alice', 'alice-demo-pass') } });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ count: 23 });
      // No SECRET_KEY: a cursor one worker sealed opens at the other (node:cluster hands connections round in turn).
      let next: string | null = new URL('comments/?cursor=', server.url).href;
      for (let page = 0; page < 6 && next; page += 1) {
        const answer: Response = await fetch(next, { headers: { authorization: basicAuth('alice', 'alice-demo-pass'), connection: 'close' } });
        expect([page, answer.status]).toEqual([page, 200]);
        next = ((await answer.json()) as { next: string | null }).next;
      }
      server.child.kill('SIGTERM');
      expect(await server.exited).toBe(0);
    } finally {
      await database.drop();
    }
  });
});
