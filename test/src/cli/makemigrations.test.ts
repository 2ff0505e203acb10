import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { openDatabase } from '../../../src/db/database.js';
import { packageName } from '../../../src/paths.js';
import { TEST_ITERATIONS } from '../../helpers/app.js';
import { cli, type CliRun } from '../../helpers/cli.js';
import { createTestDatabase } from '../../helpers/database.js';

// Each test makes an application of its own in a scratch folder: its declarations, its migrations, its database.
let root = '';
let version = 0;

const resources = (): string => path.join(root, 'resources');
const migrations = (): string => path.join(resources(), 'migrations');
/** How the scratch declarations import the framework: by its package name, as any application does. */
const framework = (): string => packageName;

const NOTE = {
  id: 'field.id()',
  title: 'field.string({ maxLength: 100 })',
  body: 'field.text({ nullable: true })',
  created_at: 'field.createdAt()',
  updated_at: 'field.updatedAt()',
};

/** The Note declaration with these fields, in a file named anew each time (Jest keeps every module it has imported). */
function declareNote(fields: Record<string, string> = NOTE): void {
  for (const name of readdirSync(resources()).filter((file) => file.startsWith('note'))) rmSync(path.join(resources(), name));
  version += 1;
  const lines = Object.entries(fields).map(([name, made]) => `    ${name}: ${made},`);
  const source = [
    `import { defineResource, field } from '${framework()}';`,
    'export default defineResource({',
    "  name: 'Note',",
    "  table: 'notes',",
    '  fields: {',
    ...lines,
    '  },',
    "  sites: { paginated: { path: 'notes', actions: ['list', 'retrieve'], fields: ['id', 'title', 'updated_at'] } },",
    '});',
  ];
  writeFileSync(path.join(resources(), `note${version}.ts`), `${source.join('\n')}\n`);
}

/** The account model every application has (`manage migrate` builds the services, which want one). */
function declareAccount(): void {
  const source = `import { defineResource, field } from '${framework()}';
export default defineResource({
  name: 'Account',
  table: 'accounts',
  fields: {
    id: field.id(),
    username: field.string({ maxLength: 150, unique: true }),
    email: field.string({ maxLength: 254, unique: true }),
    name: field.string({ maxLength: 255, default: '' }),
    password: field.string({ maxLength: 255, hidden: true }),
    is_active: field.boolean({ default: true }),
    is_staff: field.boolean({ default: false }),
    is_superuser: field.boolean({ default: false }),
    last_login: field.datetime({ nullable: true }),
  },
  userModel: { usernameField: 'username', emailField: 'email', displayField: 'name' },
});
`;
  writeFileSync(path.join(resources(), 'account.ts'), source);
}

const env = (extra: Record<string, string> = {}): Record<string, string> => ({
  DATABASE_URL: `sqlite:${path.join(root, 'db.sqlite3')}`,
  PASSWORD_HASH_ITERATIONS: String(TEST_ITERATIONS),
  APP_ROOT: root,
  ...extra,
});

const makemigrations = (args: string[] = [], answers?: string[]): Promise<CliRun> =>
  cli(['makemigrations', ...args], { env: env(), ...(answers ? { answers } : {}) });

const written = (): string[] => readdirSync(migrations()).sort();
const snapshot = (): string => readFileSync(path.join(migrations(), 'schema.json'), 'utf8');
/** A migration's path as the command shows it: from the working directory. */
const shown = (file: string): string => path.join(path.relative(process.cwd(), migrations()), file);

const NO_CHANGES = 'No changes: the migrations build what the declarations need.\n';

