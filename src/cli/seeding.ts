import type { SeedOutcome } from '../db/seeder.js';
import type { Translate } from '../i18n.js';
import { ProblemList } from '../userdata/problems.js';
import { CommandFailed } from './accounts.js';
import { problemLines } from './userdata.js';

/** What a seed run did, for people: the seeders applied, the demo accounts they made, what production skipped. */
export function seedLines(t: Translate, outcome: SeedOutcome): string[] {
  const lines = outcome.applied.map(({ name }) => t('seed.applied', { name }));
  if (lines.length === 0) lines.push(t('seed.none'));
  const accounts = outcome.applied.flatMap(({ result }) => result.accounts ?? []);
  if (accounts.length > 0) {
    lines.push(t('seed.accounts'));
    for (const account of accounts) lines.push(t('seed.account', { ...account, role: t(`seed.role.${account.role}`) }));
  }
  if (outcome.skipped.length > 0) lines.push(t('seed.skipped', { names: outcome.skipped.join(', ') }));
  return lines;
}

/** A seeder that fails on its data file is reported like loaddata; umzug wraps what a seeder throws. */
export function seedFailure(t: Translate, error: unknown): unknown {
  const cause = error instanceof Error && error.cause instanceof ProblemList ? error.cause : error;
  return cause instanceof ProblemList ? new CommandFailed(problemLines(t, cause)) : error;
}
