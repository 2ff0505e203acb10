import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { QueryTypes, type Sequelize } from 'sequelize';
import { openDatabase } from '../../../src/db/database.js';
import { migrate, migrateTo } from '../../../src/db/migrator.js';
import { MIGRATIONS_ENTRY } from '../../../src/paths.js';
import { defineResource, field } from '../../../src/resource.js';
import { declaredSchema } from '../../../src/schema/declared.js';
import type { Rename } from '../../../src/schema/diff.js';
import { introspectSchema } from '../../../src/schema/introspect.js';
import { draftMigration, writeDraft, type MigrationDraft } from '../../../src/schema/makemigrations.js';
import { sortedSchema } from '../../../src/schema/model.js';
import { createTestDatabase, type TestDatabase } from '../../../src/testing/database.js';
import type { ResourceDeclaration } from '../../../src/types/resource.js';

/** A scratch application's declarations, one version per step of its life. */
interface Version {
  writerName?: number;
  noteColumns?: Record<string, ReturnType<typeof field.string> | ReturnType<typeof field.boolean> | ReturnType<typeof field.integer>>;
  bodyNullable?: boolean;
  writerOnDelete?: 'SET NULL' | 'CASCADE';
  filters?: Record<string, ('exact' | 'icontains')[]>;
  search?: string[];
  labels?: boolean;
  titleUnique?: boolean;
}

function application(version: Version): ResourceDeclaration[] {
  const writer = defineResource({
    name: 'Writer',
    table: 'writers',
    fields: { id: field.id(), name: field.string({ maxLength: version.writerName ?? 100, unique: true }), created_at: field.createdAt(), updated_at: field.updatedAt() },
  });
  const label = defineResource({ name: 'Label', table: 'labels', fields: { id: field.id(), name: field.string({ maxLength: 30 }) } });
  const note = defineResource({
    name: 'Note',
    table: 'notes',
    fields: {
      id: field.id(),
      title: field.string({ maxLength: 100, unique: version.titleUnique ?? false }),
      body: field.text({ nullable: version.bodyNullable ?? false }),
      ...version.noteColumns,
      writer_id: field.reference('Writer', { as: 'writer', nullable: true, onDelete: version.writerOnDelete ?? 'SET NULL' }),
      ...(version.labels ? { labels: field.manyToMany('Label', { through: { table: 'note_labels', from: 'note_id', to: 'label_id' } }) } : {}),
      created_at: field.createdAt(),
      updated_at: field.updatedAt(),
    },
    query: { filters: { title: ['exact', 'icontains'], ...version.filters }, search: version.search ?? ['title'] },
    // The site shows what its list is filtered and searched by, as a site must (or name it in `query.unshown`).
    sites: { paginated: { path: 'notes', actions: ['list', 'retrieve'], fields: [...new Set(['id', 'title', ...Object.keys(version.filters ?? {}), ...(version.search ?? [])])], ordering: [['created_at', 'DESC'], ['id', 'DESC']] } },
  });
  return version.labels ? [writer, note, label] : [writer, note];
}

