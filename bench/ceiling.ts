/**
 * The ceiling of bench/http.ts: a bare `node:http` server that answers every
 * request with one stored response (status, Content-Type, body bytes) from
 * memory. It reads a request's body before answering, as the real server must.
 * What the real server's throughput is compared with: the same bytes, the same
 * number of processes, no framework, no database, no log.
 *
 * Run by bench/http.ts, through bench/http/ceiling-process.ts (not by hand, though it can be):
 *   node dist/bench/ceiling.js --port P --workers N --status 200 --content-type application/json --body FILE
 * --workers N > 1: a node:cluster primary forks N workers sharing the port, as
 * the server does with WEB_CONCURRENCY=N; 1: this process serves.
 * Prints `{"listening":P}` on stdout once every process listens; SIGTERM or SIGINT stops it.
 */
import cluster from 'node:cluster';
import { announce, runPrimary } from './lib/cluster-primary.js';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { argumentErrors, commandLine, UsageError } from './lib/options.js';

interface Options {
  port: number;
  workers: number;
  status: number;
  contentType: string;
  body: Buffer;
}

const USAGE = `Usage: node dist/bench/ceiling.js --port P --body FILE [--workers N] [--status S] [--content-type T]

A bare node:http server answering every request with FILE's bytes (the ceiling
npm run bench compares the server with). Prints {"listening":P} once it listens.
  --port P            TCP port on 127.0.0.1 (required)
  --body FILE         the answer's body (required)
  --workers N         processes sharing the port (default 1)
  --status S          the answer's status (default 200)
  --content-type T    the answer's Content-Type (default application/json)`;

function parseOptions(): Options {
  const { values } = argumentErrors(() =>
    parseArgs({
      options: {
        port: { type: 'string' },
        workers: { type: 'string', default: '1' },
        status: { type: 'string', default: '200' },
        'content-type': { type: 'string', default: 'application/json' },
        body: { type: 'string' },
      },
    }),
  );
  const port = Number(values.port);
  const workers = Number(values.workers);
  const status = Number(values.status);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`--port must be a TCP port, not ${values.port}`);
  if (!Number.isInteger(workers) || workers < 1) throw new UsageError(`--workers must be a positive integer, not ${values.workers}`);
  if (!Number.isInteger(status) || status < 100 || status > 599) throw new UsageError(`--status must be an HTTP status, not ${values.status}`);
  if (values.body === undefined) throw new UsageError('--body FILE is required');
  return { port, workers, status, contentType: values['content-type'], body: readFileSync(values.body) };
}

/** One serving process; `onListening` once it listens. */
function serve(options: Options, onListening: () => void): void {
  const headers = { 'Content-Type': options.contentType, 'Content-Length': options.body.length };
  const server = http.createServer((req, res) => {
    // A POST's body is read to its end first: the real server parses it before it answers.
    req.resume();
    req.once('end', () => {
      res.writeHead(options.status, headers);
      res.end(options.body);
    });
  });
  server.listen(options.port, '127.0.0.1', onListening);
  const stop = (): void => process.exit(0);
  process.once('SIGTERM', stop).once('SIGINT', stop);
}

function main(): void {
  const options = commandLine('bench/ceiling', USAGE, parseOptions);
  if (cluster.isPrimary && options.workers > 1) runPrimary(options);
  else serve(options, () => (cluster.isPrimary ? announce(options.port) : undefined));
}

try {
  main();
} catch (error) {
  process.stderr.write(`ceiling: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
