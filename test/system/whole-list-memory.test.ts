import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { Sequelize } from 'sequelize';
import { projectRoot } from '../../src/paths.js';
import { createTestDatabase, onPostgres, type TestDatabase } from '../helpers/database.js';
import { BUILT_SERVER, createUserWithCli, PRODUCTION_ENV, startServerProcess, startTimeout, type ServerProcess } from '../helpers/server.js';

/** The most rows the comments' whole list answers (pagination/offered.ts): the longest list a client may ask whole. */
const COMMENTS = 10_000;
const AT_ONCE = 60;
/** A body of some 420 characters: each list is about 5 MB of JSON, 60 of them 300 MB. */
const BODY = 'a comment body of some length, '.repeat(13);
/**
 * How much the server's resident peak may rise over its memory before the
 * lists: written as they are read, each costs the memory of a batch; read
 * ahead and held as they were before, they cost more than this on both
 * databases (the figures of both: docs/performance.md, "Unpaginated lists").
 */
const GROWTH_LIMIT_MIB = 100;

/** The node options `npm start` runs the server with: the process measured is the one production runs. */
function startOptions(): string[] {
  const { scripts } = JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const options = /exec node ((?:--\S+ )*)dist\/src\/server\.js/.exec(scripts.start)?.[1];
  if (options === undefined) throw new Error(`npm start runs no dist/src/server.js: ${scripts.start}`);
  return options.split(' ').filter(Boolean);
}

/** A line of /proc/<pid>/status in MiB: VmRSS, resident now; VmHWM, the resident peak since the process started. */
function memoryMiB(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1]) / 1024;
}

/** The comments, written straight into the database: the API would take minutes for them. */
async function fillComments(url: string): Promise<void> {
  const sequelize = new Sequelize(url, { logging: false });
  const time = new Date(Date.UTC(2026, 0, 1));
  try {
    for (let first = 0; first < COMMENTS; first += 2_000) {
      const rows = Array.from({ length: 2_000 }, (_, i) => ({ title: `c${first + i}`, body: `${BODY}${first + i}`, user_id: 1, created_at: time, updated_at: time }));
      await sequelize.getQueryInterface().bulkInsert('comments', rows);
    }
  } finally {
    await sequelize.close();
  }
}

describe(`whole lists asked ${AT_ONCE} at once of a server on ${onPostgres() ? 'PostgreSQL' : 'a SQLite file'}`, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-whole-lists-'));
  let database: TestDatabase;
  let server: ServerProcess;
  /** A token that may only read the comments, as a dashboard's. */
  let reader = '';

  const api = (pathname: string, init: RequestInit = {}): Promise<Response> =>
    fetch(new URL(pathname, server.url), { ...init, headers: { accept: 'application/json', authorization: `Bearer ${reader}`, ...init.headers } });

  beforeAll(async () => {
    database = await createTestDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
    const env = { ...PRODUCTION_ENV, DATABASE_URL: database.url };
    await createUserWithCli(env, 'alice', 'alice-pw');
    await fillComments(database.url);
    server = await startServerProcess(env, [process.execPath, ...startOptions(), BUILT_SERVER]);
    const login = await fetch(new URL('api/login', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email: 'alice@example.com', password: 'alice-pw' }),
    });
    const { token } = (await login.json()) as { token: string };
    const created = await fetch(new URL('api/tokens', server.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ name: 'dashboard', abilities: ['comments:read'] }),
    });
    expect(created.status).toBe(201);
    reader = ((await created.json()) as { token: string }).token;
  }, startTimeout(4));

  afterAll(async () => {
    server?.child.kill('SIGTERM');
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });

  test(`cost the server the memory of a batch each, not of the list: its resident peak rises less than ${GROWTH_LIMIT_MIB} MiB`, async () => {
    // A first answer loads what lists need.
    expect((await api('api/comments?page=1')).status).toBe(200);
    const before = memoryMiB(server.pid, 'VmRSS');
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        const res = await api('api/comments');
        return { status: res.status, text: await res.text() };
      }),
    );
    const growth = memoryMiB(server.pid, 'VmHWM') - before;
    expect(answers.map(({ status }) => status)).toEqual(answers.map(() => 200));
    const [first] = answers;
    expect(answers.every(({ text }) => text === first?.text)).toBe(true);
    const ids = (JSON.parse(first?.text ?? '{}') as { comments: { id: number }[] }).comments.map(({ id }) => id);
    expect(ids).toEqual(Array.from({ length: COMMENTS }, (_, i) => i + 1));
    expect(growth).toBeLessThan(GROWTH_LIMIT_MIB);
  }, 300_000);

  test('one comment more, the whole list is refused with the parameters of its pages, which answer', async () => {
    const sequelize = new Sequelize(database.url, { logging: false });
    try {
      await sequelize.getQueryInterface().bulkInsert('comments', [{ title: 'one more', body: 'b', user_id: 1, created_at: new Date(), updated_at: new Date() }]);
    } finally {
      await sequelize.close();
    }
    const refused = await api('api/comments');
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ message: `The list has more than ${COMMENTS} rows, too many to answer at once: ask for it in pages (\`page, per_page, cursor\`).` });
    const page = await api('api/comments?page=101&per_page=100');
    expect(page.status).toBe(200);
    expect(((await page.json()) as { comments: { title: string }[] }).comments.map(({ title }) => title)).toEqual(['one more']);
  });
});
