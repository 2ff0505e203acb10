import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import type { Sequelize } from 'sequelize';
import { openDatabase } from '../../../src/db/database.js';
import { createMigrator } from '../../../src/db/migrator.js';
import { applicationAt } from '../../../src/paths.js';
import { introspectSchema, introspectTable } from '../../../src/schema/introspect.js';
import type { Schema } from '../../../src/schema/model.js';
import { createTestDatabase, type TestDatabase } from '../../helpers/database.js';

// The same expectations on SQLite and PostgreSQL: the introspection's whole point is that they read alike.
describe('introspecting the blog’s hand-written migrations', () => {
  let sequelize: Sequelize;
  let database: TestDatabase;
  let schema: Schema;

  beforeAll(async () => {
    database = await createTestDatabase();
    sequelize = openDatabase(database.url);
    // The hand-written migrations only: later ones, generated from the declarations, may change what is expected here.
    await createMigrator(sequelize, [applicationAt('examples/blog').migrations]).up({ to: '0006_create_replies' });
    schema = await introspectSchema(sequelize);
  });
  afterAll(async () => {
    await sequelize.close();
    await database.drop();
  });

  const datetime = (nullable: boolean) => ({ type: 'datetime', nullable });
  const serial = { type: 'integer', nullable: false, primaryKey: true, autoIncrement: true };

  test('lists every table by name, without bookkeeping or text-index tables', () => {
    expect(Object.keys(schema.tables)).toEqual(['personal_access_tokens', 'post_tags', 'posts', 'replies', 'sessions', 'tags', 'users']);
  });

  test('users has its column defaults, a unique column and the lower(email) unique index', () => {
    expect(schema.tables.users).toEqual({
      columns: {
        id: serial,
        username: { type: 'string(150)', nullable: false, unique: true },
        name: { type: 'string(255)', nullable: false, default: '' },
        email: { type: 'string(254)', nullable: false },
        password: { type: 'string(255)', nullable: false },
        is_superuser: { type: 'boolean', nullable: false, default: false },
        is_staff: { type: 'boolean', nullable: false, default: false },
        is_active: { type: 'boolean', nullable: false, default: true },
        last_login: datetime(true),
        created_at: datetime(false),
        updated_at: datetime(false),
      },
      indexes: { users_email_lower_unique: { columns: ['lower(email)'], unique: true } },
    });
  });

  test('the join table has a composite primary key of two foreign keys and its reverse index', () => {
    expect(schema.tables.post_tags).toEqual({
      columns: {
        post_id: { type: 'integer', nullable: false, primaryKey: true, references: { table: 'posts', column: 'id', onDelete: 'CASCADE' } },
        tag_id: { type: 'integer', nullable: false, primaryKey: true, references: { table: 'tags', column: 'id', onDelete: 'CASCADE' } },
      },
      indexes: { post_tags_tag_id_post_id: { columns: ['tag_id', 'post_id'] } },
    });
  });

  test('posts has every type, its text index in column order and a row counter', () => {
    expect(schema.tables.posts).toEqual({
      columns: {
        id: serial,
        title: { type: 'string(200)', nullable: false },
        body: { type: 'text', nullable: false, default: '' },
        status: { type: 'string(9)', nullable: false, default: 'draft' },
        published_at: datetime(true),
        reading_minutes: { type: 'integer', nullable: true },
        price: { type: 'decimal(8,2)', nullable: true },
        metadata: { type: 'json', nullable: true },
        publish_on: { type: 'date', nullable: true },
        author_id: { type: 'integer', nullable: false, references: { table: 'users', column: 'id', onDelete: 'CASCADE' } },
        created_at: datetime(false),
        updated_at: datetime(false),
      },
      indexes: {
        posts_author_id_created_at_id: { columns: ['author_id', 'created_at', 'id'] },
        posts_created_at_id: { columns: ['created_at', 'id'] },
        posts_published_at_id: { columns: ['published_at', 'id'] },
        posts_status_created_at_id: { columns: ['status', 'created_at', 'id'] },
        posts_title_id: { columns: ['title', 'id'] },
      },
      textIndex: ['title', 'body'],
      rowCounter: true,
    });
  });

  test('a named unique index of one column makes that column unique and is not listed', () => {
    expect(schema.tables.tags).toEqual({
      columns: { id: serial, name: { type: 'string(50)', nullable: false, unique: true }, created_at: datetime(false), updated_at: datetime(false) },
      indexes: {},
      textIndex: ['name'],
    });
  });

  test('a self-reference that sets null and a text primary key read as declared', () => {
    expect(schema.tables.replies?.columns.parent_id).toEqual({ type: 'integer', nullable: true, references: { table: 'replies', column: 'id', onDelete: 'SET NULL' } });
    expect(schema.tables.sessions?.columns.sid).toEqual({ type: 'string(36)', nullable: false, primaryKey: true });
  });

  test('one table reads as it does in the whole schema, and a missing one as undefined', async () => {
    expect(await introspectTable(sequelize, 'tags')).toEqual(schema.tables.tags);
    expect(await introspectTable(sequelize, 'no_such_table')).toBeUndefined();
  });

  test('the result survives a JSON round trip unchanged: no undefined keys', () => {
    expect(JSON.parse(JSON.stringify(schema))).toStrictEqual(schema);
  });
});

describe('introspecting a table built by hand', () => {
  let sequelize: Sequelize;
  let database: TestDatabase;

  afterEach(async () => {
    await sequelize.close();
    await database.drop();
  });

  test('bigint, decimal and boolean defaults, a multi-column unique index, an expression index, a partial unique index and a restricting key read alike on both databases', async () => {
    database = await createTestDatabase();
    sequelize = openDatabase(database.url);
    await sequelize.query('CREATE TABLE accounts (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL)');
    await sequelize.query(
      `CREATE TABLE entries (
        id BIGINT PRIMARY KEY,
        account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE RESTRICT,
        amount DECIMAL(8,2) NOT NULL DEFAULT 9.99,
        settled BOOLEAN NOT NULL DEFAULT true,
        note VARCHAR(40) DEFAULT 'it''s',
        quantity INTEGER DEFAULT -1,
        booked_on DATE
      )`,
    );
    await sequelize.query('CREATE UNIQUE INDEX entries_account_id_booked_on ON entries (account_id, booked_on)');
    await sequelize.query('CREATE INDEX entries_lower_note ON entries (lower(note), quantity DESC)');
    // Unique only where the predicate holds: the column is not unique on its own.
    await sequelize.query('CREATE UNIQUE INDEX entries_open_note ON entries (note) WHERE settled = false');

    expect(await introspectSchema(sequelize)).toEqual({
      tables: {
        accounts: { columns: { id: { type: 'integer', nullable: false, primaryKey: true }, name: { type: 'string(20)', nullable: false } }, indexes: {} },
        entries: {
          columns: {
            id: { type: 'bigint', nullable: false, primaryKey: true },
            account_id: { type: 'integer', nullable: false, references: { table: 'accounts', column: 'id', onDelete: 'RESTRICT' } },
            amount: { type: 'decimal(8,2)', nullable: false, default: 9.99 },
            settled: { type: 'boolean', nullable: false, default: true },
            note: { type: 'string(40)', nullable: true, default: "it's" },
            quantity: { type: 'integer', nullable: true, default: -1 },
            booked_on: { type: 'date', nullable: true },
          },
          indexes: {
            entries_account_id_booked_on: { columns: ['account_id', 'booked_on'], unique: true },
            entries_lower_note: { columns: ['lower(note)', 'quantity'] },
            entries_open_note: { columns: ['note'], unique: true },
          },
        },
      },
    });
  });
});
