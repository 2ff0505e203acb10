import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, test } from '@jest/globals';
import { QueryTypes, type Sequelize } from 'sequelize';
import { openDatabase } from '../../../src/db/database.js';
import { RowCounts, rowCounts } from '../../../src/db/row-counter.js';
import { createMigrator, migrate, migrateTo } from '../../../src/db/migrator.js';
import { applicationAt } from '../../../src/paths.js';
import { loadDeclarations } from '../../../src/registry.js';
import { declaredSchema } from '../../../src/schema/declared.js';
import { diffSchemas } from '../../../src/schema/diff.js';
import { introspectSchema } from '../../../src/schema/introspect.js';
import { snapshotPath } from '../../../src/schema/snapshot.js';
import { emptySchema, sortedSchema, type Schema } from '../../../src/schema/model.js';
import { schemaEditor } from '../../../src/schema/operations.js';
import { createTestDatabase } from '../../../src/testing/database.js';

/** Databases opened by a test, closed and dropped after it whatever happened. */
const opened: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0)) await close();
});

async function database(): Promise<Sequelize> {
  const made = await createTestDatabase();
  const sequelize = openDatabase(made.url);
  opened.push(async () => {
    await sequelize.close();
    await made.drop();
  });
  return sequelize;
}

/** A database built straight from the declarations, by the operations that make their schema from nothing. */
async function freshFromDeclarations(root: string): Promise<Schema> {
  const sequelize = await database();
  const editor = schemaEditor(sequelize.getQueryInterface());
  for (const operation of diffSchemas(emptySchema(), declaredSchema(await loadDeclarations(applicationAt(root).resources))).operations) {
    if (operation.op !== 'createTable') throw new Error(`a new schema is made of tables, not ${operation.op}`);
    await editor.createTable(operation.table, operation.schema);
  }
  return sortedSchema(await introspectSchema(sequelize));
}

describe.each([['the comment service', '.'], ['the blog', 'examples/blog']])('%s', (_name, root) => {
  const application = applicationAt(root);

  test('its migrations build the schema its snapshot records', async () => {
    const sequelize = await database();
    await migrate(sequelize, [application.migrations]);
    const recorded = JSON.parse(readFileSync(snapshotPath(application.migrationSources), 'utf8')) as Schema;
    expect(sortedSchema(await introspectSchema(sequelize))).toEqual(recorded);
  });

  test('its newest migration can be undone and done again, leaving the schema its snapshot records', async () => {
    const sequelize = await database();
    await migrate(sequelize, [application.migrations]);
    await createMigrator(sequelize, [application.migrations]).down();
    expect(await migrate(sequelize, [application.migrations])).toHaveLength(1);
    const recorded = JSON.parse(readFileSync(snapshotPath(application.migrationSources), 'utf8')) as Schema;
    expect(sortedSchema(await introspectSchema(sequelize))).toEqual(recorded);
  });

  test('its migrations build the schema a database made straight from its declarations has', async () => {
    const sequelize = await database();
    await migrate(sequelize, [application.migrations]);
    expect(sortedSchema(await introspectSchema(sequelize))).toEqual(await freshFromDeclarations(root));
  });
});

