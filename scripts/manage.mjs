#!/usr/bin/env node
/**
 * `npx declarest …` (the package's command line) and `npm run manage -- …`: builds what is stale (scripts/build.mjs),
 * then runs the compiled CLI with the same arguments, standard streams and exit status.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { build, DEFAULT_ROOT } from './build.mjs';

const status = build(DEFAULT_ROOT, { ifStale: true });
if (status !== 0) process.exit(status);
const child = spawn(process.execPath, [path.join(DEFAULT_ROOT, 'dist', 'src', 'cli', 'manage.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
// A terminal's Ctrl-C reaches the CLI too: this process waits for it to end. Other signals are passed on.
process.on('SIGINT', () => undefined);
for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (!signal) process.exit(code ?? 1);
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
});
