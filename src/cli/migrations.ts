/**
 * `manage makemigrations`: the next migration from the declarations, asked
 * about what looks like a renamed column; `--check` for CI.
 */
import path from 'node:path';
import { loadConfig } from '../config.js';
import type { Translate } from '../i18n.js';
import { applicationAt, MIGRATIONS_ENTRY } from '../paths.js';
import { applicationDeclarations } from '../registry.js';
import { parseRename, possibleRenames, type Finding, type Rename } from '../schema/diff.js';
import { draftMigration, migratedSchema, writeDraft, type DraftOptions, type MigrationDraft } from '../schema/makemigrations.js';
import { declaredSchema } from '../schema/declared.js';
import type { Schema } from '../schema/model.js';
import { describeOperation } from '../schema/writer.js';
import { CommandFailed } from './accounts.js';
import type { CliIO } from './io.js';

export interface MakeMigrationsOptions {
  name?: string;
  check?: boolean;
  dryRun?: boolean;
  rename?: string[];
}

function givenRenames(t: Translate, given: readonly string[]): Rename[] {
  return given.map((text) => {
    const rename = parseRename(text);
    if (!rename) throw new CommandFailed([t('makemigrations.bad_rename', { value: text })]);
    return rename;
  });
}

/**
 * Why each `--rename` cannot be made, if it cannot: it must take a column the
 * migrations made and the declarations no longer have to one the declarations
 * have and the migrations did not make. Anything else would be left out of the
 * migration, or written into one that fails at `migrate`.
 */
function wrongRenames(t: Translate, renames: readonly Rename[], migrated: Schema, declared: Schema): string[] {
  return renames.flatMap((rename) => {
    const before = migrated.tables[rename.table]?.columns;
    const after = declared.tables[rename.table]?.columns ?? {};
    let key: string | undefined;
    if (!before) key = 'rename_unknown_table';
    else if (!Object.hasOwn(before, rename.from)) key = 'rename_unknown_column';
    else if (Object.hasOwn(after, rename.from)) key = 'rename_still_declared';
    else if (!Object.hasOwn(after, rename.to)) key = 'rename_not_declared';
    else if (Object.hasOwn(before, rename.to)) key = 'rename_taken';
    const value = `${rename.table}.${rename.from}:${rename.to}`;
    return key ? [t(`makemigrations.${key}`, { value, ...rename, columns: Object.keys(before ?? {}).join(', ') })] : [];
  });
}

/** At a terminal, each column that looks renamed is asked about, as Django's makemigrations asks. */
async function askedRenames(io: CliIO, t: Translate, options: DraftOptions): Promise<Rename[]> {
  const given = options.renames ?? [];
  if (!io.interactive) return [...given];
  const candidates = possibleRenames(options.migrated ?? (await migratedSchema(options.dir, options.compiledDir)), declaredSchema(options.declarations));
  const renames = [...given];
  for (const candidate of candidates) {
    if (given.some((rename) => rename.table === candidate.table && (rename.from === candidate.from || rename.to === candidate.to))) continue;
    if (await io.prompter.confirm(t('makemigrations.ask_rename', { ...candidate }))) renames.push(candidate);
  }
  return renames;
}

const findingLine = (t: Translate, finding: Finding): string => t(`makemigrations.${finding.key}`, finding.values);

function report(t: Translate, draft: MigrationDraft): { lines: string[]; warnings: string[]; refused: string[] } {
  const { operations, findings } = draft.change;
  return {
    lines: operations.map((operation) => `  ${describeOperation(operation)}`),
    warnings: findings.filter((finding) => finding.kind === 'warning').map((finding) => findingLine(t, finding)),
    refused: findings.filter((finding) => finding.kind === 'refused').map((finding) => findingLine(t, finding)),
  };
}

export async function makeMigrations(io: CliIO, t: Translate, options: MakeMigrationsOptions): Promise<void> {
  const write = (lines: readonly string[], stream = io.stdout): void => void (lines.length > 0 && stream.write(`${lines.join('\n')}\n`));
  const application = applicationAt(loadConfig(io.env).appRoot);
  const declarations = await applicationDeclarations(application.resources);
  const renames = givenRenames(t, options.rename ?? []);
  // Read once for the renames and the draft: without a snapshot it means running every migration.
  const migrated = await migratedSchema(application.migrationSources, application.migrations);
  const wrong = wrongRenames(t, renames, migrated, declaredSchema(declarations));
  if (wrong.length > 0) throw new CommandFailed(wrong);
  const draftOptions: DraftOptions = {
    dir: application.migrationSources,
    compiledDir: application.migrations,
    migrationsEntry: MIGRATIONS_ENTRY,
    declarations,
    ...(options.name ? { name: options.name } : {}),
    renames,
    migrated,
  };
  const shown = path.relative(process.cwd(), application.migrationSources) || '.';
  if (!options.check) draftOptions.renames = await askedRenames(io, t, draftOptions);
  const draft = await draftMigration(draftOptions);
  if (!draft) return write([t('makemigrations.none')]);
  const { lines, warnings, refused } = report(t, draft);
  if (options.check) throw new CommandFailed([t('makemigrations.check_failed', { dir: shown }), ...lines]);
  if (refused.length > 0) throw new CommandFailed([...lines, ...refused]);
  write(warnings, io.stderr);
  if (options.dryRun) return write([t('makemigrations.would_write', { file: path.join(shown, draft.file) }), ...lines]);
  writeDraft(application.migrationSources, draft);
  write([t('makemigrations.written', { file: path.join(shown, draft.file) }), ...lines]);
}
