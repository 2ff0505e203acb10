/** The command line of bench/scale.ts, and which databases it comes to. */
import { parseArgs } from 'node:util';
import type { Dialect } from '../lib/database.js';
import { argumentErrors, commandLine, helpAsked, positiveInteger, UsageError } from '../lib/options.js';
import { BenchFailure } from '../lib/processes.js';
import { postgresProblem } from '../lib/postgres.js';

export const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export const USAGE = `Usage: npm run bench:scale -- [options]

  --comments N        comments in each database (default 1000000)
  --requests N        timed requests per case, a cold case's each to a URL of its
                      own (default 200)
  --max-seconds S     per case: stop there, with fewer requests (default 60)
  --list-comments M   comments for the memory of GET /api/comments, SQLite (default 10000: the most a whole list answers)
  --database WHICH    sqlite, postgres or both (default: both when PostgreSQL answers
                      at the URL below, else sqlite, with a note)
  --postgres-url URL  the PostgreSQL server to make a throwaway database on
                      (default: $BENCH_POSTGRES_URL, else ${DEFAULT_POSTGRES_URL})
  --log-level LEVEL   the server's LOG_LEVEL (default info)
  --json FILE         also write the results as JSON
  --help              this text
`;

export type DatabaseChoice = Dialect | 'both' | 'auto';

export interface Options {
  comments: number;
  requests: number;
  maxSeconds: number;
  listComments: number;
  database: DatabaseChoice;
  postgresUrl: string;
  logLevel: string;
  json: string | undefined;
}

export { helpAsked };

function databaseChoice(raw: string | undefined): DatabaseChoice {
  if (raw === undefined) return 'auto';
  if (raw === 'sqlite' || raw === 'postgres' || raw === 'both') return raw;
  throw new UsageError(`--database must be sqlite, postgres or both, not ${raw}`);
}

function parse(): Options {
  const { values } = argumentErrors(() =>
    parseArgs({
      options: {
        comments: { type: 'string', default: '1000000' },
        requests: { type: 'string', default: '200' },
        'max-seconds': { type: 'string', default: '60' },
        'list-comments': { type: 'string', default: '10000' },
        database: { type: 'string' },
        'postgres-url': { type: 'string' },
        'log-level': { type: 'string', default: 'info' },
        json: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  return {
    comments: positiveInteger('comments', values.comments),
    requests: positiveInteger('requests', values.requests),
    maxSeconds: positiveInteger('max-seconds', values['max-seconds']),
    listComments: positiveInteger('list-comments', values['list-comments']),
    database: databaseChoice(values.database),
    postgresUrl: values['postgres-url'] ?? process.env.BENCH_POSTGRES_URL ?? DEFAULT_POSTGRES_URL,
    logLevel: values['log-level'],
    json: values.json,
  };
}

/** The options; `--help` prints the usage (exit 0), a mistake one line and the usage (exit 2). */
export function parseOptions(): Options {
  return commandLine('bench:scale', USAGE, parse);
}

/** The URL as the report shows it: without a password. */
export function shownUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}

/**
 * The databases to measure, in order. `auto` takes PostgreSQL when it
 * answers and says so in `notes` when it does not; asked for by name, a
 * PostgreSQL that does not answer is a failure.
 */
export async function chooseDatabases(options: Options, notes: string[]): Promise<Dialect[]> {
  if (options.database === 'sqlite') return ['sqlite'];
  const problem = await postgresProblem(options.postgresUrl);
  if (problem === null) return options.database === 'postgres' ? ['postgres'] : ['sqlite', 'postgres'];
  const why = `PostgreSQL does not answer at ${shownUrl(options.postgresUrl)} (${problem})`;
  if (options.database !== 'auto') throw new BenchFailure(why);
  notes.push(`${why}: SQLite only (--postgres-url or BENCH_POSTGRES_URL names another server)`);
  return ['sqlite'];
}