describe('makemigrations on a scratch application', () => {
  let dir: string;
  let database: TestDatabase;
  let sequelize: Sequelize;
  const applied: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'makemigrations-'));
    database = await createTestDatabase();
    sequelize = openDatabase(database.url);
  });
  afterAll(async () => {
    await sequelize.close();
    await database.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const select = <T extends object>(sql: string): Promise<T[]> => sequelize.query<T>(sql, { type: QueryTypes.SELECT });
  const run = (sql: string): Promise<unknown> => sequelize.query(sql);
  const schemaNow = async () => sortedSchema(await introspectSchema(sequelize));
  const needed = (version: Version) => sortedSchema(declaredSchema(application(version)));

  async function draft(version: Version, renames: Rename[] = []): Promise<MigrationDraft> {
    const made = await draftMigration({ dir, migrationsEntry: MIGRATIONS_ENTRY, declarations: application(version), renames });
    if (!made) throw new Error('no change');
    return made;
  }

  /** Writes and applies the next migration; then checks that it rolls back to the last version's schema and applies again. */
  async function step(previous: Version | undefined, version: Version, renames: Rename[] = []): Promise<MigrationDraft> {
    const made = await draft(version, renames);
    expect(made.change.findings.filter((finding) => finding.kind === 'refused')).toEqual([]);
    writeDraft(dir, made);
    await migrate(sequelize, [dir]);
    expect(await schemaNow()).toEqual(needed(version));
    if (previous) {
      await migrateTo(sequelize, [dir], { kind: 'named', prefix: applied.at(-1) as string });
      expect(await schemaNow()).toEqual(needed(previous));
      await migrate(sequelize, [dir]);
      expect(await schemaNow()).toEqual(needed(version));
    }
    applied.push(made.file.replace(/\.ts$/, ''));
    return made;
  }

  const v1: Version = {};
  const v2: Version = {
    writerName: 150,
    noteColumns: { summary: field.string({ maxLength: 200, nullable: true }), pinned: field.boolean({ default: false }), rating: field.integer({ nullable: true }) },
    bodyNullable: true,
    writerOnDelete: 'CASCADE',
    filters: { pinned: ['exact'] },
    search: ['title', 'body'],
  };
  const v3: Version = { ...v2, noteColumns: { abstract: field.string({ maxLength: 200, nullable: true }), pinned: field.boolean({ default: false }) } };
  const v4: Version = { ...v3, labels: true };

  test('creates every table of a new application, and the rows it is given are counted', async () => {
    const made = await step(undefined, v1);
    expect(made.file).toBe('0001_auto_' + made.file.slice(10));
    // The framework's own two (sessions, the admin's audit log) and the application's two.
    expect(made.change.operations.map((operation) => operation.op)).toEqual(['createTable', 'createTable', 'createTable', 'createTable']);
    await run("INSERT INTO writers (id, name, created_at, updated_at) VALUES (1, 'ann', '2026-01-01', '2026-01-01')");
    await run("INSERT INTO notes (id, title, body, writer_id, created_at, updated_at) VALUES (1, 'first', 'hello', 1, '2026-01-01', '2026-01-01'), (2, 'second', 'world', NULL, '2026-01-02', '2026-01-02')");
    expect(await select("SELECT row_count FROM row_counts WHERE table_name = 'notes'")).toEqual([{ row_count: expect.anything() }]);
  });

  test('adds columns (existing rows take the default), widens one, makes one nullable, and changes a delete rule, keeping every row', async () => {
    const made = await step(v1, v2);
    expect(made.change.operations.map((operation) => operation.op).sort()).toEqual(
      ['addColumn', 'addColumn', 'addColumn', 'addIndex', 'addTextIndex', 'alterColumn', 'alterColumn', 'alterColumn', 'removeTextIndex'].sort(),
    );
    const notes = await select<{ id: number; title: string; pinned: unknown }>('SELECT id, title, pinned FROM notes ORDER BY id');
    expect(notes.map((note) => [note.id, note.title, Boolean(note.pinned)])).toEqual([
      [1, 'first', false],
      [2, 'second', false],
    ]);
    const [count] = await select<{ row_count: number | string }>("SELECT row_count FROM row_counts WHERE table_name = 'notes'");
    expect(Number(count?.row_count)).toBe(2);
    // The delete rule is the new one: a writer's notes go with the writer.
    await run("INSERT INTO writers (id, name, created_at, updated_at) VALUES (2, 'bob', '2026-01-01', '2026-01-01')");
    await run("INSERT INTO notes (id, title, body, writer_id, created_at, updated_at) VALUES (3, 'third', 'x', 2, '2026-01-03', '2026-01-03')");
    await run('DELETE FROM writers WHERE id = 2');
    expect(await select('SELECT id FROM notes WHERE id = 3')).toEqual([]);
  });

  test('renames a column with its values, and removes another with a warning that names it', async () => {
    await run("UPDATE notes SET summary = 'short' WHERE id = 1");
    const made = await step(v2, v3, [{ table: 'notes', from: 'summary', to: 'abstract' }]);
    expect(made.change.operations.map((operation) => operation.op)).toEqual(['renameColumn', 'removeColumn']);
    expect(made.change.findings).toEqual([{ kind: 'warning', key: 'column_removed', values: { table: 'notes', column: 'rating' } }]);
    expect(await select('SELECT abstract FROM notes WHERE id = 1')).toEqual([{ abstract: 'short' }]);
  });

  test('makes a column unique (its list index then redundant), and not unique again', async () => {
    const unique = await step(v3, { ...v3, titleUnique: true });
    expect(unique.change.operations.map((operation) => operation.op)).toEqual(['removeIndex', 'alterColumn']);
    await expect(run("INSERT INTO notes (title, body, created_at, updated_at) VALUES ('first', 'again', '2026-01-04', '2026-01-04')")).rejects.toThrow();
    await step({ ...v3, titleUnique: true }, v3);
    await run("INSERT INTO notes (id, title, body, created_at, updated_at) VALUES (4, 'first', 'again', '2026-01-04', '2026-01-04')");
    await run('DELETE FROM notes WHERE id = 4');
  });

  test('adds a resource and the join table of a many-to-many, and drops them again', async () => {
    const added = await step(v3, v4);
    expect(added.change.operations.map((operation) => operation.op)).toEqual(['createTable', 'createTable']);
    expect(added.change.operations.map((operation) => 'table' in operation && operation.table)).toEqual(['labels', 'note_labels']);
    const dropped = await step(v4, { ...v3 });
    expect(dropped.change.operations.map((operation) => [operation.op, operation.table])).toEqual([
      ['dropTable', 'note_labels'],
      ['dropTable', 'labels'],
    ]);
    expect(dropped.change.findings.map((finding) => finding.key)).toEqual(['table_dropped', 'table_dropped']);
    expect(await select<{ id: number }>('SELECT id FROM notes ORDER BY id')).toEqual([{ id: 1 }, { id: 2 }]);
  });

  test('refuses a NOT NULL column without a default on a table that has rows, and writes nothing', async () => {
    const before = readdirSync(dir).sort();
    const refused = await draft({ ...v3, noteColumns: { ...v3.noteColumns, code: field.string({ maxLength: 10 }) } });
    expect(refused.change.findings).toEqual([{ kind: 'refused', key: 'not_null_added', values: { table: 'notes', column: 'code' } }]);
    const altered = await draft({ ...v3, bodyNullable: false });
    expect(altered.change.findings).toEqual([{ kind: 'refused', key: 'not_null_altered', values: { table: 'notes', column: 'body' } }]);
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  test('has nothing to write once the migrations build what the declarations need', async () => {
    expect(await draftMigration({ dir, migrationsEntry: MIGRATIONS_ENTRY, declarations: application(v3) })).toBeNull();
  });
});
