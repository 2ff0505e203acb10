/**
 * Scale benchmark of the server (issue 8, and "Lists people can query"):
 * latency of pages and list queries over a large table, on SQLite and
 * PostgreSQL, and the memory of the unpaginated list.
 *
 * What it measures.
 * 1. Each database (bench/scale/databases.ts). A fresh database (SQLite: a
 *    file in a temporary directory; PostgreSQL: `CREATE DATABASE
 *    bench_<pid>_<random>` on the server given, dropped at the end) gets the
 *    migrations and a user `bench` (a random password, the default 600,000
 *    PBKDF2 iterations) through the real CLI, then straight through the
 *    database's driver 1,000 owners (an unusable password `!`) and N comments
 *    (1,000,000 unless told; bench/lib/seed.ts: the same on both databases,
 *    titles of at most 10 characters and bodies of at most 15 from a small
 *    vocabulary, the term `zebra` in 0.1% and `good` in 10%, 250 made-up
 *    search terms in 0.1% each, 250 old ones in 10 of the oldest 10,000
 *    comments each, one in ten edited after it was written), then the planner's statistics (SQLite
 *    `ANALYZE` and `PRAGMA optimize`; PostgreSQL `VACUUM (ANALYZE)`, as
 *    autovacuum would after such a load). One server process
 *    (`node dist/src/server.js`, NODE_ENV=production, WEB_CONCURRENCY=1,
 *    request log at `info` into a file) answers, one request at a time on one
 *    keep-alive connection (latency, not throughput), with HTTP Basic. The
 *    server keeps a page under a tag made from its tables' versions and its
 *    URL (src/page-tags.ts), so the same URL asked again is answered from
 *    memory: each kind of request is measured both ways.
 *    Cold (the targets): every request, the warm-up's too, a URL the server
 *    was never sent (checked: one sent before fails the case), over
 *    `--requests` + 5 different places (bench/scale/spread.ts):
 *    - `GET /comments/?page=P` near the start, spread over the whole list,
 *      around the middle and near the end, target p50 < 20 ms; and the
 *      `count(*)` they would run without the kept count, timed alone through
 *      the harness's own connection (no target);
 *    - cursor pages (`?cursor=`) after rows spread over the list, newest and
 *      oldest first (`?ordering=updated_at`) in turn, their cursors made from
 *      those rows read from the database; target p50 < 10 ms;
 *    - `?search=T`, T a term of the seeded vocabulary (250 made-up words, each
 *      in 0.1% of the comments; again in other orders past 250 requests),
 *      a page by number, so its count included, target p50 < 50 ms; the same
 *      of the old terms, whose few matches are at the far end of the list's
 *      order (target p50 < 50 ms); and the pages of `?search=good` (10%) from
 *      the first, for information;
 *    - `?user_id=` of a different owner each time (about N/1,000 comments),
 *      newest and oldest first in turn, target p50 < 20 ms;
 *    - `?ordering=F&page=P`, the first pages of every ordering both ways
 *      (id, title, updated_at), target p50 < 20 ms.
 *    Kept (no target: what a repeated request costs): `?page=` 1, the middle
 *    one, the last and `last`; `?cursor=` and the cursor after the middle
 *    row; `?search=zebra` (0.1%) and `?search=good`; one owner;
 *    `?ordering=-title`.
 *    The first Basic request (one PBKDF2 check, then the credential cache) and
 *    5 more per case are a warm-up, not counted. Each answer is checked: status
 *    200, the count (from the seeder's own counts), the page's ids in order
 *    (read from the database directly), the links. Reported: p50, p95, p99
 *    and mean, from sending to the last byte.
 * 2. Memory of `GET /api/comments` (every comment, unpaginated, bearer token),
 *    SQLite only: another fresh database of M comments (100,000 unless told),
 *    another server process. The baseline is its VmRSS after the start, a login
 *    and one `GET /api/comments/1`, once it stops moving. Then 5 requests one
 *    after the other, then 4 at once, each body read to its end and thrown away
 *    (the first is checked: all M comments). The peak is the larger of VmRSS
 *    sampled every 5 ms and VmHWM (reset before each phase through
 *    /proc/PID/clear_refs). Growth = peak − baseline. Target: at most 50 MiB.
 *
 * Run:
 *   npm run bench:scale
 *   npm run bench:scale -- --comments 100000 --requests 50 --database sqlite --json scale.json
 *   npm run bench:scale -- --help
 * The options are in bench/scale/options.ts (USAGE). Ctrl-C (or SIGTERM) stops the run and
 * the server, removes the temporary directory, drops the PostgreSQL database and prints what
 * was measured so far (Ctrl-C twice: at once, the database dropped all the same).
 * Exit status 1 when something fails (a request error, a wrong status or answer, the server
 * ending or not stopping cleanly, PostgreSQL asked for by name and not answering); a missed
 * target is only reported.
 */
import { isInterrupted } from './lib/processes.js';
import { runBenchmark } from './lib/run.js';
import { benchDatabase } from './scale/databases.js';
import { benchList } from './scale/list.js';
import { chooseDatabases, helpAsked, parseOptions, shownUrl, USAGE } from './scale/options.js';
import { hasProblems, printReport, type Report } from './scale/report.js';

if (helpAsked()) {
  process.stdout.write(USAGE);
} else {
  await runBenchmark(() => {
    const options = parseOptions();
    const report: Report = { databases: [], list: null, notes: [], failures: [], interrupted: false };
    return {
      temporaryPrefix: 'bench-scale-',
      report,
      settings: { ...options, postgresUrl: shownUrl(options.postgresUrl) },
      async measure(directory) {
        // One database at a time, each removed before the next is made; then the list, on SQLite.
        const databases = await chooseDatabases(options, report.notes);
        for (const dialect of databases) if (!isInterrupted()) await benchDatabase(dialect, options, directory, report);
        if (databases.includes('sqlite') && !isInterrupted()) await benchList(options, directory, report);
      },
      print: (info) => printReport(report, options, info),
      hasProblems: () => hasProblems(report),
    };
  });
}
