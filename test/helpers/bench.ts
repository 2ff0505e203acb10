import { spawn } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';

/** A benchmark as `npm run bench…` runs it (`dist/bench/<script>`, built by `npm test` first): its exit status and all it printed. */
export function runBench(script: string, args: string[]): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(projectRoot, 'dist/bench', script), ...args], { env: { PATH: process.env.PATH ?? '' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
  });
}
