/**
 * What a server tells at start, as Django's runserver does ("Your models have
 * changes that are not yet reflected in a migration"): a declaration changed
 * without `makemigrations` would otherwise only show as every request to it
 * failing. Read from the migrations' snapshot: nothing is built or run.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ApplicationPaths } from '../paths.js';
import type { ResourceDeclaration } from '../resource.js';
import { declaredSchema } from './declared.js';
import { diffSchemas } from './diff.js';
import { emptySchema, SNAPSHOT_FILE, sortedSchema, type Schema } from './model.js';
import { describeOperation } from './writer.js';

const MIGRATION_SOURCE = /^(\d{4}_\w+)\.ts$/;

export interface Unmigrated {
  /** What the declarations need that no migration makes, one line each (as `makemigrations --check` lists it). */
  changes: string[];
  /** Migrations written but not compiled, which the server cannot run (`npm start` builds them; `node dist/…` does not). */
  uncompiled: string[];
}

export function unmigrated(application: ApplicationPaths, declarations: readonly ResourceDeclaration[]): Unmigrated {
  const sources = application.migrationSources;
  const snapshot = path.join(sources, SNAPSHOT_FILE);
  const written = existsSync(sources) && readdirSync(sources).some((file) => MIGRATION_SOURCE.test(file));
  // No snapshot: the migrations predate makemigrations (building theirs would take too long here), or there are none yet.
  const migrated = existsSync(snapshot) ? (JSON.parse(readFileSync(snapshot, 'utf8')) as Schema) : written ? null : emptySchema();
  const changes = migrated ? diffSchemas(migrated, sortedSchema(declaredSchema(declarations))).operations.map(describeOperation) : [];
  const compiled = new Set(existsSync(application.migrations) ? readdirSync(application.migrations) : []);
  const uncompiled =
    sources === application.migrations || !existsSync(sources)
      ? []
      : readdirSync(sources)
          .map((file) => MIGRATION_SOURCE.exec(file)?.[1])
          .filter((name): name is string => name !== undefined && !compiled.has(`${name}.js`));
  return { changes, uncompiled };
}
