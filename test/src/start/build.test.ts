import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../../src/paths.js';

// scripts/build.mjs --if-stale, which npm start, manage, test and bench run first, in a checkout of
// stand-ins: a tsc and a bundle step that only count their runs. What is checked is the decision, not a time.
const BUILD = path.join(projectRoot, 'scripts', 'build.mjs');
const LONG_AGO = new Date(Date.now() - 3_600_000);

const COUNTING_STEP = (name: string, status = 0) => `
require('node:fs').appendFileSync(${JSON.stringify(name)}, 'ran\\n');
process.exit(${status});
`;

describe('building only what is stale', () => {
  let root: string;

  function write(file: string, content = ''): void {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }

  function age(file: string, when = LONG_AGO): void {
    utimesSync(path.join(root, file), when, when);
  }

  /** How often each step has run so far. */
  function runs(): { tsc: number; bundle: number } {
    const count = (file: string): number => {
      try {
        return readFileSync(path.join(root, file), 'utf8').split('\n').length - 1;
      } catch {
        return 0;
      }
    };
    return { tsc: count('tsc.runs'), bundle: count('bundle.runs') };
  }

  function build(env: Record<string, string> = {}, ...args: string[]): { status: number | null; stderr: string } {
    const result = spawnSync(process.execPath, [BUILD, '--root', root, '--if-stale', ...args], {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
    });
    return { status: result.status, stderr: result.stderr };
  }

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'comments-build-'));
    const sources = ['src/server.ts', 'src/cli/manage.ts', 'src/admin/bundle.ts', 'src/admin/components.ts', 'src/admin/env.ts', 'src/admin/ui/dashboard.jsx', 'test/a.test.ts', 'examples/blog/resources/post.ts', 'tsconfig.json', 'package.json', 'package-lock.json'];
    for (const file of sources) write(file, file.endsWith('.json') ? '{}' : '');
    // What the steps' last run left: the compiled output and the bundle.
    for (const file of ['dist/src/server.js', 'dist/src/cli/manage.js', 'dist/adminjs/bundle.js']) write(file);
    write('node_modules/typescript/bin/tsc', COUNTING_STEP(path.join(root, 'tsc.runs')));
    write('dist/src/admin/bundle.js', COUNTING_STEP(path.join(root, 'bundle.runs')));
    for (const file of sources) age(file);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test('never built: both steps run; then nothing is stale and neither runs again', () => {
    expect(build()).toEqual({ status: 0, stderr: expect.stringContaining('never built') });
    expect(runs()).toEqual({ tsc: 1, bundle: 1 });
    expect(build()).toEqual({ status: 0, stderr: '' });
    expect(build()).toEqual({ status: 0, stderr: '' });
    expect(runs()).toEqual({ tsc: 1, bundle: 1 });
  });

  test('a TypeScript source edited since the last build: tsc runs, the bundle step does not', () => {
    build();
    write('src/server.ts', '// edited');
    expect(build().stderr).toContain('src/server.ts changed');
    expect(runs()).toEqual({ tsc: 2, bundle: 1 });
    expect(build().stderr).toBe('');
  });

  test('a file that is not an input (a database, a note) changes nothing', () => {
    build();
    write('examples/blog/data/db.sqlite3', 'rows');
    write('src/notes.md', 'text');
    expect(build().stderr).toBe('');
    expect(runs()).toEqual({ tsc: 1, bundle: 1 });
  });

  test('a source added, or removed, even with an old mtime: tsc runs', () => {
    build();
    write('src/added.ts');
    age('src/added.ts');
    expect(build().stderr).toContain('added or removed');
    rmSync(path.join(root, 'src/added.ts'));
    expect(build().stderr).toContain('added or removed');
    expect(runs()).toEqual({ tsc: 3, bundle: 1 });
  });

  test('tsconfig.json or the lockfile changed: tsc runs; the lockfile (AdminJS’s version) also remakes the bundle', () => {
    build();
    write('tsconfig.json', '{ "compilerOptions": {} }');
    build();
    expect(runs()).toEqual({ tsc: 2, bundle: 1 });
    write('package-lock.json', '{ "lockfileVersion": 3 }');
    build();
    expect(runs()).toEqual({ tsc: 3, bundle: 2 });
  });

  test('an admin component changed: only the bundle step runs; NODE_ENV=production remakes it too (it is minified)', () => {
    build();
    write('src/admin/ui/dashboard.jsx', 'export default 1');
    expect(build().stderr).toContain('src/admin/ui/dashboard.jsx changed');
    expect(runs()).toEqual({ tsc: 1, bundle: 2 });
    expect(build({ NODE_ENV: 'production' }).stderr).toContain('production changed');
    expect(build({ NODE_ENV: 'production' }).stderr).toBe('');
    expect(runs()).toEqual({ tsc: 1, bundle: 3 });
  });

  test('a source deleted since the last build: tsc runs and its compiled files leave dist/, so a deleted migration is not applied', () => {
    write('resources/migrations/0009_tags.ts');
    write('src/tool.mts');
    build();
    for (const file of ['dist/resources/migrations/0009_tags.js', 'dist/resources/migrations/0009_tags.js.map', 'dist/src/tool.mjs']) write(file);
    rmSync(path.join(root, 'resources/migrations/0009_tags.ts'));
    const { stderr } = build();
    expect(stderr).toContain('added or removed');
    expect(stderr).toContain('Removed 2 file(s) from dist/ whose sources are gone.');
    expect(existsSync(path.join(root, 'dist/resources/migrations/0009_tags.js'))).toBe(false);
    expect(existsSync(path.join(root, 'dist/resources/migrations/0009_tags.js.map'))).toBe(false);
    for (const kept of ['dist/src/tool.mjs', 'dist/src/server.js', 'dist/src/admin/bundle.js', 'dist/adminjs/bundle.js']) expect(existsSync(path.join(root, kept))).toBe(true);
  });

  test('compiled output missing: tsc runs although the sources are older', () => {
    build();
    rmSync(path.join(root, 'dist/src/server.js'));
    expect(build().stderr).toContain('dist/ is incomplete');
    expect(runs()).toEqual({ tsc: 2, bundle: 1 });
  });

  test('a failed tsc is not recorded: its status is the build’s, the bundle step waits, and the next run tries again', () => {
    write('node_modules/typescript/bin/tsc', COUNTING_STEP(path.join(root, 'tsc.runs'), 2));
    expect(build().status).toBe(2);
    expect(runs()).toEqual({ tsc: 1, bundle: 0 });
    expect(build().status).toBe(2);
    expect(runs()).toEqual({ tsc: 2, bundle: 0 });
  });

  test('--dry-run says what is stale and builds nothing', () => {
    expect(build({}, '--dry-run')).toEqual({ status: 0, stderr: 'tsc: never built\nbundle: never built\n' });
    expect(runs()).toEqual({ tsc: 0, bundle: 0 });
    build();
    expect(build({}, '--dry-run').stderr).toBe('tsc: current\nbundle: current\n');
  });

  test('without --if-stale (npm run build) both steps run, current or not', () => {
    build();
    const result = spawnSync(process.execPath, [BUILD, '--root', root], { encoding: 'utf8' });
    expect(result.status).toBe(0);
    expect(runs()).toEqual({ tsc: 2, bundle: 2 });
  });
});
