import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';

// What `npm start` runs: the compiled output, built by `npm test` (and test:e2e) first.
export const BUILT_SERVER = path.join(projectRoot, 'dist/src/server.js');

/** Resolves with the URL the server logs once it listens; rejects if it exits or stays silent. */
export function waitForUrl(child: ChildProcessWithoutNullStreams, timeoutMs = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"([^"]+)"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (status) => reject(new Error(`server exited with ${status}: ${output}`)));
  });
}

/** The built server in a process of its own, with only PATH and `env` as its environment. */
export function spawnServer(env: Record<string, string>): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [BUILT_SERVER], { env: { PATH: process.env.PATH ?? '', ...env } });
}
