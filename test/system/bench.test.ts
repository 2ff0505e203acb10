import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import pg from 'pg';
import { runBench } from '../helpers/bench.js';

/** `TEST_DATABASE_URL` (npm run test:pg) says PostgreSQL is there: bench:scale measures it too. */
const postgresUrl = process.env.TEST_DATABASE_URL;
const scaleDatabases = postgresUrl ? ['sqlite', 'postgres'] : ['sqlite'];
const scaleDatabaseArgs = postgresUrl ? ['--database', 'both', '--postgres-url', postgresUrl] : ['--database', 'sqlite'];

/** Every case, by mode: cold (each request a URL new to the server) and kept (one URL again and again). */
const SCALE_CASES = {
  cold: [
    'pages near the start',
    'pages spread over the list',
    'pages around the middle',
    'pages near the end',
    'cursors spread over the list',
    'search: vocabulary terms (0.1% each)',
    'search: rare terms, all old (3 matches each, all in the oldest 3,000)',
    'search: common term, its first pages (300 matches, 10.0%)',
    'filter by owner: different owners, both orders',
    'first pages of every ordering',
  ],
  kept: [
    'first page',
    'middle page',
    'last page (by number)',
    'last page (page=last)',
    'cursor: first page',
    'cursor: middle page',
    'search: rare term (3 matches, 0.1%)',
    'search: common term (300 matches, 10.0%)',
    'filter by owner (2 comments)',
    'first page by -title',
  ],
};
/** The warm-up requests of every case (bench/scale/timing.ts). */
const WARMUP = 5;
const REQUESTS = 5;

interface ScaleCase {
  mode: string;
  case: string;
  requests: number;
  distinctUrls: number;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  targetMs: number | null;
  problems: string[];
}

interface ScaleReport {
  databases: { database: string; matches: Record<string, number>; cases: ScaleCase[] }[];
  list: unknown;
  failures: unknown[];
}

/** The benchmark databases on the PostgreSQL server, if there is one: none may be left behind. */
async function benchDatabases(): Promise<string[]> {
  if (!postgresUrl) return [];
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE 'bench\\_%' ORDER BY datname");
    return rows.map((row) => row.datname);
  } finally {
    await client.end();
  }
}

/** The benchmark of lists, in miniature: it must keep running from a clone, whatever it measures (`npm run bench`: bench-http.test.ts). */
describe('the benchmark of long lists', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test(`npm run bench:scale times pages, cursors, search, owners' lists and every ordering cold and kept (${scaleDatabases.join(' and ')}), and the memory of a long list`, async () => {
    const json = path.join(dir, 'scale.json');
    const before = await benchDatabases();
    const { status, output } = await runBench('scale.js', ['--comments', '3000', '--requests', String(REQUESTS), '--list-comments', '2000', ...scaleDatabaseArgs, '--json', json]);
    expect({ status, output: output.slice(-2000) }).toMatchObject({ status: 0 });
    const report = JSON.parse(readFileSync(json, 'utf8')) as ScaleReport;
    expect(report.databases.map((entry) => entry.database)).toEqual(scaleDatabases);
    for (const entry of report.databases) {
      const named = (mode: string): string[] => entry.cases.filter((result) => result.mode === mode).map((result) => result.case);
      expect({ cold: named('cold'), kept: named('kept') }).toEqual(SCALE_CASES);
      for (const result of entry.cases) {
        expect({ case: result.case, problems: result.problems }).toEqual({ case: result.case, problems: [] });
        expect(result.p50Ms).toBeGreaterThan(0);
        expect(result.p95Ms).toBeGreaterThanOrEqual(result.p50Ms);
        expect(result.p99Ms).toBeGreaterThanOrEqual(result.p95Ms);
      }
      // Cold: every request, the warm-up's too, a URL of its own, and a target; kept: one URL, no target.
      for (const result of entry.cases.filter((one) => one.mode === 'cold')) {
        expect({ case: result.case, requests: result.requests, distinctUrls: result.distinctUrls }).toEqual({ case: result.case, requests: REQUESTS, distinctUrls: REQUESTS + WARMUP });
      }
      expect(entry.cases.filter((one) => one.mode === 'cold' && one.targetMs === null).map((one) => one.case)).toEqual([SCALE_CASES.cold[7]]);
      for (const result of entry.cases.filter((one) => one.mode === 'kept')) expect({ case: result.case, distinctUrls: result.distinctUrls, targetMs: result.targetMs }).toEqual({ case: result.case, distinctUrls: 1, targetMs: null });
      expect(entry.matches).toEqual({ zebra: 3, good: 300 });
    }
    expect(report.list).toBeTruthy();
    expect(report.failures).toEqual([]);
    expect(output).toMatch(/\| cold +\| cursors spread over the list +\| GET \/comments\/\?cursor=C, after 10 rows/);
    expect(output).toMatch(/\| kept +\| cursor: middle page +\| GET \/comments\/\?cursor=\(after row 1,501\)/);
    // The throwaway PostgreSQL database is gone.
    expect(await benchDatabases()).toEqual(before);
  }, 240_000);
});
