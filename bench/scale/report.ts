/** The printed report of bench/scale.ts: a Markdown table per database, then the memory of the long list. */
import { mib } from '../lib/memory.js';
import { describeMachine, dotEnvWarning, formatNumber, formatRange, markdownTable, verdict } from '../lib/report.js';
import type { RunInfo } from '../lib/run.js';
import { COMMON_TERM, OLD_TERMS_UNTIL, RARE_TERM } from '../lib/seed.js';
import type { DatabaseReport, DatabasesOutcome } from './databases.js';
import { GROWTH_TARGET_MIB, MEMORY_SAMPLE_MS, type ListOutcome, type ListReport } from './list.js';
import type { Options } from './options.js';
import { WARMUP_REQUESTS, type Latency } from './timing.js';

/** What each part puts in as it is measured, so that a failure or Ctrl-C keeps what came before. */
export interface Report extends DatabasesOutcome, ListOutcome {
  /** What the reader should know about the run besides (a database left out, and why). */
  notes: string[];
  interrupted: boolean;
}

function milliseconds(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '-';
}

/** A case's verdict: no target, met, not met, or failed (its answers were wrong). */
export function caseVerdict(result: Latency): string {
  if (result.problems.length > 0) return 'FAILED (below)';
  return result.targetMs === null ? '-' : verdict(result.p50Ms < result.targetMs);
}

function casesTable(cases: readonly Latency[]): string {
  const cells = cases.map((result) => [
    result.mode,
    result.case,
    result.what,
    String(result.requests),
    milliseconds(result.p50Ms),
    milliseconds(result.p95Ms),
    milliseconds(result.p99Ms),
    result.targetMs === null ? '-' : `p50 < ${result.targetMs} ms`,
    caseVerdict(result),
  ]);
  return markdownTable(['mode', 'case', 'request', 'requests', 'p50 ms', 'p95 ms', 'p99 ms', 'target', 'met'], cells, ['left', 'left', 'left', 'right', 'right', 'right', 'right', 'left', 'left']);
}

/** The targets a database missed, in a line: a table's `NOT met` are easy to overlook. */
function missedLine(results: DatabaseReport): string {
  const missed = results.cases.filter((result) => result.problems.length === 0 && result.targetMs !== null && !(result.p50Ms < result.targetMs));
  if (missed.length === 0) return `${results.engine}: every target met.`;
  return `${results.engine}: not met: ${missed.map((result) => `${result.case} (p50 ${milliseconds(result.p50Ms)} ms, target ${result.targetMs} ms)`).join('; ')}.`;
}

function databaseSection(results: DatabaseReport, options: Options): string[] {
  const matches = (term: string): string => `"${term}" in ${formatNumber(results.matches[term] ?? 0)}`;
  const { vocabulary, oldTerms } = results;
  return [
    '',
    `${results.engine}: ${formatNumber(results.comments)} comments of ${formatNumber(results.owners)} owners (seeded in ${results.seedSeconds.toFixed(0)} s; ` +
      `search terms ${matches(RARE_TERM)}, ${matches(COMMON_TERM)}, ${vocabulary.terms} more in ${formatRange([vocabulary.fewestMatches, vocabulary.mostMatches])} each, ` +
      `${oldTerms.terms} old ones in ${formatRange([oldTerms.fewestMatches, oldTerms.mostMatches])} each, all among the oldest ${formatNumber(Math.min(results.comments, OLD_TERMS_UNTIL))}); ` +
      `GET /comments/ (${results.pageSize} a page, ${formatNumber(results.pages)} pages by number), ` +
      `HTTP Basic; one request at a time on one keep-alive connection, after ${WARMUP_REQUESTS} warm-up requests; WEB_CONCURRENCY=1, LOG_LEVEL=${options.logLevel}. ` +
      'cold: every request (the warm-up too) a URL the server was never sent, so no kept page can answer it; kept: one URL again and again, ' +
      'the page kept under its tag; sql: the query alone, through the harness\'s own connection. The targets are the cold cases\':',
    '',
    casesTable(results.cases),
    '',
    missedLine(results),
    ...results.cases.flatMap((result) => result.problems.map((problem) => `FAILED: ${results.engine}, ${result.case}: ${problem}`)),
  ];
}

function listTable(list: ListReport): string {
  const cells = list.phases.map((phase) => [
    `GET /api/comments, ${phase.phase}`,
    (phase.responseBytes / 2 ** 20).toFixed(2),
    formatNumber(phase.meanMs),
    formatNumber(phase.maxMs),
    mib(phase.rssBeforeKiB).toFixed(1),
    mib(phase.peakKiB).toFixed(1),
    mib(phase.growthKiB).toFixed(1),
    `≤ ${GROWTH_TARGET_MIB} MiB`,
    phase.problems.length > 0 ? 'FAILED (below)' : verdict(mib(phase.growthKiB) <= GROWTH_TARGET_MIB),
  ]);
  return markdownTable(
    ['requests', 'response MiB', 'mean ms', 'max ms', 'RSS before MiB', 'peak RSS MiB', 'growth MiB', 'target', 'met'],
    cells,
    ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'left', 'left'],
  );
}

function listSection(list: ListReport): string[] {
  return [
    '',
    `Memory of GET /api/comments at ${formatNumber(list.comments)} comments, SQLite (bearer token; one server process; baseline RSS ${mib(list.baselineKiB).toFixed(1)} MiB ` +
      `after the start, a login and one GET /api/comments/1, once settled; peak: VmRSS every ${MEMORY_SAMPLE_MS} ms${list.peakReset ? ' and VmHWM, reset before each phase' : ' (VmHWM could not be reset)'}; growth = peak − baseline):`,
    '',
    listTable(list),
    ...list.phases.flatMap((phase) => phase.problems.map((problem) => `FAILED: GET /api/comments, ${phase.phase}: ${problem}`)),
  ];
}

export function printReport(report: Report, options: Options, { date, commit: measured, machine: about }: RunInfo): void {
  const out: string[] = ['', `Scale benchmark, ${date}, commit ${measured}`, describeMachine(about)];
  const warning = dotEnvWarning();
  if (warning) out.push(warning);
  out.push(...report.notes.map((note) => `note: ${note}`));
  for (const results of report.databases) out.push(...databaseSection(results, options));
  if (report.list) out.push(...listSection(report.list));
  if (report.failures.length > 0) out.push('', ...report.failures.map((failure) => `FAILED: ${failure}`));
  if (report.interrupted) out.push('', 'Interrupted: the results are partial.');
  process.stdout.write(`${out.join('\n')}\n`);
}

export function hasProblems(report: Report): boolean {
  return (
    report.databases.some((results) => results.cases.some((result) => result.problems.length > 0)) ||
    (report.list?.phases.some((phase) => phase.problems.length > 0) ?? false)
  );
}
