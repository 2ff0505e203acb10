/** The command line of bench/http.ts (its header describes what each option changes). */
import { parseArgs } from 'node:util';
import { argumentErrors, commandLine, positiveInteger, UsageError } from '../lib/options.js';

export const USAGE = `Usage: npm run bench -- [options]

  --workers N           server processes (WEB_CONCURRENCY; default $WEB_CONCURRENCY or 1);
                        the ceiling and the same-stack reference run as many
  --connections N       autocannon connections (default 10)
  --duration SECONDS    the measured seconds of each party of a row: the server, its
                        ceiling, its reference (a 304 row: its full read too) (default 10)
  --slice SECONDS       one party's turn in a round: the parties are driven in turn,
                        in rounds of a slice each, until --duration (default 2)
  --warmup SECONDS      each party's warm-up before the rounds, not counted (default 2; 0: none)
  --comments N          comments in the throwaway database (default 10000)
  --log-level LEVEL     the server's LOG_LEVEL (default info, as in production)
  --json FILE           also write the results as JSON
  --django-url URL      also measure the Django REST Framework original serving at URL
                        (e.g. http://127.0.0.1:8000, started beside with its run.sh)
  --django-user U:P     its account (required with --django-url, e.g. alice:alice-pass-123)
  --django-comments N   comments the Django database is topped up to first (default 1000)
  --help                this text
`;

export interface DjangoOptions {
  /** No trailing slash. */
  url: string;
  username: string;
  password: string;
  comments: number;
}

export interface Options {
  workers: number;
  connections: number;
  /** The measured seconds of each party of a row, in rounds of `sliceSeconds` (bench/http/rounds.ts). */
  durationSeconds: number;
  sliceSeconds: number;
  warmupSeconds: number;
  comments: number;
  logLevel: string;
  json: string | undefined;
  django: DjangoOptions | null;
}

function djangoOptions(url: string | undefined, user: string | undefined, comments: string): DjangoOptions | null {
  if (url === undefined) {
    if (user !== undefined) throw new UsageError('--django-user needs --django-url');
    return null;
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--django-url must be a URL such as http://127.0.0.1:8000, not ${url}`);
  }
  if (parsed.protocol !== 'http:') throw new UsageError(`--django-url must be an http:// URL, not ${url}`);
  if (user === undefined) throw new UsageError('--django-url needs --django-user USERNAME:PASSWORD');
  const colon = user.indexOf(':');
  if (colon <= 0) throw new UsageError(`--django-user must be USERNAME:PASSWORD, not ${user}`);
  return { url: parsed.origin, username: user.slice(0, colon), password: user.slice(colon + 1), comments: positiveInteger('django-comments', comments) };
}

function parse(): Options {
  const { values } = argumentErrors(() =>
    parseArgs({
      options: {
        workers: { type: 'string', default: process.env.WEB_CONCURRENCY || '1' },
        connections: { type: 'string', default: '10' },
        duration: { type: 'string', default: '10' },
        slice: { type: 'string', default: '2' },
        warmup: { type: 'string', default: '2' },
        comments: { type: 'string', default: '10000' },
        'log-level': { type: 'string', default: 'info' },
        json: { type: 'string' },
        'django-url': { type: 'string' },
        'django-user': { type: 'string' },
        'django-comments': { type: 'string', default: '1000' },
        help: { type: 'boolean', short: 'h' },
      },
    }),
  );
  const warmupSeconds = Number(values.warmup);
  if (!Number.isInteger(warmupSeconds) || warmupSeconds < 0) throw new UsageError(`--warmup must be a whole number of seconds, not ${values.warmup}`);
  return {
    workers: positiveInteger('workers', values.workers),
    connections: positiveInteger('connections', values.connections),
    durationSeconds: positiveInteger('duration', values.duration),
    sliceSeconds: positiveInteger('slice', values.slice),
    warmupSeconds,
    comments: positiveInteger('comments', values.comments),
    logLevel: values['log-level'],
    json: values.json,
    django: djangoOptions(values['django-url'], values['django-user'], values['django-comments']),
  };
}

/** The options; `--help` prints the usage (exit 0), a mistake one line and the usage (exit 2). */
export function parseOptions(): Options {
  return commandLine('bench', USAGE, parse);
}
