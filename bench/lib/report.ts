/**
 * The report of a benchmark: percentiles, numbers, Markdown tables, the
 * machine and the commit measured, the JSON file.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { projectRoot } from './project.js';

/** Nearest-rank percentile of ascending `sorted` (fraction 0.5 for p50). */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] as number;
}

export function formatNumber(value: number, digits = 0): string {
  return Number.isFinite(value) ? value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-';
}

/** The span of `values` as a reader says it: `3`, or `912–1,071`. */
export function formatRange(values: readonly number[]): string {
  const low = formatNumber(Math.min(...values));
  const high = formatNumber(Math.max(...values));
  return low === high ? low : `${low}–${high}`;
}

export type Align = 'left' | 'right';

/** A Markdown table, padded so that it also reads as plain text. */
export function markdownTable(header: readonly string[], rows: readonly (readonly string[])[], align: readonly Align[]): string {
  const escape = (cell: string): string => cell.replaceAll('|', '\\|');
  const cells = [header, ...rows].map((row) => row.map(escape));
  const widths = header.map((_, column) => Math.max(3, ...cells.map((row) => (row[column] ?? '').length)));
  const line = (row: readonly string[]): string =>
    `| ${widths.map((width, column) => (align[column] === 'right' ? (row[column] ?? '').padStart(width) : (row[column] ?? '').padEnd(width))).join(' | ')} |`;
  const rule = `|${widths.map((width, column) => (align[column] === 'right' ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2))).join('|')}|`;
  const [head, ...body] = cells;
  return [line(head ?? []), rule, ...body.map(line)].join('\n');
}

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  platform: string;
  node: string;
}

export function machine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    platform: `${os.platform()} ${os.release()}`,
    node: process.version,
  };
}

export function describeMachine(about: Machine): string {
  return `machine: ${about.cpu}, ${about.cores} cores, ${about.memoryGiB} GiB, ${about.platform}, node ${about.node}`;
}

/** The commit measured, `+changes` when the working tree differs from it; `unknown` outside a git checkout. */
export function commit(): string {
  const git = (...args: string[]): string | null => {
    const run = spawnSync('git', args, { cwd: projectRoot, encoding: 'utf8' });
    return run.status === 0 ? run.stdout.trim() : null;
  };
  const head = git('rev-parse', '--short', 'HEAD');
  if (head === null) return 'unknown';
  return git('status', '--porcelain', '--untracked-files=no') ? `${head}+changes` : head;
}

/** The server reads a `.env` at the project root for whatever the benchmark does not set: say so, it could skew the numbers. */
export function dotEnvWarning(): string | null {
  return existsSync(path.join(projectRoot, '.env'))
    ? 'note: a .env at the project root gives the server any setting the benchmark does not set (e.g. API_RATE_LIMIT, REDIS_URL)'
    : null;
}

export function writeJson(file: string, value: unknown): void {
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}

/** A target's verdict as the tables print it; `-` when there is none to give. */
export function verdict(met: boolean | null): string {
  return met === null ? '-' : met ? 'met' : 'NOT met';
}
