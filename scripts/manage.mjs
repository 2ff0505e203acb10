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
const [command] = process.argv.slice(2);
// The server runs with npm start's memory settings: a small young generation and a slowly growing heap.
const serving = command === 'start' || command === 'runserver' ? ['--max-semi-space-size=4', '--heap-growing-percent=25'] : [];
const child = spawn(process.execPath, [...serving, path.join(DEFAULT_ROOT, 'dist', 'src', 'cli', 'manage.js'), ...process.argv.slice(2)], { stdio: 'inherit' });
// A terminal's Ctrl-C reaches the CLI too: this process waits for it to end. Other signals are passed on.
process.on('SIGINT', () => undefined);
for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => {
  if (!signal) process.exit(code ?? 1);
  process.removeAllListeners(signal);
  process.kill(process.pid, signal);
});
