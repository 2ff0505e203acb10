/**
 * The project under test as the benchmarks run it: its compiled server and
 * CLI, and the environment every child of theirs gets.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';

export { projectRoot };

export const SERVER_SCRIPT = path.join(projectRoot, 'dist', 'src', 'server.js');
export const MANAGE_SCRIPT = path.join(projectRoot, 'dist', 'src', 'cli', 'manage.js');
/**
 * One per harness run: a session signed by the first start must still be
 * valid after the restart, and the cursors a benchmark makes must open on the server.
 */
export const SECRET_KEY = randomBytes(32).toString('hex');

/** The environment of every child: PATH and production settings, nothing else of ours (no test or debug setting leaks in). */
export function baseEnv(databaseUrl: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', NODE_ENV: 'production', SECRET_KEY, DEMO_DATA: '0', DATABASE_URL: databaseUrl };
}