describe('npm run manage -- makemigrations', () => {
  beforeEach(() => {
    root = mkdtempSync(path.join(os.tmpdir(), 'makemigrations-'));
    mkdirSync(migrations(), { recursive: true });
    declareAccount();
    declareNote();
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** The first migration, made and checked to be the only one. */
  async function initial(): Promise<void> {
    expect((await makemigrations(['--name', 'initial'])).status).toBe(0);
    expect(written()).toEqual(['0001_initial.ts', 'schema.json']);
  }

  test('writes the first migration and schema.json for a new application, and then finds no changes', async () => {
    const run = await makemigrations();
    expect(run.status).toBe(0);
    const [file] = written();
    expect(written()).toEqual([expect.stringMatching(/^0001_\w+\.ts$/), 'schema.json']);
    // The migration reaches the framework through its public entry, never a path into its sources.
    expect(readFileSync(path.join(migrations(), file ?? ''), 'utf8')).toContain(`import { type Migration, schemaEditor } from '${packageName}/migrations';`);
    expect(run.stdout.split('\n')).toEqual(
      expect.arrayContaining([`Wrote ${shown(file ?? '')}:`, '  + table notes (id, title, body, created_at, updated_at)', '  + table accounts (id, username, email, name, password, is_active, is_staff, is_superuser, last_login)']),
    );
    expect(JSON.parse(snapshot())).toMatchObject({ tables: { notes: { columns: { title: { type: 'string(100)', nullable: false } } } } });
    const check = await makemigrations(['--check']);
    expect(check).toMatchObject({ status: 0, stdout: NO_CHANGES, stderr: '' });
  });

  test('makes the migrations folder of an application that has none yet', async () => {
    rmSync(migrations(), { recursive: true, force: true });
    expect((await makemigrations(['--name', 'initial'])).status).toBe(0);
    expect(written()).toEqual(['0001_initial.ts', 'schema.json']);
  });

  test('--check fails on a field added to a declaration, names it, and writes nothing; --name names the migration that adds it', async () => {
    await initial();
    const before = snapshot();
    declareNote({ ...NOTE, summary: 'field.string({ maxLength: 200, nullable: true })' });
    const check = await makemigrations(['--check']);
    expect(check.status).toBe(1);
    expect(check.stdout).toBe('');
    expect(check.stderr).toContain(`The declarations need changes that no migration in ${path.relative(process.cwd(), migrations())} makes`);
    expect(check.stderr).toMatch(/^ {2}\+ notes\.summary \(.+\)$/m);
    expect(written()).toEqual(['0001_initial.ts', 'schema.json']);
    expect(snapshot()).toBe(before);

    const run = await makemigrations(['--name', 'add_summary']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`^Wrote ${shown('0002_add_summary.ts').replace(/\./g, '\\.')}:\n {2}\\+ notes\\.summary \\(.+\\)\n$`));
    expect(written()).toEqual(['0001_initial.ts', '0002_add_summary.ts', 'schema.json']);
    expect((await makemigrations(['--check'])).status).toBe(0);
  });

  test('--dry-run tells what it would write, and writes nothing', async () => {
    const run = await makemigrations(['--dry-run']);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Would write \S+0001_\w+\.ts:\n/);
    expect(run.stdout).toContain('  + table notes (id, title, body, created_at, updated_at)\n');
    expect(written()).toEqual([]);
  });

  test('refuses a NOT NULL field without a default added to an existing table, and writes nothing', async () => {
    await initial();
    const before = snapshot();
    declareNote({ ...NOTE, rating: 'field.integer()' });
    const run = await makemigrations();
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/notes\.rating is NOT NULL with no default/);
    expect(written()).toEqual(['0001_initial.ts', 'schema.json']);
    expect(snapshot()).toBe(before);
  });

  test('warns that a removed field loses its values, pointing at --rename, and writes the migration', async () => {
    await initial();
    const { body: _removed, ...rest } = NOTE;
    declareNote(rest);
    const run = await makemigrations();
    expect(run.status).toBe(0);
    expect(run.stderr).toBe('Warning: notes.body is removed with every value it holds. If it was renamed, run again with --rename notes.body:<new name>.\n');
    expect(run.stdout).toContain('\n  - notes.body\n');
    expect(written()).toEqual(['0001_initial.ts', expect.stringMatching(/^0002_\w+\.ts$/), 'schema.json']);
  });

  describe('a renamed field', () => {
    beforeEach(async () => {
      await initial();
      const { body, ...rest } = NOTE;
      declareNote({ ...rest, content: body });
    });

    test('is a removal and an addition unless --rename names it', async () => {
      const guessed = await makemigrations(['--dry-run']);
      expect(guessed.stdout).toMatch(/^ {2}- notes\.body$/m);
      expect(guessed.stdout).toMatch(/^ {2}\+ notes\.content \(.+\)$/m);
      const renamed = await makemigrations(['--dry-run', '--rename', 'notes.body:content']);
      expect(renamed).toMatchObject({ status: 0, stderr: '' });
      expect(renamed.stdout).toContain('\n  ~ notes.body → notes.content\n');
      expect(renamed.stdout).not.toMatch(/notes\.body$|\+ notes\.content/m);
    });

    test('is asked about at a terminal: yes makes it a rename, no a removal and an addition', async () => {
      const yes = await makemigrations(['--dry-run'], ['y']);
      expect(yes.asked).toEqual(['Was notes.body renamed to notes.content?']);
      expect(yes.stdout).toContain('\n  ~ notes.body → notes.content\n');
      const no = await makemigrations(['--dry-run'], ['n']);
      expect(no.asked).toEqual(['Was notes.body renamed to notes.content?']);
      expect(no.stdout).toMatch(/^ {2}- notes\.body\n {2}\+ notes\.content /m);
      expect(written()).toEqual(['0001_initial.ts', 'schema.json']);
    });

    test('given as --rename is not asked about again', async () => {
      const run = await makemigrations(['--rename', 'notes.body:content'], []);
      expect(run).toMatchObject({ status: 0, asked: [] });
      expect(run.stdout).toContain('\n  ~ notes.body → notes.content\n');
    });
  });

  test('refuses a --rename that is not table.old:new', async () => {
    const run = await makemigrations(['--rename', 'x']);
    expect(run).toMatchObject({ status: 1, stdout: '', stderr: '--rename x: expected table.old_column:new_column.\n' });
    expect(written()).toEqual([]);
  });

  test('refuses a --rename the migrations cannot make, naming the table and column and saying why, and writes nothing', async () => {
    await initial();
    const { body, ...rest } = NOTE;
    declareNote({ ...rest, content: body });
    const refusals: [rename: string, why: string][] = [
      ['notes.nosuch:content', 'the migrations make no column nosuch in notes (its columns: id, title, body, created_at, updated_at).'],
      ['posts.body:content', 'the migrations make no table posts.'],
      ['notes.title:headline', 'notes.title is still declared, so it is not renamed: a renamed column is declared under its new name only.'],
      ['notes.body:summary', 'no column summary is declared in notes to rename body to.'],
      ['notes.body:title', 'the migrations made a column title in notes already.'],
    ];
    for (const [rename, why] of refusals) {
      expect(await makemigrations(['--rename', rename])).toMatchObject({ status: 1, stdout: '', stderr: `--rename ${rename}: ${why}\n` });
    }
    expect(written()).toEqual(['0001_initial.ts', 'schema.json']);
  });

  test('writes migrations that migrate applies, leaving nothing to apply, and whose down migrate zero runs', async () => {
    await initial();
    const { body, ...rest } = NOTE;
    declareNote({ ...rest, content: body, summary: 'field.string({ maxLength: 200, nullable: true })' });
    expect((await makemigrations(['--name', 'content', '--rename', 'notes.body:content'])).status).toBe(0);
    const database = await createTestDatabase(env().DATABASE_URL);
    const migrate = (args: string[] = []): Promise<CliRun> => cli(['migrate', ...args], { env: env({ DATABASE_URL: database.url }) });
    const sql = async (query: string): Promise<unknown[]> => {
      const sequelize = openDatabase(database.url);
      try {
        return (await sequelize.query(query))[0];
      } finally {
        await sequelize.close();
      }
    };
    const columns = async (): Promise<string[]> => {
      const sequelize = openDatabase(database.url);
      try {
        return Object.keys(await sequelize.getQueryInterface().describeTable('notes')).sort();
      } catch {
        return [];
      } finally {
        await sequelize.close();
      }
    };
    try {
      expect(await migrate(['0001'])).toMatchObject({ status: 0, stdout: 'Applied 1 migration(s): 0001_initial\n' });
      await sql("INSERT INTO notes (title, body, created_at, updated_at) VALUES ('a', 'kept', '2024-01-01', '2024-01-01')");
      expect(await migrate()).toMatchObject({ status: 0, stdout: 'Applied 1 migration(s): 0002_content\n', stderr: '' });
      expect(await columns()).toEqual(['content', 'created_at', 'id', 'summary', 'title', 'updated_at']);
      // The renamed column keeps its values.
      expect(await sql('SELECT title, content, summary FROM notes')).toEqual([{ title: 'a', content: 'kept', summary: null }]);
      expect(await migrate(['--plan'])).toMatchObject({ status: 0, stdout: 'No migrations to apply.\n' });
      expect(await migrate(['zero'])).toMatchObject({ status: 0, stdout: 'Reverted 2 migration(s): 0002_content, 0001_initial\n', stderr: '' });
      expect(await columns()).toEqual([]);
    } finally {
      await database.drop();
    }
  });

  test.each([['the comment service', '.'], ['the blog', 'examples/blog']])('--check passes for %s: its migrations build what its declarations need', async (_name, appRoot) => {
    const run = await cli(['makemigrations', '--check'], { env: env({ APP_ROOT: appRoot }) });
    expect(run).toMatchObject({ status: 0, stdout: NO_CHANGES, stderr: '' });
  });

  test('speaks Japanese to a Japanese locale', async () => {
    await initial();
    const run = await cli(['makemigrations'], { env: env({ LANG: 'ja_JP.UTF-8' }) });
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toContain('変更はありません');
  });
});
