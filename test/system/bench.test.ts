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

const SCALE_CASES = [
  'first page',
  'middle page',
  'last page (by number)',
  'cursor: first page',
  'cursor: middle page',
  'cursor: last page',
  'search: rare term (3 matches, 0.1%)',
  'search: common term (300 matches, 10.0%)',
  'first page by -title',
];

interface ScaleReport {
  databases: { database: string; matches: Record<string, number>; cases: { group: string; case: string; p50Ms: number; problems: string[] }[] }[];
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

  test(`npm run bench:scale times pages, cursors, search, an owner's list and every ordering (${scaleDatabases.join(' and ')}), and the memory of a long list`, async () => {
    const json = path.join(dir, 'scale.json');
    const before = await benchDatabases();
    const { status, output } = await runBench('scale.js', ['--comments', '3000', '--requests', '5', '--list-comments', '2000', ...scaleDatabaseArgs, '--json', json]);
    expect({ status, output: output.slice(-2000) }).toMatchObject({ status: 0 });
    const report = JSON.parse(readFileSync(json, 'utf8')) as ScaleReport;
    expect(report.databases.map((entry) => entry.database)).toEqual(scaleDatabases);
    for (const entry of report.databases) {
      expect(entry.cases.map((result) => result.case)).toEqual(expect.arrayContaining(SCALE_CASES));
      // id, title and updated_at, each both ways.
      expect(entry.cases.filter((result) => result.group === 'ordering')).toHaveLength(6);
      for (const result of entry.cases) {
        expect({ case: result.case, problems: result.problems }).toEqual({ case: result.case, problems: [] });
        expect(result.p50Ms).toBeGreaterThan(0);
      }
      expect(entry.matches).toEqual({ zebra: 3, good: 300 });
    }
    expect(report.list).toBeTruthy();
    expect(report.failures).toEqual([]);
    expect(output).toMatch(/\| cursor: middle page +\| GET \/comments\/\?cursor=/);
    // The throwaway PostgreSQL database is gone.
    expect(await benchDatabases()).toEqual(before);
  }, 240_000);
});
