import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { adminPreload } from '../../../src/admin/mount.js';
import { workerEnvironment } from '../../../src/cluster.js';
import { ConfigError } from '../../../src/config.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';
import { PRODUCTION_ENV, refusedStart, startServerProcess, type LogLine, type ServerProcess } from '../../helpers/server.js';

/**
 * Loaded into every process of the server (NODE_OPTIONS=--import): on SIGUSR2
 * it logs, as one JSON line, the packages of the CommonJS modules loaded so far
 * (Sequelize, Express, sqlite3 and umzug are CommonJS, and nothing of the
 * application runs without them), and the glibc arena cap it was started with.
 */
const REPORTER = `
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
process.on('SIGUSR2', () => {
  const packages = new Set();
  for (const file of Object.keys(require.cache)) {
    const match = /node_modules\\/((@[^/]+\\/)?[^/]+)/.exec(file);
    if (match) packages.add(match[1]);
  }
  const mallocArenaMax = process.env.MALLOC_ARENA_MAX ?? null;
  process.stdout.write(JSON.stringify({ pid: process.pid, msg: 'loaded packages', packages: [...packages].sort(), mallocArenaMax }) + '\\n');
});
`;

/** The database driver is the suite's: sqlite3, or pg when the suite runs on PostgreSQL. */
const SERVING_PACKAGES = ['sequelize', 'express', process.env.TEST_DATABASE_URL ? 'pg' : 'sqlite3'];
/** What only a process that migrates needs: the preparing process migrated the database before the workers started. */
const MIGRATING_PACKAGES = ['umzug'];
const APPLICATION_PACKAGES = [...SERVING_PACKAGES, ...MIGRATING_PACKAGES];
/** What only a browser runs of the admin (CommonJS, so the reporter sees them): its pages load them prebuilt. */
const BROWSER_PACKAGES = ['react', 'react-dom', 'react-is', 'prop-types'];

/** What the reporter logs of `pid` (the server or one of its processes). */
async function report(server: ServerProcess, pid: number): Promise<LogLine> {
  process.kill(pid, 'SIGUSR2');
  return server.waitForLog((candidate) => candidate.msg === 'loaded packages' && candidate.pid === pid);
}

/** The packages `pid` has loaded. */
async function packagesOf(server: ServerProcess, pid: number): Promise<string[]> {
  return (await report(server, pid)).packages as string[];
}

describe('the processes of a start', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-start-'));
  const reporter = path.join(dir, 'reporter.mjs');
  let database: TestDatabase;
  let env: Record<string, string>;

  beforeAll(async () => {
    writeFileSync(reporter, REPORTER);
    database = await createTestDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
    env = { ...PRODUCTION_ENV, DATABASE_URL: database.url, NODE_OPTIONS: `--import=${reporter}` };
  });
  afterAll(async () => {
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('WEB_CONCURRENCY=2: the primary imports none of the application (no Sequelize, Express, database driver, umzug); its workers serve without the migration runner, with glibc capped at two memory arenas', async () => {
    const server = await startServerProcess({ ...env, WEB_CONCURRENCY: '2' });
    try {
      await server.waitForLog(() => server.servingPids().length === 2);
      const worker = server.servingPids()[0]!;
      const primary = await packagesOf(server, server.pid);
      expect(primary.filter((name) => APPLICATION_PACKAGES.includes(name))).toEqual([]);
      const workerReport = await report(server, worker);
      const workers = workerReport.packages as string[];
      expect(workers).toEqual(expect.arrayContaining(SERVING_PACKAGES));
      expect(workers.filter((name) => MIGRATING_PACKAGES.includes(name))).toEqual([]);
      expect(workerReport.mallocArenaMax).toBe('2');
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  }, 30_000);

  test('in production the admin is loaded once the server has listened and is quiet, without a request for it, and without its browser code (no React in the server)', async () => {
    const server = await startServerProcess({ ...env, WEB_CONCURRENCY: '1' });
    try {
      const loaded = await server.waitForLog((line) => line.msg === 'admin site loaded');
      expect(loaded.pid).toBe(server.pid);
      expect((await packagesOf(server, server.pid)).filter((name) => BROWSER_PACKAGES.includes(name))).toEqual([]);
      // Loaded without AdminJS's bundler and front end (stand-ins): the pages and the prebuilt browser code are served.
      for (const page of ['admin/login', 'admin/frontend/assets/components.bundle.js', 'admin/frontend/assets/app.bundle.js']) {
        const res = await fetch(new URL(page, server.url));
        await res.arrayBuffer();
        expect([page, res.status]).toEqual([page, 200]);
      }
    } finally {
      server.child.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
  });

  test('ADMIN_PRELOAD that is not a boolean stops the start with status 1 and says why', async () => {
    const { status, stderr } = await refusedStart({ ...env, ADMIN_PRELOAD: 'maybe' });
    expect(status).toBe(1);
    expect(stderr).toBe('Invalid setting ADMIN_PRELOAD=maybe: expected boolean.\n');
  });
});

describe("a worker's environment", () => {
  test('caps glibc at two memory arenas, unless the primary was started with a cap of its own', () => {
    const keyed = { SECRET_KEY: 'set' };
    expect(workerEnvironment(keyed, 'generated')).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(workerEnvironment({ ...keyed, MALLOC_ARENA_MAX: '' }, 'generated')).toEqual({ MALLOC_ARENA_MAX: '2' });
    expect(workerEnvironment({ ...keyed, MALLOC_ARENA_MAX: '4' }, 'generated')).toEqual({ MALLOC_ARENA_MAX: '4' });
  });

  test('without SECRET_KEY, has the one key the primary made for every worker', () => {
    expect(workerEnvironment({}, 'generated')).toEqual({ MALLOC_ARENA_MAX: '2', SECRET_KEY: 'generated' });
    expect(workerEnvironment({ SECRET_KEY: '' }, 'generated').SECRET_KEY).toBe('generated');
  });
});

describe('ADMIN_PRELOAD', () => {
  test('unset: on in production only', () => {
    expect(adminPreload({}, 'production')).toBe(true);
    expect(adminPreload({ ADMIN_PRELOAD: ' ' }, 'production')).toBe(true);
    expect(adminPreload({}, 'development')).toBe(false);
    expect(adminPreload({}, 'test')).toBe(false);
  });

  test('set: what it says, in any environment', () => {
    expect(adminPreload({ ADMIN_PRELOAD: '0' }, 'production')).toBe(false);
    expect(adminPreload({ ADMIN_PRELOAD: 'off' }, 'production')).toBe(false);
    expect(adminPreload({ ADMIN_PRELOAD: 'true' }, 'development')).toBe(true);
    expect(adminPreload({ ADMIN_PRELOAD: 'Yes' }, 'test')).toBe(true);
    expect(() => adminPreload({ ADMIN_PRELOAD: 'maybe' }, 'production')).toThrow(ConfigError);
  });
});
