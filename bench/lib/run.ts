/** The frame every benchmark program runs in, around what it measures. */
import { describeError, handleInterrupts, isInterrupted, runInTemporaryDirectory } from './processes.js';
import { commit, machine, writeJson, type Machine } from './report.js';

/** When and where a run measured, for its report. */
export interface RunInfo {
  date: string;
  commit: string;
  machine: Machine;
}

/** What every benchmark's report holds besides its own measurements. */
export interface BenchReport {
  failures: string[];
  interrupted: boolean;
}

export interface Benchmark<R extends BenchReport> {
  /** The prefix of the temporary directory the run works in (removed afterwards). */
  temporaryPrefix: string;
  report: R;
  /** The parsed command line: printed as the JSON's `settings`, and its `json` file written. */
  settings: { json: string | undefined };
  measure(directory: string): Promise<void>;
  print(info: RunInfo): void;
  /** What the JSON adds after the report, if anything. */
  extraJson?(): Record<string, unknown>;
  /** A measurement went wrong (a failure or an interruption always counts). */
  hasProblems(): boolean;
}

/**
 * Ctrl-C handling, the temporary directory, the partial flag, the report
 * printed and (with --json) written, and the exit status: 1 when something
 * failed, 0 otherwise (a missed target is only reported).
 */
export async function runBenchmark<R extends BenchReport>(setUp: () => Benchmark<R>): Promise<void> {
  try {
    const bench = setUp();
    handleInterrupts();
    const info: RunInfo = { commit: commit(), date: new Date().toISOString(), machine: machine() };
    const { report } = bench;
    await runInTemporaryDirectory(bench.temporaryPrefix, report.failures, (directory) => bench.measure(directory));
    report.interrupted = isInterrupted();
    bench.print(info);
    const { json } = bench.settings;
    if (json) writeJson(json, { date: info.date, commit: info.commit, machine: info.machine, settings: bench.settings, ...report, ...bench.extraJson?.() });
    process.exitCode = report.failures.length > 0 || report.interrupted || bench.hasProblems() ? 1 : 0;
  } catch (error) {
    process.stderr.write(`bench: ${describeError(error)}\n`);
    process.exitCode = 1;
  }
}
