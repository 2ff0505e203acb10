import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { applicationAt, projectRoot } from '../../src/paths.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { BUILT_SERVER, PRODUCTION_ENV, refusedStart, spawnServer, startServerProcess, waitForUrl } from '../helpers/server.js';

// Runs what `npm start` and `npm run manage` run: the compiled output, built by `npm test` first.
const server = BUILT_SERVER;
const manage = path.join(projectRoot, 'dist/src/cli/manage.js');

interface Finished {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(script: string, args: string[], env: Record<string, string>, stdin = ''): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? '', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

describe('the built server and CLI, as a newcomer runs them', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-e2e-'));
  const env = { DATABASE_URL: '', PORT: '0', HOST: '127.0.0.1' };
  let database: TestDatabase;
  let child: ChildProcessWithoutNullStreams;
  let url: string;

  beforeAll(async () => {
    if (!existsSync(server)) throw new Error('dist/ is missing: run `npm test`, which builds first');
    database = await createTestDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
    env.DATABASE_URL = database.url;
    const created = await run(manage, ['createuser', '--username', 'alice', '--email', 'alice@example.com', '--password-stdin'], env, 'alice-pw\n');
    expect(created).toMatchObject({ status: 0, stdout: 'User "alice" created.\n' });
    child = spawnServer(env);
    url = await waitForUrl(child);
  });
  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    await database.drop();
  });

  const authorization = `Basic ${Buffer.from('alice:alice-pw').toString('base64')}`;

  test('a user made with createuser lists and creates comments over HTTP', async () => {
    const list = await fetch(new URL('comments/', url), { headers: { authorization } });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ count: 0, next: null, previous: null, results: [] });
    const created = await fetch(new URL('comments/', url), {
      method: 'POST',
      headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'title=hello&body=world',
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({ title: 'hello', body: 'world' });
  });

  test("Node's fetch, which sends Accept-Language: *, gets the Japanese texts", async () => {
    const res = await fetch(new URL('comments/', url));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ detail: '認証情報が含まれていません。' });
  });

  test('a duplicate createuser exits with status 1 while the server runs', async () => {
    const again = await run(manage, ['createuser', '--username', 'alice', '--email', 'x@example.com', '--password', 'x'], env);
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('Username');
  });

  test('SIGTERM stops the server cleanly', async () => {
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  test('a database that cannot be reached stops the start with a clear message', async () => {
    const bad = await run(server, [], { ...env, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/^Error: the database could not be used: /);
  });

  test('an APP_ROOT naming no application stops the start and the CLI saying so, not blaming the database', async () => {
    const elsewhere = { ...env, APP_ROOT: 'examples/nothing-here' };
    for (const [script, args] of [[server, []], [manage, ['migrate', '--plan']]] as const) {
      const bad = await run(script, [...args], elsewhere);
      expect(bad.status).toBe(1);
      expect(bad.stderr).toMatch(/^Error: the application in .*examples\/nothing-here \(APP_ROOT\) could not be loaded: no compiled resources at /);
    }
  });

  test('an invalid setting stops the start with a clear message', async () => {
    const bad = await run(server, [], { ...env, PORT: 'eighty' });
    expect(bad.status).toBe(1);
    expect(bad.stderr).toBe('Invalid setting PORT=eighty: expected integer 0-65535.\n');
  });
});

/** A SQLite file database in a folder of its own for a describe block's servers, removed after the block. */
function useFileDatabase(prefix: string): () => TestDatabase {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createTestDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await database?.drop();
  });
  return () => {
    if (!database) throw new Error('the database is used outside its describe block');
    return database;
  };
}

