/**
 * The same-stack reference of bench/http.ts: what the server's rows cost
 * without the framework. Express 5 and the sqlite3 package directly (the
 * server's own stack), statements prepared once, on the same throwaway SQLite
 * database the benchmark made and the server uses, doing each row's database
 * work: the credential (bearer token row by id and its SHA-256; HTTP Basic
 * with a per-process cache of the checked header, then the account by
 * primary key; the session row and the account), then the comment, the count
 * and the page, every comment, or the insert. No request log, no rate limit,
 * no content negotiation: bench/reference/app.ts says what it answers.
 *
 * Run by bench/http.ts, through bench/http/reference-process.ts (not by hand, though it can be):
 *   SECRET_KEY=… node dist/bench/reference.js --port P --workers N --database FILE --page-size 2
 * --workers N > 1: a node:cluster primary forks N workers sharing the port, as
 * the server does with WEB_CONCURRENCY=N; 1: this process serves.
 * Prints `{"listening":P}` on stdout once every process listens; SIGTERM or SIGINT stops it.
 */
import cluster from 'node:cluster';
import { announce, runPrimary } from './lib/cluster-primary.js';
import { parseArgs } from 'node:util';
import { argumentErrors, commandLine, UsageError } from './lib/options.js';
import { referenceApp } from './reference/app.js';
import { openReferenceDatabase } from './reference/database.js';

interface Options {
  port: number;
  workers: number;
  database: string;
  pageSize: number;
  secret: string;
}

const USAGE = `Usage: SECRET_KEY=… node dist/bench/reference.js --port P --database FILE [--workers N] [--page-size N]

The same-stack reference npm run bench compares the server with: Express 5 and
sqlite3 prepared statements on the benchmark's database, without the framework.
Prints {"listening":P} once it listens.
  --port P            TCP port on 127.0.0.1 (required)
  --database FILE     the benchmark's SQLite file (required)
  --workers N         processes sharing the port (default 1)
  --page-size N       the paginated site's page size (default 2)
SECRET_KEY must be the server's: it signs the session cookies.`;

function parseOptions(): Options {
  const { values } = argumentErrors(() =>
    parseArgs({
      options: {
        port: { type: 'string' },
        workers: { type: 'string', default: '1' },
        database: { type: 'string' },
        'page-size': { type: 'string', default: '2' },
      },
    }),
  );
  const port = Number(values.port);
  const workers = Number(values.workers);
  const pageSize = Number(values['page-size']);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`--port must be a TCP port, not ${values.port}`);
  if (!Number.isInteger(workers) || workers < 1) throw new UsageError(`--workers must be a positive integer, not ${values.workers}`);
  if (!Number.isInteger(pageSize) || pageSize < 1) throw new UsageError(`--page-size must be a positive integer, not ${values['page-size']}`);
  if (values.database === undefined) throw new UsageError('--database FILE (the SQLite file) is required');
  const secret = process.env.SECRET_KEY;
  if (!secret) throw new UsageError('SECRET_KEY (the server\'s) is required: it signs the session cookies');
  return { port, workers, database: values.database, pageSize, secret };
}

async function serve(options: Options, onListening: () => void): Promise<void> {
  const db = await openReferenceDatabase(options.database);
  const app = referenceApp({ db, secret: options.secret, pageSize: options.pageSize });
  app.listen(options.port, '127.0.0.1', onListening);
  const stop = (): void => process.exit(0);
  process.once('SIGTERM', stop).once('SIGINT', stop);
}

try {
  const options = commandLine('bench/reference', USAGE, parseOptions);
  if (cluster.isPrimary && options.workers > 1) runPrimary(options);
  else await serve(options, () => (cluster.isPrimary ? announce(options.port) : undefined));
} catch (error) {
  process.stderr.write(`reference: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
