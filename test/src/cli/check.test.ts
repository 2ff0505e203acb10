import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../../src/paths.js';
import { cli, type CliRun } from '../../helpers/cli.js';

const check = (args: string[], env: Record<string, string> = {}): Promise<CliRun> => cli(['check', ...args], { env: { DATABASE_URL: 'sqlite::memory:', ...env } });

/** A production setting that passes every deployment check. */
const DEPLOYED = {
  NODE_ENV: 'production',
  SECRET_KEY: 'a-long-and-random-secret-key-'.repeat(2),
  ALLOWED_HOSTS: 'comments.example.com',
  DATABASE_URL: 'postgres://app@db.example.com/comments',
};

describe('npm run manage -- check, on the applications of this checkout', () => {
  test.each(['.', 'examples/blog'])('finds no issue in %s: its migrations are made and its messages in both languages', async (root) => {
    const run = await check([], { APP_ROOT: root });
    expect([run.status, run.stdout, run.stderr]).toEqual([0, 'System check identified no issues.\n', '']);
  });

  test('--deploy passes with production settings, and names each that production needs otherwise, never the key', async () => {
    expect((await check(['--deploy'], DEPLOYED)).stdout).toBe('System check identified no issues.\n');
    expect((await check(['--deploy'], { ...DEPLOYED, DATABASE_URL: 'sqlite::memory:' })).stderr).toContain('(database.E001) DATABASE_URL is sqlite::memory:');
    const weak = 'x'.repeat(60);
    const run = await check(['--deploy'], {
      NODE_ENV: 'development',
      DATABASE_URL: 'sqlite:db.sqlite3',
      DEBUG: '1',
      SECRET_KEY: weak,
      ALLOWED_HOSTS: '*',
      CORS_ALLOWED_ORIGINS: 'http://spa.example.com,https://app.example.com',
      WEB_CONCURRENCY: '2',
    });
    expect(run.status).toBe(1);
    const ids = [...run.stderr.matchAll(/^\((\w+\.[EW]\d{3})\)/gm)].map((match) => match[1]);
    expect(ids).toEqual(['security.E003', 'security.E002', 'security.W001', 'security.W003', 'security.W004', 'throttling.W001']);
    expect(run.stderr).toContain('SECRET_KEY is weak (60 characters, not shown)');
    expect(run.stderr).toContain('(http://spa.example.com)');
    expect(run.stderr).not.toContain(weak);
    expect(run.stderr).toMatch(/^System check identified some issues:\n\nERRORS:\n/);
    expect(run.stderr).toMatch(/System check identified 6 issues\.\n$/);
  });

  test('--deploy without ALLOWED_HOSTS warns that only this machine\'s names are served, and passes unless warnings fail', async () => {
    const { ALLOWED_HOSTS: _set, ...unset } = DEPLOYED;
    const run = await check(['--deploy'], unset);
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('(security.W005) ALLOWED_HOSTS is not set');
    // Set to what HOST names, it is set: no warning.
    expect((await check(['--deploy'], { ...unset, HOST: '203.0.113.5', ALLOWED_HOSTS: '203.0.113.5' })).stdout).toBe('System check identified no issues.\n');
    expect((await check(['--deploy', '--fail-level', 'warning'], unset)).status).toBe(1);
  });

  test('--deploy warns that login limits multiply when several machines serve the site without Redis, one process each', async () => {
    const run = await check(['--deploy'], { ...DEPLOYED, SITE_MACHINES: '3' });
    expect(run.status).toBe(0);
    expect(run.stderr).toContain('(throttling.W001) 3 processes serve the site (SITE_MACHINES=3 × WEB_CONCURRENCY=1) without REDIS_URL');
    const workers = await check(['--deploy'], { ...DEPLOYED, SITE_MACHINES: '2', WEB_CONCURRENCY: '4' });
    expect(workers.stderr).toContain('(throttling.W001) 8 processes serve the site (SITE_MACHINES=2 × WEB_CONCURRENCY=4)');
    expect((await check(['--deploy'], { ...DEPLOYED, SITE_MACHINES: '3', REDIS_URL: 'redis://cache.example.com:6379' })).stdout).toBe('System check identified no issues.\n');
  });

  test('the messages are Japanese for LANG=ja', async () => {
    const run = await check(['--deploy'], { ...DEPLOYED, SECRET_KEY: '', LANG: 'ja_JP.UTF-8' });
    expect(run.stderr).toContain('(security.E001) SECRET_KEY が設定されていません。');
    expect(run.stderr).toContain('システムチェックで 1 件の問題が見つかりました。');
  });
});

describe('npm run manage -- check, on an application with problems', () => {
  let root = '';
  const framework = (): string => path.relative(path.join(root, 'resources'), path.join(projectRoot, 'src', 'resource.js'));

  function declare(file: string, name: string, table: string): void {
    writeFileSync(
      path.join(root, 'resources', file),
      `import { defineResource, field } from '${framework()}';
export default defineResource({
  name: '${name}',
  table: '${table}',
  fields: { id: field.id(), title: field.string({ maxLength: 100 }), secret: field.string({ maxLength: 10, hidden: true }) },
  sites: { paginated: { path: '${table}', actions: ['list'], fields: ['id', 'title'] } },
});
`,
    );
  }

  function messages(language: string, catalogue: unknown, namespace = 'resources'): void {
    mkdirSync(path.join(root, 'locales', language), { recursive: true });
    writeFileSync(path.join(root, 'locales', language, `${namespace}.json`), JSON.stringify(catalogue));
  }

  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'check-'));
    mkdirSync(path.join(root, 'resources', 'migrations'), { recursive: true });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test('a table no migration makes is an error; a message in one language only and a resource without labels are warnings', async () => {
    declare('note.ts', 'Note', 'notes');
    messages('en', { note: { errors: { too_long: 'Too long.' } } });
    messages('ja', {});
    // A framework message said otherwise in English only: Japanese keeps the framework's, no gap.
    messages('en', { validation: { required: 'Please fill this in.' } }, 'common');
    const run = await check([], { APP_ROOT: root });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/\(migrations\.E001\) The declarations have changes that no migration makes: .*\+ table notes \(id, title, secret\)/);
    expect(run.stderr).toContain('(translations.W001) 1 message is missing in ja: resources:note.errors.too_long.');
    expect(run.stderr).not.toContain('common:');
    // Its hidden field needs no label.
    expect(run.stderr).toContain('(translations.W002) Note has no label for note.name, note.fields.id, note.fields.title in resources.json');
  });

  test('declarations that disagree stop the other checks with their own words', async () => {
    declare('note.ts', 'Note', 'notes');
    declare('memo.ts', 'Memo', 'notes');
    const run = await check([], { APP_ROOT: root });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('(declarations.E001) The declarations cannot be used: Resources Memo and Note both declare table "notes"');
    expect(run.stderr).toMatch(/System check identified 1 issue\.\n$/);
  });
});
