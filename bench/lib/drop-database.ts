/**
 * Drops a benchmark's PostgreSQL database, as a command of its own:
 * `node dist/bench/lib/drop-database.js SERVER_URL NAME`. A second Ctrl-C
 * runs it synchronously, when the harness can no longer wait for a promise.
 */
import { dropPostgresDatabase } from './postgres.js';

const [serverUrl, name] = process.argv.slice(2);
if (serverUrl === undefined || name === undefined || !/^bench_\w+$/.test(name)) {
  process.stderr.write('usage: drop-database.js SERVER_URL bench_NAME\n');
  process.exitCode = 2;
} else {
  await dropPostgresDatabase(serverUrl, name);
}