describe('npm start on an empty development database', () => {
  const database = useFileDatabase('comments-demo-');

  /** Starts the server until it serves, then stops it; what it printed before serving. */
  async function startOnce(env: Record<string, string>): Promise<{ printed: string; status: number }> {
    const child = spawnServer({ DATABASE_URL: database().url, PORT: '0', HOST: '127.0.0.1', PASSWORD_HASH_ITERATIONS: '1000', ...env });
    let printed = '';
    child.stdout.on('data', (chunk: Buffer) => (printed += chunk.toString()));
    const url = await waitForUrl(child);
    const page = await fetch(new URL('comments/', url), {
      headers: { authorization: `Basic ${Buffer.from('alice:alice-demo-pass').toString('base64')}` },
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    child.kill('SIGTERM');
    await exited;
    return { printed, status: page.status };
  }

  test('production starts empty; development loads the demo data once and says so with the demo accounts', async () => {
    const production = await startOnce({ NODE_ENV: 'production', SECRET_KEY: 'test-secret-key-that-is-at-least-fifty-characters-long' });
    expect(production.printed).not.toContain('demo');
    expect(production.status).toBe(401);

    const first = await startOnce({});
    expect(first.printed).toContain('The database was empty, so the demo data was loaded');
    expect(first.printed).toContain('  alice / alice-demo-pass (user)');
    expect(first.status).toBe(200);

    const second = await startOnce({});
    expect(second.printed).not.toContain('demo');
    expect(second.status).toBe(200);
  });
});

describe('npm start on an application with a problem the system checks find', () => {
  // An application folder of its own, outside this checkout: the built server loads its JavaScript as it is.
  const root = mkdtempSync(path.join(os.tmpdir(), 'comments-checked-'));
  const application = applicationAt(root);
  let database: TestDatabase;

  beforeAll(async () => {
    mkdirSync(application.migrationSources, { recursive: true });
    // The framework this server runs, by its path: the folder has no node_modules to find `declarest` in.
    const framework = pathToFileURL(path.join(projectRoot, 'dist', 'src', 'index.js')).href;
    // A declaration no migration makes: `manage check` says migrations.E001. No account model: the framework's own serve.
    writeFileSync(
      path.join(application.resources, 'note.js'),
      `import { defineResource, field } from '${framework}';
export default defineResource({
  name: 'Note',
  table: 'notes',
  fields: { id: field.id(), title: field.string({ maxLength: 100 }) },
  sites: { paginated: { path: 'notes', actions: ['list'], fields: ['id', 'title'] } },
});
`,
    );
    database = await createTestDatabase(`sqlite:${path.join(root, 'db.sqlite3')}`);
  });
  afterAll(async () => {
    rmSync(root, { recursive: true, force: true });
    await database.drop();
  });

  test('a declaration file with no declaration in it stops the start saying the application is wrong, naming the file, not the database', async () => {
    const broken = path.join(application.resources, 'broken.js');
    writeFileSync(broken, 'export const nothing = 1;\n');
    try {
      const refused = await refusedStart({ ...PRODUCTION_ENV, APP_ROOT: root, DATABASE_URL: database.url });
      expect(refused.status).toBe(1);
      expect(refused.stderr).toMatch(/^Error: the application in .*comments-checked-\w+ \(APP_ROOT\) could not be loaded: \S*broken\.js has no default export made by defineResource\(\)/);
    } finally {
      rmSync(broken);
    }
  });

  test('serves, and logs what the checks found as warnings that name the command, once each', async () => {
    const started = await startServerProcess({ ...PRODUCTION_ENV, APP_ROOT: root, DATABASE_URL: database.url });
    const page = await fetch(new URL('api-auth/login/', started.url));
    expect(page.status).toBe(200);
    const warning = await started.waitForLog((line) => line.check === 'migrations.E001');
    expect(warning).toMatchObject({ level: 40 });
    expect(warning.msg).toMatch(/^The declarations have changes that no migration makes: .*\+ table notes \(id, title\).* \(npm run manage -- check\)$/s);
    // The other finding, each said once (the checks run once the start's first answers are given, whenQuiet's tests say when).
    await started.waitForLog((line) => line.check === 'translations.W002');
    expect(started.logs().flatMap((line) => (line.check === undefined ? [] : [line.check]))).toEqual(['migrations.E001', 'translations.W002']);
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  });
});

describe('a process that is one of several machines serving the site', () => {
  const database = useFileDatabase('comments-machines-');

  test('warns at start, without Redis, that each machine counts login failures on its own', async () => {
    const started = await startServerProcess({ ...PRODUCTION_ENV, DATABASE_URL: database().url, SITE_MACHINES: '3' });
    const warning = await started.waitForLog((line) => line.msg.startsWith('no REDIS_URL'));
    expect(warning).toMatchObject({ level: 40, processes: 3, machines: 3, workers: 1 });
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
  });
});
