/**
 * What a server tells at start, as Django's runserver does ("Your models have
 * changes that are not yet reflected in a migration"): a declaration changed
 * without `makemigrations` would otherwise only show as every request to it
 * failing. Read from the migrations' snapshot: nothing is built or run.
 */
import { migrationFiles, migrationName } from '../db/migration-files.js';
import type { ApplicationPaths } from '../paths.js';
import { declaredSchema } from './declared.js';
import { diffSchemas } from './diff.js';
import { emptySchema, sortedSchema } from './model.js';
import { readSnapshot } from './snapshot.js';
import { describeOperation } from './writer.js';
import type { ResourceDeclaration } from '../types/resource.js';

export interface Unmigrated {
  /** What the declarations need that no migration makes, one line each (as `makemigrations --check` lists it). */
  changes: string[];
  /** Migrations written but not compiled, which the server cannot run (`npm start` builds them; `node dist/…` does not). */
  uncompiled: string[];
}

/** The migrations of the folder `dir` by name. */
const migrationsIn = (dir: string): string[] => migrationFiles(dir).map(migrationName);

export function unmigrated(application: ApplicationPaths, declarations: readonly ResourceDeclaration[]): Unmigrated {
  const sources = application.migrationSources;
  const written = migrationsIn(sources);
  // No snapshot: the migrations predate makemigrations (building theirs would take too long here), or there are none yet.
  const migrated = readSnapshot(sources) ?? (written.length > 0 ? null : emptySchema());
  const changes = migrated ? diffSchemas(migrated, sortedSchema(declaredSchema(declarations))).operations.map(describeOperation) : [];
  const compiled = new Set(migrationsIn(application.migrations));
  const uncompiled = sources === application.migrations ? [] : written.filter((name) => !compiled.has(name));
  return { changes, uncompiled };
}
