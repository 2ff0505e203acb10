import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import sqlite3 from 'sqlite3';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.js';
import {
  basicAuth,
  createCommentsInParallel,
  createUserWithCli,
  PRODUCTION_ENV,
  startServerProcess,
  until,
  type CreateLoad,
} from '../helpers/server.js';

/** What SQLite's own check says of the file: `ok` when nothing is damaged. */
function integrityCheck(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const db = new sqlite3.Database(file, sqlite3.OPEN_READONLY, (error) => error && reject(error));
    db.get<{ integrity_check: string }>('PRAGMA integrity_check', (error, row) => {
      db.close();
      if (error) reject(error);
      else resolve(row?.integrity_check ?? '');
    });
  });
}

async function storedCommentIds(url: string): Promise<Set<number>> {
  const login = await fetch(new URL('api/login', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'alice@example.com', password: 'alice-pw' }),
  });
  const { token } = (await login.json()) as { token: string };
  const list = await fetch(new URL('api/comments', url), { headers: { authorization: `Bearer ${token}` } });
  const { comments } = (await list.json()) as { comments: { id: number }[] };
  return new Set(comments.map((comment) => comment.id));
}

// SQLite's file is what a crash can damage; on PostgreSQL (npm run test:pg) the acknowledged writes are checked.
describe('a server killed with SIGKILL in the middle of writes', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-crash-'));
  const file = path.join(dir, 'db.sqlite3');
  const env: Record<string, string> = { ...PRODUCTION_ENV, WEB_CONCURRENCY: '2' };
  let database: TestDatabase;
  afterAll(async () => {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('starts again on an intact database that holds every comment whose creation was acknowledged', async () => {
    database = await createTestDatabase(`sqlite:${file}`);
    env.DATABASE_URL = database.url;
    await createUserWithCli(env, 'alice', 'alice-pw');
    const first = await startServerProcess(env);
    await first.waitForLog(() => first.servingPids().length === 2);
    const load: CreateLoad = { created: [], failures: [] };
    const writing = createCommentsInParallel(first.url, basicAuth('alice', 'alice-pw'), 8, 100_000, load);
    await until(() => load.created.length >= 500, () => load.failures.slice(0, 3).join('; '));
    for (const pid of [...first.servingPids(), first.pid]) process.kill(pid, 'SIGKILL');
    await writing;
    expect(await first.exited).toBeNull();
    // Each client stopped because its connection was cut, none on an error answer.
    expect(load.failures.filter((failure) => !failure.includes('fetch failed'))).toEqual([]);

    const second = await startServerProcess({ ...env, WEB_CONCURRENCY: '1' });
    try {
      if (!onPostgres()) expect(await integrityCheck(file)).toBe('ok');
      const stored = await storedCommentIds(second.url);
      expect(load.created.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      second.child.kill('SIGTERM');
      await second.exited;
    }
  }, 60_000);
});
