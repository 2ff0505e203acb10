/**
 * Django's makemigrations for the declarations: the schema they need is
 * compared with the one the migrations have built so far (kept as
 * `schema.json` beside them), and the difference becomes the next migration.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Sequelize } from 'sequelize';
import { clock } from '../clock.js';
import { migrationFiles } from '../db/migration-files.js';
import { migrate } from '../db/migrator.js';
import { declaredSchema } from './declared.js';
import { diffSchemas, inverseOf, type Operation, type Rename, type SchemaChange } from './diff.js';
import { introspectSchema } from './introspect.js';
import { emptySchema, sortedSchema, type Schema } from './model.js';
import { readSnapshot, snapshotPath } from './snapshot.js';
import { migrationSource } from './writer.js';
import type { ResourceDeclaration } from '../types/resource.js';

/** The number the next migration takes: one past the highest `NNNN_` prefix. */
function nextNumber(dir: string): string {
  const numbers = migrationFiles(dir).map((file) => /^(\d{4})_/.exec(file)?.[1]).filter((number) => number !== undefined).map(Number);
  return String(Math.max(0, ...numbers) + 1).padStart(4, '0');
}

/** The schema a folder of migrations builds, by running them on an empty in-memory SQLite database and reading what they made. */
export async function builtSchema(dir: string): Promise<Schema> {
  const sequelize = new Sequelize('sqlite::memory:', { logging: false });
  try {
    await migrate(sequelize, [dir]);
    return sortedSchema(await introspectSchema(sequelize));
  } finally {
    await sequelize.close();
  }
}

/**
 * The schema the migrations leave: the snapshot when there is one; built
 * from them (`compiledDir`: where they can be run) when they predate it;
 * empty when there are none.
 */
export async function migratedSchema(dir: string, compiledDir = dir): Promise<Schema> {
  const snapshot = readSnapshot(dir);
  if (snapshot) return snapshot;
  if (migrationFiles(dir).length === 0) return emptySchema();
  return builtSchema(compiledDir);
}

export interface MigrationDraft {
  /** The new migration's file name, e.g. `0006_posts_rating.ts`. */
  file: string;
  source: string;
  /** The schema after it, for schema.json. */
  snapshot: Schema;
  change: SchemaChange;
}

function automaticName(operations: readonly Operation[]): string {
  const [only] = operations;
  if (operations.length === 1 && only) {
    if (only.op === 'createTable' || only.op === 'dropTable') return `${only.op === 'createTable' ? 'create' : 'drop'}_${only.table}`;
    if (only.op === 'addColumn') return `${only.table}_${only.column}`;
    if (only.op === 'removeColumn') return `remove_${only.table}_${only.column}`;
  }
  const now = new Date(clock().reading()).toISOString();
  return `auto_${now.slice(0, 10).replace(/-/g, '')}_${now.slice(11, 16).replace(':', '')}`;
}

export interface DraftOptions {
  /** The application's migrations folder, in its sources. */
  dir: string;
  /** Where those migrations can be run (compiled), for an application without a snapshot yet. */
  compiledDir?: string;
  /** The framework's public entry for migrations, which the generated file imports from (`MIGRATIONS_ENTRY`). */
  migrationsEntry: string;
  declarations: readonly ResourceDeclaration[];
  name?: string;
  renames?: readonly Rename[];
  /** The schema the migrations leave, when the caller has read it already (`migratedSchema`). */
  migrated?: Schema;
}

/** The next migration, or null when the migrations already build what the declarations need. */
export async function draftMigration(options: DraftOptions): Promise<MigrationDraft | null> {
  const before = options.migrated ?? (await migratedSchema(options.dir, options.compiledDir));
  const after = sortedSchema(declaredSchema(options.declarations));
  const change = diffSchemas(before, after, options.renames);
  if (change.operations.length === 0) return null;
  const number = nextNumber(options.dir);
  const name = (options.name ?? automaticName(change.operations)).replace(/\W+/g, '_').toLowerCase();
  const source = migrationSource({ migrationsEntry: options.migrationsEntry, up: change.operations, down: inverseOf(change.operations) });
  return { file: `${number}_${name}.ts`, source, snapshot: after, change };
}

/** The migration beside the others, and the snapshot it leaves. */
export function writeDraft(dir: string, draft: MigrationDraft): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, draft.file);
  writeFileSync(file, draft.source);
  writeFileSync(snapshotPath(dir), `${JSON.stringify(draft.snapshot, null, 2)}\n`);
  return file;
}