describe('upgrading the blog from its hand-written migrations to the generated one', () => {
  test('keeps every row, counts them, and leaves the schema a fresh database has', async () => {
    const sequelize = await database();
    const { migrations } = applicationAt('examples/blog');
    await migrateTo(sequelize, [migrations], { kind: 'named', prefix: '0006' });
    const run = (sql: string): Promise<unknown> => sequelize.query(sql);
    const at = "'2026-01-01 00:00:00'";
    await run(`INSERT INTO users (id, username, email, password, created_at, updated_at) VALUES (1, 'ann', 'ann@example.com', 'x', ${at}, ${at})`);
    await run(`INSERT INTO tags (id, name, created_at, updated_at) VALUES (1, 'one', ${at}, ${at}), (2, 'two', ${at}, ${at})`);
    await run(`INSERT INTO posts (id, title, body, author_id, created_at, updated_at) VALUES (1, 'Hello', 'Body', 1, ${at}, ${at})`);
    await run('INSERT INTO post_tags (post_id, tag_id) VALUES (1, 1), (1, 2)');
    await run(`INSERT INTO replies (id, post_id, body, author_id, created_at, updated_at) VALUES (1, 1, 'Nice', 1, ${at}, ${at})`);

    await migrate(sequelize, [migrations]);

    const select = <T extends object>(sql: string): Promise<T[]> => sequelize.query<T>(sql, { type: QueryTypes.SELECT });
    expect(await select('SELECT id, name FROM tags ORDER BY id')).toEqual([{ id: 1, name: 'one' }, { id: 2, name: 'two' }]);
    expect(await select('SELECT post_id, tag_id FROM post_tags ORDER BY tag_id')).toEqual([{ post_id: 1, tag_id: 1 }, { post_id: 1, tag_id: 2 }]);
    expect(await select('SELECT id, body FROM replies')).toEqual([{ id: 1, body: 'Nice' }]);
    const counts = await select<{ table_name: string; row_count: number | string }>('SELECT table_name, row_count FROM row_counts ORDER BY table_name');
    expect(counts.map((row) => [row.table_name, Number(row.row_count)])).toEqual([
      ['personal_access_tokens', 0],
      ['post_tags', 2],
      ['posts', 1],
      ['replies', 1],
      ['sessions', 0],
      ['tags', 2],
      ['users', 1],
    ]);
    expect(sortedSchema(await introspectSchema(sequelize))).toEqual(await freshFromDeclarations('examples/blog'));
  });
});

describe("the comment service's table versions (0007)", () => {
  test('a database from before them keeps its counts, gains the versions, and loses them again when 0007 is undone', async () => {
    const sequelize = await database();
    const { migrations } = applicationAt('.');
    const tables = async (): Promise<Schema['tables']> => (await introspectSchema(sequelize)).tables;
    // A fresh reader each time: a server's waits a minute before it asks again for versions it found missing.
    const versions = async (): Promise<string | null> => (await new RowCounts(sequelize).versions(['comments', 'users']))?.versions ?? null;
    const count = async (table: string): Promise<number | null> => rowCounts(sequelize).count(table);
    const at = "'2026-01-01 00:00:00'";
    await migrateTo(sequelize, [migrations], { kind: 'named', prefix: '0006' });
    // As the framework before versions made it.
    await sequelize.query('ALTER TABLE row_counts DROP COLUMN version');
    await sequelize.query(`INSERT INTO users (id, username, email, password, created_at, updated_at) VALUES (1, 'ann', 'ann@example.com', 'x', ${at}, ${at})`);
    await sequelize.query(`INSERT INTO comments (title, body, user_id, created_at, updated_at) VALUES ('a', 'b', 1, ${at}, ${at}), ('c', 'd', 1, ${at}, ${at})`);
    expect((await tables()).comments).toMatchObject({ rowCounter: true });
    expect((await tables()).comments?.rowVersion).toBeUndefined();
    expect(await versions()).toBeNull();

    await migrate(sequelize, [migrations]);
    expect((await tables()).comments).toMatchObject({ rowCounter: true, rowVersion: true });
    expect((await tables()).users).toMatchObject({ rowCounter: true, rowVersion: true });
    const first = await versions();
    expect(first).not.toBeNull();
    expect([await count('comments'), await count('users')]).toEqual([2, 1]);

    await migrateTo(sequelize, [migrations], { kind: 'named', prefix: '0006' });
    expect((await tables()).comments).toMatchObject({ rowCounter: true });
    expect((await tables()).comments?.rowVersion).toBeUndefined();
    expect((await tables()).users?.rowCounter).toBeUndefined();
    expect(await versions()).toBeNull();
    // The count goes on without its version.
    await sequelize.query(`INSERT INTO comments (title, body, user_id, created_at, updated_at) VALUES ('e', 'f', 1, ${at}, ${at})`);
    expect(await count('comments')).toBe(3);

    // Made again, the versions start elsewhere: no tag of the first ones can name the new rows.
    await migrate(sequelize, [migrations]);
    const again = await versions();
    expect(again).not.toBeNull();
    expect(again).not.toBe(first);
  });
});
