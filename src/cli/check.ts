/**
 * `manage check [--deploy]`: the system checks (src/checks.ts) listed as
 * Django lists them, errors first; exit 1 when one is at or above
 * `--fail-level`. It needs no database.
 */
import path from 'node:path';
import { importApplicationModule } from '../application-code.js';
import { migrationFiles } from '../db/migration-files.js';
import { applicationChecks, deploymentChecks, type CheckLevel, type CheckMessage } from '../checks.js';
import { loadConfig } from '../config.js';
import { checkDeclarations } from '../declaration-checks.js';
import type { Translate } from '../i18n.js';
import { applicationAt } from '../paths.js';
import { applicationDeclarations } from '../registry.js';
import { CommandFailed } from './accounts.js';
import type { CliIO } from './io.js';

export interface CheckOptions {
  deploy?: boolean;
  failLevel: CheckLevel;
}

export const FAIL_LEVELS: readonly CheckLevel[] = ['error', 'warning'];

async function declarationChecks(appRoot: string): Promise<CheckMessage[]> {
  const application = applicationAt(appRoot);
  try {
    const declarations = await applicationDeclarations(application.resources);
    checkDeclarations(declarations);
    return applicationChecks(application, declarations);
  } catch (error) {
    // What the declarations get wrong stops every check that reads them.
    return [{ id: 'declarations.E001', level: 'error', key: 'declaration', params: { message: (error as Error).message } }];
  }
}

/** Each file of `dir` that could not be imported, or whose exports are not what `usable` wants: a mistake that would stop the start. */
async function unloadable(dir: string, id: string, key: string, usable: (module: Record<string, unknown>) => boolean): Promise<CheckMessage[]> {
  const found: CheckMessage[] = [];
  // Seeders' files are named and listed as migrations' are.
  for (const name of migrationFiles(dir)) {
    const file = path.join(dir, name);
    const shown = path.relative(process.cwd(), file) || file;
    try {
      const module = (await importApplicationModule(file)) as Record<string, unknown>;
      if (!usable(module)) found.push({ id, level: 'error', key, params: { file: shown, message: '' } });
    } catch (error) {
      found.push({ id, level: 'error', key, params: { file: shown, message: (error as Error).message } });
    }
  }
  return found;
}

/** Migrations and seeders that the start would fail to load, named by their files. */
async function codeChecks(appRoot: string): Promise<CheckMessage[]> {
  const application = applicationAt(appRoot);
  const migration = (module: Record<string, unknown>): boolean => typeof module.up === 'function';
  const seeder = (module: Record<string, unknown>): boolean => typeof (module.default as { run?: unknown } | undefined)?.run === 'function';
  return [...(await unloadable(application.migrations, 'migrations.E002', 'unloadable_migration', migration)), ...(await unloadable(application.seeders, 'seeders.E001', 'unloadable_seeder', seeder))];
}

function section(t: Translate, heading: string, found: readonly CheckMessage[]): string[] {
  if (found.length === 0) return [];
  return [t(heading), ...found.map((message) => `(${message.id}) ${t(`check.messages.${message.key}`, message.params)}`), ''];
}

export async function runChecks(io: CliIO, t: Translate, options: CheckOptions): Promise<void> {
  const config = loadConfig(io.env);
  const found = [...(await declarationChecks(config.appRoot)), ...(await codeChecks(config.appRoot)), ...(options.deploy ? deploymentChecks(config) : [])];
  if (found.length === 0) return void io.stdout.write(`${t('check.none')}\n`);
  const errors = found.filter((message) => message.level === 'error');
  const warnings = found.filter((message) => message.level === 'warning');
  const lines = [t('check.some'), '', ...section(t, 'check.errors', errors), ...section(t, 'check.warnings', warnings), t('check.count', { count: found.length })];
  const failed = errors.length > 0 || (options.failLevel === 'warning' && warnings.length > 0);
  if (failed) throw new CommandFailed(lines);
  // Warnings that pass go where Django writes them too: beside the output, not in it.
  io.stderr.write(`${lines.join('\n')}\n`);
}
