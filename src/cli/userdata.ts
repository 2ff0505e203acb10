import { createWriteStream, openSync, renameSync, rmSync } from 'node:fs';
import { finished } from 'node:stream/promises';
import path from 'node:path';
import cliProgress from 'cli-progress';
import type { Translate } from '../i18n.js';
import type { Services } from '../services.js';
import { dumpResources, type DumpCount } from '../userdata/dump.js';
import { loadDataFiles, type FileReport } from '../userdata/load.js';
import { ModelCatalogue } from '../userdata/models.js';
import { ProblemList, type LocatedProblem } from '../userdata/problems.js';
import type { LoadProgress } from '../userdata/writing.js';
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
      // A file of users, tokens and other rows is read once for each kind: a bar for each reading.
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
  // A line for each other model, in the order the files first name them.
  for (const model of new Set(reports.flatMap((report) => Object.keys(report.rows)))) {
    const created = sum((report) => report.rows[model]?.created ?? 0);
    const updated = sum((report) => report.rows[model]?.updated ?? 0);
    lines.push(t('loaddata.rows_installed', { count: created + updated, model, created, updated }));
  }
  return lines;
}

/** loaddata: every file in one transaction, each kind of row after those it refers to; a problem anywhere prints each problem and loads nothing. */
export async function loadData(services: Services, io: CliIO, t: Translate, files: readonly string[]): Promise<void> {
  const bar = progressBar(io, t);
  let reports: FileReport[];
  try {
    reports = await loadDataFiles(services.registry, services.accounts.hasher, files, { onProgress: bar.update });
  } catch (error) {
    if (error instanceof ProblemList) throw new CommandFailed(problemLines(t, error));
    throw error;
  } finally {
    bar.stop();
  }
  io.stdout.write(`${summaryLines(t, reports).join('\n')}\n`);
}

export interface DumpOptions {
  /** Models to write (Django's `dumpdata <app_label[.model]>…`); none: every resource. */
  models: readonly string[];
  /** Models to leave out (Django's `--exclude`). */
  exclude: readonly string[];
  /** A file to write instead of standard output. */
  output?: string;
}

/** The resources the names choose (every one when none is named), less the excluded, in load order. */
function chosenResources(services: Services, t: Translate, { models, exclude }: DumpOptions) {
  const catalogue = new ModelCatalogue(services.registry);
  const pick = (names: readonly string[]) => {
    const found = catalogue.select(names);
    if ('unknown' in found) throw new CommandFailed([t('dumpdata.unknown_model', { name: found.unknown, models: catalogue.labels().join(', ') })]);
    return found.chosen;
  };
  const left = new Set(pick(exclude));
  return (models.length > 0 ? pick(models) : catalogue.order).filter((resource) => !left.has(resource));
}

function countsText(counts: readonly DumpCount[]): string {
  return counts.map(({ label, count }) => `${label}: ${count}`).join(', ');
}

/**
 * dumpdata: the fixture goes to standard output, or to a file that appears
 * only when complete (written beside it, then renamed).
 */
export async function dumpData(services: Services, io: CliIO, t: Translate, options: DumpOptions): Promise<void> {
  const resources = chosenResources(services, t, options);
  const { output } = options;
  if (output === undefined) {
    try {
      await dumpResources(services.registry, resources, io.stdout);
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
    const counts = await dumpResources(services.registry, resources, stream);
    stream.end();
    await finished(stream);
    renameSync(partial, output);
    const count = counts.reduce((total, { count: each }) => total + each, 0);
    io.stdout.write(`${t('dumpdata.written', { count, file: output, models: countsText(counts) })}\n`);
  } catch (error) {
    stream.destroy();
    rmSync(partial, { force: true });
    throw new CommandFailed([t('dumpdata.failed', { file: output, message: (error as Error).message })]);
  }
}
