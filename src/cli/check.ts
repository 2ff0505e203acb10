/**
 * `manage check [--deploy]`: the system checks (src/checks.ts) listed as
 * Django lists them, errors first; exit 1 when one is at or above
 * `--fail-level`. It needs no database.
 */
import { applicationChecks, deploymentChecks, type CheckLevel, type CheckMessage } from '../checks.js';
import { loadConfig } from '../config.js';
import { checkDeclarations } from '../declaration-checks.js';
import type { Translate } from '../i18n.js';
import { applicationAt } from '../paths.js';
import { loadDeclarations } from '../registry.js';
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
    const declarations = await loadDeclarations(application.resources);
    checkDeclarations(declarations);
    return applicationChecks(application, declarations);
  } catch (error) {
    // What the declarations get wrong stops every check that reads them.
    return [{ id: 'declarations.E001', level: 'error', key: 'declaration', params: { message: (error as Error).message } }];
  }
}

function section(t: Translate, heading: string, found: readonly CheckMessage[]): string[] {
  if (found.length === 0) return [];
  return [t(heading), ...found.map((message) => `(${message.id}) ${t(`check.messages.${message.key}`, message.params)}`), ''];
}

export async function runChecks(io: CliIO, t: Translate, options: CheckOptions): Promise<void> {
  const config = loadConfig(io.env);
  const found = [...(await declarationChecks(config.appRoot)), ...(options.deploy ? deploymentChecks(config) : [])];
  if (found.length === 0) return void io.stdout.write(`${t('check.none')}\n`);
  const errors = found.filter((message) => message.level === 'error');
  const warnings = found.filter((message) => message.level === 'warning');
  const lines = [t('check.some'), '', ...section(t, 'check.errors', errors), ...section(t, 'check.warnings', warnings), t('check.count', { count: found.length })];
  const failed = errors.length > 0 || (options.failLevel === 'warning' && warnings.length > 0);
  if (failed) throw new CommandFailed(lines);
  // Warnings that pass go where Django writes them too: beside the output, not in it.
  io.stderr.write(`${lines.join('\n')}\n`);
}
