/**
 * The ceiling a row of bench/http.ts is compared with: bench/ceiling.ts as a
 * child process, answering the server's kept answer from memory.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Reply } from '../lib/client.js';
import { BenchFailure, Interrupted, isInterrupted, settlesWithin, spawnTracked, stoppable, within } from '../lib/processes.js';
import { freePort } from '../lib/server.js';

/** This module runs as dist/bench/http/ceiling-process.js; the ceiling is compiled to dist/bench/ceiling.js. */
const CEILING_SCRIPT = fileURLToPath(new URL('../ceiling.js', import.meta.url));

export interface Ceiling {
  origin: string;
  stop: () => Promise<void>;
}

/** bench/ceiling.js answering `sample`'s status, Content-Type and body, with `workers` processes. */
export async function startCeiling(sample: Reply, workers: number, directory: string): Promise<Ceiling> {
  const bodyFile = path.join(directory, 'ceiling-body');
  writeFileSync(bodyFile, sample.body);
  const port = await freePort();
  const contentType = String(sample.headers['content-type'] ?? 'application/octet-stream');
  const args = [CEILING_SCRIPT, '--port', String(port), '--workers', String(workers), '--status', String(sample.status), '--content-type', contentType, '--body', bodyFile];
  const child = spawnTracked(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
    throw new BenchFailure('the ceiling server did not start', output.trim());
  }
  return { origin: `http://127.0.0.1:${port}`, stop };
}
