import { createReadStream, statSync } from 'node:fs';
import path from 'node:path';
import { pipeline, Transform, type Duplex, type Readable, type TransformCallback } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import streamArray from 'stream-json/streamers/stream-array.js';
import { Problem, ProblemList } from './problems.js';

export type DataFormat = 'json' | 'csv';

/** One record of a file, numbered from 1 as a person counts them. */
export interface SourceRecord {
  record: number;
  data: unknown;
}

/** A user data file read record by record, never whole. */
export interface DataSource {
  file: string;
  format: DataFormat;
  /** Bytes in the file, for progress. */
  size: number;
  bytesRead(): number;
  records(): AsyncIterable<SourceRecord>;
}

/**
 * Decodes UTF-8 strictly: a file with bytes that are not UTF-8 is refused
 * rather than loaded with replacement characters. A byte-order mark is dropped.
 */
class StrictUtf8 extends Transform {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor() {
    super({ decodeStrings: true, readableObjectMode: false });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      done(null, this.decoder.decode(chunk, { stream: true }));
    } catch {
      done(new Problem('loaddata.invalid_utf8'));
    }
  }

  override _flush(done: TransformCallback): void {
    try {
      done(null, this.decoder.decode());
    } catch {
      done(new Problem('loaddata.invalid_utf8'));
    }
  }
}

function formatOf(file: string): DataFormat {
  const extension = path.extname(file).toLowerCase();
  if (extension === '.json') return 'json';
  if (extension === '.csv') return 'csv';
  throw new ProblemList([{ file, key: 'loaddata.unknown_format', params: { extension: extension || '-' } }]);
}

/** The file through strict UTF-8 decoding into `parser`; an error anywhere ends the iteration of the parser with it. */
function decoded(file: Readable, parser: Duplex): Duplex {
  return pipeline(file, new StrictUtf8(), parser, () => undefined);
}

/** Records are assembled whole, so the parser need not stream each key and string in pieces: a third faster. */
const WHOLE_VALUES = { packKeys: true, packStrings: true, packNumbers: true, streamKeys: false, streamStrings: false, streamNumbers: false };

async function* jsonRecords(file: Readable): AsyncIterable<SourceRecord> {
  let record = 0;
  try {
    for await (const item of decoded(file, streamArray.withParserAsStream(WHOLE_VALUES)) as AsyncIterable<{ key: number; value: unknown }>) {
      record = item.key + 1;
      yield { record, data: item.value };
    }
  } catch (error) {
    throw fileProblem(error) ?? new Problem('loaddata.invalid_json', { reason: (error as Error).message }, { record: record + 1 });
  }
}

/** A problem of the file as a whole (not UTF-8, not readable) rather than of the record being parsed. */
function fileProblem(error: unknown): Problem | null {
  if (error instanceof Problem) return error;
  const { code, syscall } = error as NodeJS.ErrnoException;
  return code && syscall ? new Problem('loaddata.unreadable', { reason: (error as Error).message }) : null;
}

/** A line no user needs, and an unclosed quote is found without reading the rest of the file into memory. */
const MAX_CSV_RECORD = 1_048_576;

/**
 * What csv-parse found, without its message: that quotes the cells (a
 * password among them), and passwords are never printed.
 */
function csvReason(error: unknown): { reason: string; line: number | string } {
  const { code, lines } = error as { code?: string; lines?: number };
  const reason = (code ?? 'CSV_INVALID').replace(/^CSV_/, '').toLowerCase().replaceAll('_', ' ');
  return { reason, line: lines ?? '?' };
}

/** Unquoted headers are matched as written apart from surrounding spaces and case. */
function csvHeader(names: string[]): string[] {
  const header = names.map((name) => name.trim().toLowerCase());
  const repeated = header.find((name, index) => name !== '' && header.indexOf(name) !== index);
  if (repeated) throw new Problem('loaddata.csv_repeated_column', { column: repeated }, { record: 0 });
  return header;
}

async function* csvRecords(file: Readable): AsyncIterable<SourceRecord> {
  let record = 0;
  const parser = decoded(file, parseCsv({ columns: csvHeader, skip_empty_lines: true, max_record_size: MAX_CSV_RECORD }));
  try {
    for await (const row of parser as AsyncIterable<Record<string, string>>) {
      record += 1;
      yield { record, data: row };
    }
  } catch (error) {
    throw fileProblem(error) ?? new Problem('loaddata.invalid_csv', csvReason(error), { record: record + 1 });
  }
}

export function openSource(file: string): DataSource {
  const format = formatOf(file);
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new ProblemList([{ file, key: 'loaddata.unreadable', params: { reason: (error as Error).message } }]);
  }
  let stream: Readable | undefined;
  return {
    file,
    format,
    size,
    bytesRead: () => (stream as (Readable & { bytesRead?: number }) | undefined)?.bytesRead ?? 0,
    records() {
      stream = createReadStream(file);
      return format === 'json' ? jsonRecords(stream) : csvRecords(stream);
    },
  };
}
