/**
 * The harness's own housekeeping, shared by the benchmarks:
 *   - Ctrl-C handling: the first stops what runs and lets the caller clean up
 *     and report, a second kills every child at once, runs the synchronous
 *     last resorts (dropping a PostgreSQL database) and exits;
 *   - children that neither Ctrl-C nor the harness's exit leaves behind, and
 *     killing a process with everything under it (a cluster primary's workers);
 *   - temporary directories, removed however the run ends, and the run in one,
 *     its failures kept for the report;
 *   - waiting with a limit, progress lines on stderr.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export { sleep };

/** Set by the first Ctrl-C or SIGTERM: loops stop, running work is stopped, then the caller cleans up and reports. */
let interrupted = false;
const stopOnInterrupt = new Set<() => void>();
const children = new Set<ChildProcess>();
const temporaryDirectories = new Set<string>();
/** Synchronous clean-ups of what lives outside this machine's files (a PostgreSQL database) for a second Ctrl-C, which cannot wait. */
const lastResorts = new Set<() => void>();

export function isInterrupted(): boolean {
  return interrupted;
}

/** Thrown where waiting makes no more sense after Ctrl-C. */
export class Interrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'Interrupted';
  }
}

/** A failure to report with what the server (or a command) printed last. */
export class BenchFailure extends Error {
  constructor(
    message: string,
    readonly output = '',
  ) {
    super(message);
    this.name = 'BenchFailure';
  }
}

export function describeError(error: unknown): string {
  if (error instanceof BenchFailure) return error.output ? `${error.message}\n  ${error.output.split('\n').join('\n  ')}` : error.message;
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** Awaits `work`; a Ctrl-C meanwhile calls `stop`, which must make `work` settle soon. */
export async function stoppable<T>(stop: () => void, work: Promise<T>): Promise<T> {
  stopOnInterrupt.add(stop);
  try {
    return await work;
  } finally {
    stopOnInterrupt.delete(stop);
  }
}

/** First signal: stop gently and report; second: kill every child, remove the files, exit 1. */
export function handleInterrupts(): void {
  const onSignal = (): void => {
    if (interrupted) {
      for (const child of children) killTree(child.pid, 'SIGKILL');
      removeTemporaryDirectories();
      for (const cleanUp of lastResorts) cleanUp();
      process.exit(1);
    }
    interrupted = true;
    process.stderr.write('\nInterrupted: stopping (Ctrl-C again to kill everything at once)\n');
    for (const stop of stopOnInterrupt) stop();
  };
  process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
  // However the harness ends (an exception included), no server or ceiling outlives it.
  process.on('exit', () => children.forEach((child) => killTree(child.pid, 'SIGKILL')));
}

/**
 * `cleanUp` (synchronous) if a second Ctrl-C ends the run before the normal
 * clean-up could; the function returned forgets it once that has run.
 */
export function atForcedExit(cleanUp: () => void): () => void {
  lastResorts.add(cleanUp);
  return () => lastResorts.delete(cleanUp);
}

/** Spawns a child that Ctrl-C and the harness's exit will not leave behind. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, options);
  children.add(child);
  child.once('exit', () => children.delete(child));
  child.once('error', () => children.delete(child));
  return child;
}

export function makeTemporaryDirectory(prefix: string): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), prefix));
  temporaryDirectories.add(directory);
  return directory;
}

export function removeTemporaryDirectories(): void {
  for (const directory of temporaryDirectories) rmSync(directory, { recursive: true, force: true });
  temporaryDirectories.clear();
}

/**
 * `work` in a new temporary directory, removed after it however it ends; what
 * it throws goes into `failures`, but for Ctrl-C's Interrupted: the report
 * says that it was interrupted.
 */
export async function runInTemporaryDirectory(prefix: string, failures: string[], work: (directory: string) => Promise<void>): Promise<void> {
  const directory = makeTemporaryDirectory(prefix);
  try {
    await work(directory);
  } catch (error) {
    if (!(error instanceof Interrupted)) failures.push(describeError(error));
  } finally {
    removeTemporaryDirectories();
  }
}

export function progress(text: string): void {
  process.stderr.write(`${text}\n`);
}

export function seconds(since: number): number {
  return (performance.now() - since) / 1000;
}

/** `promise`'s value, or `fallback` when it takes longer than `limitSeconds` (the timer does not outlive the race). */
export async function within<T>(promise: Promise<T>, limitSeconds: number, fallback: T): Promise<T> {
  const timer = new AbortController();
  const expired = sleep(limitSeconds * 1000, fallback, { signal: timer.signal }).catch(() => fallback);
  try {
    return await Promise.race([promise, expired]);
  } finally {
    timer.abort();
  }
}

/** Whether `promise` settles (either way) within `limitSeconds`. */
export function settlesWithin(promise: Promise<unknown>, limitSeconds: number): Promise<boolean> {
  return within(promise.then(() => true, () => true), limitSeconds, false);
}

/** The live descendants of `pid` (a cluster primary's workers), from each process's parent in /proc/PID/stat. */
export function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so fields count from the last `)`.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parents.set(Number(entry), ppid);
    } catch {
      // Ended while listed.
    }
  }
  const found: number[] = [];
  const visit = (parent: number): void => {
    for (const [child, ppid] of parents) {
      if (ppid === parent) {
        found.push(child);
        visit(child);
      }
    }
  };
  visit(pid);
  return found;
}

/** Signals `pid` and everything under it; quietly skips what is already gone. */
export function killTree(pid: number | undefined, signal: NodeJS.Signals): void {
  // 0 and negative numbers name process groups (-1: every process we may signal), never one child.
  if (pid === undefined || pid <= 0) return;
  for (const target of [...descendants(pid), pid]) {
    try {
      process.kill(target, signal);
    } catch {
      // Already gone.
    }
  }
}
