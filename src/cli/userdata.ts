import { createWriteStream, openSync, renameSync, rmSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import path from 'node:path';
import cliProgress from 'cli-progress';
import type { Translate } from '../i18n.js';
import type { Services } from '../services.js';
import { dumpUsers } from '../userdata/dump.js';
import { loadUserFiles, type FileReport, type LoadProgress } from '../userdata/loader.js';
import { ProblemList, type LocatedProblem } from '../userdata/problems.js';
import { CommandFailed } from './accounts.js';
import type { CliIO } from './io.js';

/** One line per problem: where (file, record, field as the file names it), then what. */
export function problemLines(t: Translate, error: ProblemList): string[] {
  const lines = error.problems.map((problem: LocatedProblem) => {
    const message = t(problem.key, problem.params);
    const where = { file: problem.file ?? '', record: problem.record ?? 0, field: problem.field ?? '', message };
    if (problem.record === undefined) return t('loaddata.problem_file', where);
    if (problem.record === 0) return t('loaddata.problem_header', where);
    return t(problem.field === undefined ? 'loaddata.problem_record' : 'loaddata.problem_field', where);
  });
  if (error.truncated) lines.push(t('loaddata.truncated', { count: error.problems.length }));
  lines.push(t('loaddata.nothing_loaded'));
  return lines;
}

/** A bar per file on a terminal (by bytes read, so it needs no first pass to count records). */
function progressBar(io: CliIO, t: Translate): { update(progress: LoadProgress): void; stop(): void } {
  if (!io.progress) return { update: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    { stream: io.stderr, format: t('loaddata.progress'), hideCursor: true, clearOnComplete: true },
    cliProgress.Presets.shades_classic,
  );
  let current = '';
  return {
    update({ file, phase, bytesRead, bytesTotal, records }) {
      // A file of users and tokens is read twice: a bar for each reading.
      if (`${phase}:${file}` !== current) {
        if (current !== '') bar.stop();
        current = `${phase}:${file}`;
        bar.start(Math.max(bytesTotal, 1), 0, { file: path.basename(file), records: 0 });
      }
      bar.update(bytesRead, { records });
    },
    stop: () => bar.stop(),
  };
}

function summaryLines(t: Translate, reports: readonly FileReport[]): string[] {
  const lines = reports
    .filter((report) => report.ignored.length > 0)
    .map((report) => t('loaddata.ignored', { file: report.file, fields: report.ignored.join(', ') }));
  const sum = (pick: (report: FileReport) => number) => reports.reduce((total, report) => total + pick(report), 0);
  const created = sum((report) => report.created);
  const updated = sum((report) => report.updated);
  lines.push(t('loaddata.installed', { count: created + updated, files: reports.length, created, updated }));
  if (reports.some((report) => report.tokens.records > 0)) {
    const tokensCreated = sum((report) => report.tokens.created);
    const tokensUpdated = sum((report) => report.tokens.updated);
    lines.push(t('loaddata.tokens_installed', { count: tokensCreated + tokensUpdated, created: tokensCreated, updated: tokensUpdated }));
  }
  return lines;
}

/** loaddata: every file in one transaction, users before tokens; a problem anywhere prints each problem and loads nothing. */
export async function loadData(services: Services, io: CliIO, t: Translate, files: readonly string[]): Promise<void> {
  const bar = progressBar(io, t);
  let reports: FileReport[];
  try {
    reports = await loadUserFiles(services.registry, services.accounts.hasher, files, { onProgress: bar.update });
  } catch (error) {
    if (error instanceof ProblemList) throw new CommandFailed(problemLines(t, error));
    throw error;
  } finally {
    bar.stop();
  }
  io.stdout.write(`${summaryLines(t, reports).join('\n')}\n`);
}

/**
 * dumpdata: the fixture goes to standard output, or to a file that appears
 * only when complete (written beside it, then renamed).
 */
export async function dumpData(services: Services, io: CliIO, t: Translate, output: string | undefined): Promise<void> {
  if (output === undefined) {
    try {
      await dumpUsers(services.registry, io.stdout);
    } catch (error) {
      // The reader went away (`dumpdata | head`): nothing is wrong with the dump.
      if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
    }
    return;
  }
  const partial = `${output}.partial-${process.pid}`;
  let fd: number;
  try {
    // The fixture holds password hashes: readable by its owner only.
    fd = openSync(partial, 'w', 0o600);
  } catch (error) {
    throw new CommandFailed([t('dumpdata.failed', { file: output, message: (error as Error).message })]);
  }
  const stream = createWriteStream(partial, { fd });
  try {
    const count = await dumpUsers(services.registry, stream);
    stream.end();
    await finished(stream);
    renameSync(partial, output);
    io.stdout.write(`${t('dumpdata.written', { count, file: output })}\n`);
  } catch (error) {
    stream.destroy();
    rmSync(partial, { force: true });
    throw new CommandFailed([t('dumpdata.failed', { file: output, message: (error as Error).message })]);
  }
}
