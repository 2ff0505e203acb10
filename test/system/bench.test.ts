import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../src/paths.js';

/** What `npm run bench` and `npm run bench:scale` run, after the build `npm test` has made. */
function runBench(script: string, args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(projectRoot, 'dist/bench', script), ...args], {
      env: { PATH: process.env.PATH ?? '' },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}

interface Row {
  label: string;
  real: { requestsPerSecond: number; errors: number };
  ceiling: { requestsPerSecond: number };
  problems: string[];
}

/** The benchmarks, in miniature: they must keep running from a clone, whatever they measure. */
describe('the benchmarks', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('npm run bench measures every row against its ceiling, the start and the memory', async () => {
    const json = path.join(dir, 'http.json');
    // 300 comments in pages of 2: the deep page is 80% of the way in, as ?page=4000 is of 10,000.
    const { status, output } = await runBench('http.js', ['--duration', '1', '--warmup', '0', '--comments', '300', '--connections', '2', '--json', json]);
    expect({ status, output: output.slice(-2000) }).toMatchObject({ status: 0 });
    const report = JSON.parse(readFileSync(json, 'utf8')) as { rows: Row[]; start: { firstAuthenticatedSeconds: number }; memory: unknown[]; failures: unknown[] };
    expect(report.rows.map((row) => row.label)).toEqual([
      'GET /comments/ (Basic)',
      'GET /comments/?page=120 (Basic)',
      'GET /comments/ (session cookie)',
      'GET /api/comments/1 (bearer)',
      'GET /api/comments (bearer, all 300)',
      'POST /comments/ (Basic)',
      'POST /api/comments (bearer)',
    ]);
    for (const row of report.rows) {
      expect(row.problems).toEqual([]);
      expect(row.real.errors).toBe(0);
      expect(row.real.requestsPerSecond).toBeGreaterThan(0);
      expect(row.ceiling.requestsPerSecond).toBeGreaterThan(0);
    }
    expect(report.start.firstAuthenticatedSeconds).toBeGreaterThan(0);
    expect(report.memory.length).toBeGreaterThan(0);
    expect(report.failures).toEqual([]);
    expect(output).toMatch(/\| GET \/comments\/ \(Basic\) +\|/);
  }, 240_000);

  test('npm run bench:scale times first, middle and last pages, the count and the memory of a long list', async () => {
    const json = path.join(dir, 'scale.json');
    const { status, output } = await runBench('scale.js', ['--comments', '3000', '--requests', '5', '--list-comments', '2000', '--json', json]);
    expect({ status, output: output.slice(-2000) }).toMatchObject({ status: 0 });
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      pages: { cases: { case: string; p50Ms: number; problems: string[] }[] };
      list: unknown;
      failures: unknown[];
    };
    expect(report.pages.cases.map((entry) => entry.case)).toEqual(expect.arrayContaining(['first page', 'middle page', 'last page (by number)']));
    for (const entry of report.pages.cases) {
      expect(entry.problems).toEqual([]);
      expect(entry.p50Ms).toBeGreaterThan(0);
    }
    expect(report.list).toBeTruthy();
    expect(report.failures).toEqual([]);
  }, 240_000);
});
