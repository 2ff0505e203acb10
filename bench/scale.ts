/**
 * Scale benchmark of the server (issue 8): latency of pages deep into a large
 * table, and the memory of the unpaginated list.
 *
 * What it measures.
 * 1. Pages. A fresh SQLite database gets the migrations, a user `bench` (a
 *    random password, the default 600,000 PBKDF2 iterations) and N comments
 *    (1,000,000 unless told). One server process (`node dist/src/server.js`,
 *    NODE_ENV=production, WEB_CONCURRENCY=1, request log at `info` into a file)
 *    answers, one request at a time on one keep-alive connection (latency, not
 *    throughput), `GET /comments/?page=P` with HTTP Basic for the first page,
 *    the middle one, the last by number and `?page=last`. The first Basic
 *    request (one PBKDF2 check, then the credential cache) and 5 more per case
 *    are a warm-up, not counted. Each answer is checked (status 200, the count,
 *    a full page). Reported: p50, p99 and mean, from sending to the last byte.
 *    Also `count`: the `SELECT count(*) FROM comments` that every page request
 *    runs for its page count, timed alone, through the `sqlite3` module on the
 *    same file, the server idle. Target: any page under 20 ms at p50.
 * 2. Memory of `GET /api/comments` (every comment, unpaginated, bearer token):
 *    another fresh database of M comments (100,000 unless told), another
 *    server process. The baseline is its VmRSS after the start, a login and one
 *    `GET /api/comments/1`, once it stops moving (the admin site loads in the
 *    background after a start, some 70 MiB). Then 5 requests one after the other, then 4 at once,
 *    each body read to its end and thrown away (the first is checked: all M
 *    comments). The peak is the larger of VmRSS sampled every 5 ms and VmHWM
 *    (reset to the current RSS before each phase through /proc/PID/clear_refs).
 *    Growth = peak − baseline. Target: growth at most 50 MiB.
 *
 * Run:
 *   npm run bench:scale
 *   npm run bench:scale -- --comments 100000 --requests 50 --json scale.json
 * Options: --comments N (default 1000000), --requests N per page case (default 200),
 * --max-seconds S per page case (default 60: a case stops there, fewer requests then),
 * --list-comments M (default 100000), --log-level LEVEL (the server's LOG_LEVEL,
 * default info), --json FILE. Ctrl-C (or SIGTERM) stops the run and the server, removes
 * the temporary directory and prints what was measured so far (Ctrl-C twice: at once).
 * Exit status 1 when something fails (a request error, a wrong status or answer, the
 * server ending or not stopping cleanly); a missed target is only reported.
 */
import { mib } from './lib/memory.js';
import { isInterrupted } from './lib/processes.js';
import { describeMachine, dotEnvWarning, formatNumber, markdownTable, verdict } from './lib/report.js';
import { runBenchmark, type RunInfo } from './lib/run.js';
import { benchList, GROWTH_TARGET_MIB, MEMORY_SAMPLE_MS, type ListOutcome, type ListReport } from './scale/list.js';
import { parseOptions, type Options } from './scale/options.js';
import { benchPages, WARMUP_REQUESTS, type Latency, type PagesOutcome } from './scale/pages.js';

// ---------------------------------------------------------------- report

function milliseconds(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '-';
}

function pagesTable(cases: readonly Latency[]): string {
  const cells = cases.map((result) => [
    result.case,
    result.what,
    String(result.requests),
    milliseconds(result.p50Ms),
    milliseconds(result.p99Ms),
    milliseconds(result.meanMs),
    result.targetMs === null ? '-' : `p50 < ${result.targetMs} ms`,
    result.problems.length > 0 ? 'FAILED (below)' : result.targetMs === null ? '-' : verdict(result.p50Ms < result.targetMs),
  ]);
  return markdownTable(['case', 'request', 'requests', 'p50 ms', 'p99 ms', 'mean ms', 'target', 'met'], cells, ['left', 'left', 'right', 'right', 'right', 'right', 'left', 'left']);
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

/** What each part puts in as it is measured, so that a failure or Ctrl-C keeps what came before. */
interface Report extends PagesOutcome, ListOutcome {
  interrupted: boolean;
}

function printReport(report: Report, options: Options, { date, commit: measured, machine: about }: RunInfo): void {
  const out: string[] = ['', `Scale benchmark, ${date}, commit ${measured}`, describeMachine(about)];
  const warning = dotEnvWarning();
  if (warning) out.push(warning);
  const { pages, list } = report;
  if (pages) {
    out.push(
      '',
      `GET /comments/?page=P at ${formatNumber(options.comments)} comments (${pages.pageSize} a page, the site's default: ${formatNumber(pages.pages)} pages); ` +
        `HTTP Basic; one request at a time on one keep-alive connection, after ${WARMUP_REQUESTS} warm-up requests; WEB_CONCURRENCY=1, LOG_LEVEL=${options.logLevel}:`,
      '',
      pagesTable(pages.cases),
    );
    for (const result of pages.cases) for (const problem of result.problems) out.push(`FAILED: ${result.case}: ${problem}`);
  }
  if (list) {
    out.push(
      '',
      `Memory of GET /api/comments at ${formatNumber(list.comments)} comments (bearer token; one server process; baseline RSS ${mib(list.baselineKiB).toFixed(1)} MiB ` +
        `after the start, a login and one GET /api/comments/1, once settled; peak: VmRSS every ${MEMORY_SAMPLE_MS} ms${list.peakReset ? ' and VmHWM, reset before each phase' : ' (VmHWM could not be reset)'}; growth = peak − baseline):`,
      '',
      listTable(list),
    );
    for (const phase of list.phases) for (const problem of phase.problems) out.push(`FAILED: GET /api/comments, ${phase.phase}: ${problem}`);
  }
  if (report.failures.length > 0) out.push('', ...report.failures.map((failure) => `FAILED: ${failure}`));
  if (report.interrupted) out.push('', 'Interrupted: the results are partial.');
  process.stdout.write(`${out.join('\n')}\n`);
}

await runBenchmark(() => {
  const options = parseOptions();
  const report: Report = { pages: null, list: null, failures: [], interrupted: false };
  return {
    temporaryPrefix: 'bench-scale-',
    report,
    settings: options,
    async measure(directory) {
      // Pages, then the list: each on its own database and server, the first removed before the second is made.
      await benchPages(options, directory, report);
      if (!isInterrupted()) await benchList(options, directory, report);
    },
    print: (info) => printReport(report, options, info),
    hasProblems: () =>
      (report.pages?.cases.some((result) => result.problems.length > 0) ?? false) ||
      (report.list?.phases.some((phase) => phase.problems.length > 0) ?? false),
  };
});
