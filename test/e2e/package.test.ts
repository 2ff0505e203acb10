/**
 * The framework as a newcomer gets it: packed, installed into an empty folder
 * outside this checkout, `npx declarest startproject`, then the new project's
 * own commands (npm install, npm test, tsc, makemigrations --check, npm start)
 * and requests to both APIs and the admin. Slow (two installs, sqlite3 built
 * from source each time): it runs with the browser tests, in CI's last step.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { packageName, projectRoot } from '../../src/paths.js';
import { NPM_START, spawnServer, startTimeout, waitForUrl } from '../helpers/server.js';

const run = promisify(execFile);
const INSTALL_TIMEOUT_MS = 10 * 60_000;
/** A command in `cwd`: its output, or a failure that says what it printed. */
async function sh(cwd: string, file: string, args: string[], timeout = INSTALL_TIMEOUT_MS): Promise<string> {
  try {
    const { stdout, stderr } = await run(file, args, { cwd, timeout, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, npm_config_fund: 'false', npm_config_audit: 'false' } });
    return `${stdout}${stderr}`;
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string; killed?: boolean; signal?: string };
    const why = failed.killed ? `stopped after ${timeout / 1000} s (${failed.signal ?? 'killed'})` : failed.message;
    throw new Error(`${file} ${args.join(' ')} failed in ${cwd}: ${why}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`);
  }
}

let scratch = '';
let tarball = '';
let project = '';

beforeAll(async () => {
  scratch = mkdtempSync(path.join(os.tmpdir(), 'declarest-newcomer-'));
  const packed = await sh(projectRoot, 'npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', scratch]);
  const [described] = JSON.parse(packed.slice(packed.indexOf('['))) as { filename: string }[];
  tarball = path.join(scratch, described?.filename ?? '');
  const empty = path.join(scratch, 'empty');
  mkdirSync(empty);
  await sh(empty, 'npm', ['init', '-y']);
  // Only to run startproject, which opens no database: sqlite3's build (a minute or more) is left to the project's install.
  await sh(empty, 'npm', ['install', '--prefer-offline', '--ignore-scripts', tarball]);
  await sh(empty, 'npx', [packageName, 'startproject', 'Newcomer']);
  project = path.join(empty, 'Newcomer');
  // The framework from the tarball, the rest from the registry.
  await sh(project, 'npm', ['install', '--prefer-offline', tarball]);
  await sh(project, 'npm', ['install', '--prefer-offline']);
}, 3 * INSTALL_TIMEOUT_MS);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('a project made by startproject from the packed framework', () => {
  it('depends on the framework it was made with', () => {
    const manifest = JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(manifest.dependencies[packageName]).toMatch(/^file:/);
  });

  it('passes its own tests, type-checks, and has the migration its declarations need', async () => {
    expect(await sh(project, 'npm', ['test'])).toMatch(/# pass [1-9]\d*\n# fail 0\n/);
    await sh(project, 'npx', ['tsc', '--noEmit']);
    expect(await sh(project, 'npx', [packageName, 'makemigrations', '--check'])).toContain('No changes');
  }, INSTALL_TIMEOUT_MS);

  it('starts with npm start and serves both APIs, the admin and the docs on its demo data', async () => {
    const child = spawnServer({ PORT: '0', HOST: '127.0.0.1', PASSWORD_HASH_ITERATIONS: '1000' }, NPM_START, project);
    const url = await waitForUrl(child, startTimeout(6));
    const basic = `Basic ${Buffer.from('alice:alice-password').toString('base64')}`;
    const page = await fetch(new URL('/notes/', url), { headers: { authorization: basic } });
    expect(page.status).toBe(200);
    expect(((await page.json()) as { count: number }).count).toBeGreaterThan(0);
    const login = await fetch(new URL('/api/login', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ email: 'alice@example.com', password: 'alice-password' }),
    });
    expect(login.status).toBe(201);
    const { token } = (await login.json()) as { token: string };
    const notes = await fetch(new URL('/api/notes', url), { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
    expect(notes.status).toBe(200);
    expect(Object.keys((await notes.json()) as object)).toContain('notes');
    expect((await fetch(new URL('/admin/login', url))).status).toBe(200);
    const described = (await (await fetch(new URL('/openapi.json', url))).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(described.paths)).toEqual(expect.arrayContaining(['/notes/', '/api/notes']));
    child.kill('SIGTERM');
  }, INSTALL_TIMEOUT_MS);
});
