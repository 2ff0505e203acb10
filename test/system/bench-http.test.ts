import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { runBench } from '../helpers/bench.js';

interface Row {
  label: string;
  real: { requestsPerSecond: number; errors: number };
  ceiling: { requestsPerSecond: number };
  reference: { requestsPerSecond: number };
  /** A 304 row's full read, driven in the same rounds. */
  fullRead?: { requestsPerSecond: number } | null;
  conditional: boolean;
  targetResults: { text: string; against?: number | null }[];
  problems: string[];
}

/**
 * `npm run bench`, in miniature: it must keep running from a clone, whatever
 * it measures. It makes its own SQLite database whatever the suite runs on,
 * so it runs with the SQLite suite only (jest.config.js).
 */
describe('the HTTP benchmark', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-http-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('npm run bench measures every row against its ceiling and the same-stack reference, the start and the memory', async () => {
    const json = path.join(dir, 'http.json');
    // 300 comments in pages of 2: the deep page is 80% of the way in, as ?page=4000 is of 10,000.
    const { status, output } = await runBench('http.js', ['--duration', '1', '--warmup', '0', '--comments', '300', '--connections', '2', '--json', json]);
    expect({ status, output: output.slice(-2000) }).toMatchObject({ status: 0 });
    const report = JSON.parse(readFileSync(json, 'utf8')) as { rows: Row[]; start: { firstAuthenticatedSeconds: number; samples: { firstAuthenticatedSeconds: number }[] }; memory: unknown[]; failures: unknown[] };
    expect(report.rows.map((row) => row.label)).toEqual([
      'GET /comments/ (Basic)',
      'GET /comments/?page=120 (Basic)',
      'GET /comments/ (session cookie)',
      'GET /api/comments/1 (bearer)',
      'GET /api/comments (bearer, all 300)',
      'GET /api/comments/1 (bearer, If-None-Match)',
      'GET /comments/ (Basic, If-None-Match)',
      'POST /comments/ (Basic)',
      'POST /api/comments (bearer)',
    ]);
    for (const row of report.rows) {
      expect(row.problems).toEqual([]);
      expect(row.real.errors).toBe(0);
      expect(row.real.requestsPerSecond).toBeGreaterThan(0);
      expect(row.ceiling.requestsPerSecond).toBeGreaterThan(0);
      expect(row.reference.requestsPerSecond).toBeGreaterThan(0);
      // A 304 row is held to its own full read, measured in its rounds.
      if (row.conditional) {
        expect(row.fullRead?.requestsPerSecond).toBeGreaterThan(0);
        expect(row.targetResults.map((target) => target.against)).toEqual([row.fullRead?.requestsPerSecond]);
      }
    }
    // The median of three starts, each kept.
    expect(report.start.samples.map((sample) => sample.firstAuthenticatedSeconds).sort((a, b) => a - b)[1]).toBe(report.start.firstAuthenticatedSeconds);
    expect(report.memory.length).toBeGreaterThan(0);
    expect(report.failures).toEqual([]);
    expect(output).toMatch(/\| GET \/comments\/ \(Basic\) +\|/);
  }, 240_000);
});
