/**
 * The servers a row of bench/http.ts is compared with, each a child process
 * that prints `{"listening":P}` once every process of it listens: the ceiling
 * (bench/ceiling.ts, answering the server's kept answer from memory) and the
 * same-stack reference (bench/reference.ts, Express and sqlite3 on the same
 * database).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reply } from '../lib/client.js';
import { BenchFailure, Interrupted, isInterrupted, settlesWithin, spawnTracked, stoppable, within } from '../lib/processes.js';
import { SECRET_KEY } from '../lib/project.js';
import { freePort } from '../lib/server.js';

/** This module runs as dist/bench/http/ceiling-process.js; the two are compiled to dist/bench/. */
const CEILING_SCRIPT = fileURLToPath(new URL('../ceiling.js', import.meta.url));
const REFERENCE_SCRIPT = fileURLToPath(new URL('../reference.js', import.meta.url));

export interface Ceiling {
  origin: string;
  stop: () => Promise<void>;
}

/** `node SCRIPT --port P ARGS…`, once it says it listens; a failure to start names `what`. */
async function startListening(what: string, script: string, args: readonly string[], env?: NodeJS.ProcessEnv): Promise<Ceiling> {
  const port = await freePort();
  const child = spawnTracked(process.execPath, [script, '--port', String(port), ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env } : {}) });
  let output = '';
  child.stderr?.setEncoding('utf8').on('data', (text: string) => (output += text));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const listening = new Promise<boolean>((resolve) => {
    child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      output += text;
      if (output.includes('"listening"')) resolve(true);
    });
    void exited.then(() => resolve(false));
  });
  const stop = async (): Promise<void> => {
    child.kill('SIGTERM');
    if (!(await settlesWithin(exited, 5))) child.kill('SIGKILL');
    await exited;
  };
  const ready = await stoppable(() => child.kill('SIGKILL'), within(listening, 20, false));
  if (!ready) {
    await stop();
    if (isInterrupted()) throw new Interrupted();
    throw new BenchFailure(`the ${what} did not start`, output.trim());
  }
  return { origin: `http://127.0.0.1:${port}`, stop };
}

/** bench/ceiling.js answering `sample`'s status, Content-Type and body, with `workers` processes. */
export async function startCeiling(sample: Reply, workers: number, directory: string): Promise<Ceiling> {
  const bodyFile = path.join(directory, 'ceiling-body');
  writeFileSync(bodyFile, sample.body);
  const contentType = String(sample.headers['content-type'] ?? 'application/octet-stream');
  return startListening('ceiling server', CEILING_SCRIPT, ['--workers', String(workers), '--status', String(sample.status), '--content-type', contentType, '--body', bodyFile]);
}

/** bench/reference.js on the SQLite file the server uses, with `workers` processes and the server's SECRET_KEY. */
export function startReference(databaseFile: string, pageSize: number, workers: number): Promise<Ceiling> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', SECRET_KEY };
  return startListening('same-stack reference', REFERENCE_SCRIPT, ['--workers', String(workers), '--database', databaseFile, '--page-size', String(pageSize)], env);
}
