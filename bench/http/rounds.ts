/**
 * The parties of a row of bench/http.ts driven in rounds: the server, its
 * ceiling and its same-stack reference (and for a 304 row the server's full
 * read of the same URL), all started before, each warmed up in turn, then
 * driven one slice each a round (--slice, 2 s), the order turned by one from
 * round to round so that none always goes first, until each has had
 * --duration seconds. The machine's speed drifts over tens of seconds: a
 * ratio of two parties compares numbers taken in the same seconds. A party's
 * load is the aggregate of its slices (load.ts, combineSlices).
 */
import { isInterrupted, progress } from '../lib/processes.js';
import { formatNumber } from '../lib/report.js';
import { combineSlices, loadProblems, perSecond, runLoad, warmUp, type Load, type LoadSpec } from './load.js';
import type { Options } from './options.js';

export type PartyName = 'server' | 'ceiling' | 'reference' | 'full read';

export interface Party {
  /** Also the phase its problems are reported under ("server: 3× status 500"). */
  name: PartyName;
  /** Its URL and request; the seconds are each slice's. */
  spec: LoadSpec;
}

/** The seconds of each round: a slice each, the last one what is left of the duration (10 in slices of 2: 2, 2, 2, 2, 2; 5: 2, 2, 1). */
export function roundSeconds(durationSeconds: number, sliceSeconds: number): number[] {
  const rounds = Math.ceil(durationSeconds / sliceSeconds);
  return Array.from({ length: rounds }, (_, round) => Math.min(sliceSeconds, durationSeconds - round * sliceSeconds));
}

/** The parties in the order of round `round` (from 0): the list turned by one a round. */
export function inTurn<T>(parties: readonly T[], round: number): T[] {
  const shift = parties.length === 0 ? 0 : round % parties.length;
  return [...parties.slice(shift), ...parties.slice(0, shift)];
}

/** How the rows are measured, for the report's settings line. */
export function describeRounds(options: Options): string {
  const rounds = roundSeconds(options.durationSeconds, options.sliceSeconds);
  const slices = rounds.every((seconds) => seconds === rounds[0]) ? `${rounds.length} × ${rounds[0] ?? 0} s` : `${rounds.join(' + ')} s`;
  return `${options.durationSeconds} s per party in rounds (${slices}), after a ${options.warmupSeconds} s warm-up each`;
}

/** The legend of the rows table: what a row's numbers are. */
export const ROUNDS_LEGEND =
  'Each row: the server, the ceiling and the reference (a 304 row: also the server\'s full read of the same URL, without If-None-Match) ' +
  'started together, warmed up in turn, then driven one slice each a round, the order turning from round to round, so that its ratios compare ' +
  'the same seconds; req/s is a party\'s requests over the seconds of its slices, p50 and p99 the median of its slices\' p50 and p99.';

/** Each party's warm-up in turn (its problems count, its numbers do not); Ctrl-C stops it. */
export async function warmParties(parties: readonly Party[], seconds: number, problems: string[]): Promise<void> {
  for (const party of parties) {
    if (isInterrupted()) return;
    await warmUp(party.spec, seconds, `${party.name} warm-up`, problems);
  }
}

function reportRound(round: number, count: number, order: readonly Party[], slices: ReadonlyMap<PartyName, Load[]>): void {
  const rate = (party: Party): number => {
    const slice = slices.get(party.name)?.[round];
    return slice ? perSecond(slice) : NaN;
  };
  const rates = order.map((party) => `${party.name} ${formatNumber(rate(party))}`);
  progress(`    round ${round + 1}/${count}: ${rates.join(', ')} req/s`);
}

/**
 * The rounds: each party driven for one slice a round, in turn; `eachRound`
 * after every round (it may throw: the server has ended). Ctrl-C ends them
 * after the slice it stops. Returns each party's load, the aggregate of its
 * slices (none for a party Ctrl-C left without one), its problems (`problems`)
 * weighed on that aggregate.
 */
export async function driveInRounds(parties: readonly Party[], options: Options, problems: string[], eachRound: () => void): Promise<Map<PartyName, Load>> {
  const slices = new Map<PartyName, Load[]>(parties.map((party) => [party.name, []]));
  const rounds = roundSeconds(options.durationSeconds, options.sliceSeconds);
  for (const [round, seconds] of rounds.entries()) {
    const order = inTurn(parties, round);
    for (const party of order) {
      if (isInterrupted()) break;
      slices.get(party.name)?.push(await runLoad({ ...party.spec, seconds }));
    }
    if (isInterrupted()) break;
    reportRound(round, rounds.length, order, slices);
    eachRound();
  }
  const loads = new Map<PartyName, Load>();
  for (const party of parties) {
    const measured = slices.get(party.name) ?? [];
    if (measured.length === 0) continue;
    const load = combineSlices(measured);
    problems.push(...loadProblems(load, party.spec.row, party.name));
    loads.set(party.name, load);
  }
  return loads;
}
