/**
 * The targets of bench/http.ts, weighed once every row is in (reported, never
 * a failure): each row's (rows.ts: a share of its ceiling or of the same-stack
 * reference, or a 304 row's multiple of its full read's requests/s, all
 * measured in the row's rounds), and the Django comparison's.
 */
import { formatNumber } from '../lib/report.js';
import type { Load } from './load.js';
import type { RowResult, TargetResult } from './measure-row.js';
import type { RowTarget } from './rows.js';

/** Bearer `GET /api/comments/1` over the Django original's session-cookie `GET /comments/`. */
export const DJANGO_SESSION_FACTOR = 3;
/** Basic `GET /comments/` over the Django original's Basic `GET /comments/` (which hashes the password every time). */
export const DJANGO_BASIC_FACTOR = 100;

const percent = (fraction: number): string => `${Math.round(fraction * 1000) / 10}%`;

function rate(load: Load | null): number | null {
  return load === null ? null : load.requestsPerSecond;
}

/** A usable rate of a row: measured, and nothing wrong in its server run. */
function serverRate(row: RowResult | undefined): number | null {
  if (!row?.real || row.problems.some((problem) => problem.startsWith('server') || problem === 'interrupted')) return null;
  return rate(row.real);
}

/** A 304 row's full read, driven in the same rounds: measured, and nothing wrong in it. */
function fullReadRate(row: RowResult): number | null {
  if (row.problems.some((problem) => problem.startsWith('full read'))) return null;
  return rate(row.fullRead);
}

function weigh(target: RowTarget, row: RowResult): TargetResult {
  const check = (actual: number | null, least: number): Pick<TargetResult, 'actual' | 'met'> => ({ actual, met: actual === null ? null : actual >= least });
  switch (target.kind) {
    case 'ceiling':
      return { text: `≥ ${percent(target.fraction)} of ceiling`, ...check(row.ceilingRatio, target.fraction) };
    case 'reference':
      return { text: `≥ ${percent(target.fraction)} of reference`, ...check(row.referenceRatio, target.fraction) };
    case 'full read': {
      const mine = serverRate(row);
      const theirs = fullReadRate(row);
      const factor = mine === null || theirs === null || theirs <= 0 ? null : mine / theirs;
      return { text: `≥ ${target.factor}× the full read`, ...check(factor, target.factor), against: theirs };
    }
  }
}

/** Each row's targets weighed, and whether it met them all (null when one could not be weighed and none failed). */
export function weighTargets(rows: RowResult[]): void {
  for (const row of rows) {
    row.targetResults = row.targets.map((target) => weigh(target, row));
    const verdicts = row.targetResults.map((result) => result.met);
    row.met = verdicts.includes(false) ? false : verdicts.length === 0 || verdicts.includes(null) ? null : true;
  }
}

/** One target's cell: what it asks and what the row did (a 304 row's: of its full read's requests/s, measured in the same rounds). */
export function describeTarget(result: TargetResult): string {
  if (result.actual === null) return `${result.text} (-)`;
  const factor = `${result.actual.toFixed(2)}×`;
  if (result.against !== undefined && result.against !== null) return `${result.text} (${factor} its ${formatNumber(result.against)} req/s, same rounds)`;
  return result.text.includes('×') ? `${result.text} (${factor})` : result.text;
}

export { serverRate };
