/**
 * The primary of a benchmark's comparison server run as N processes (the
 * ceiling, the same-stack reference): forks them, announces the port once all
 * listen, and takes them down with it.
 */
import cluster from 'node:cluster';

/** The line the harness waits for on standard output. */
export function announce(port: number): void {
  process.stdout.write(`${JSON.stringify({ listening: port })}\n`);
}

export function runPrimary({ port, workers }: { port: number; workers: number }): void {
  let listening = 0;
  cluster.on('listening', () => {
    listening += 1;
    if (listening === workers) announce(port);
  });
  // A worker that dies leaves the comparison wrong: the harness sees the primary exit and reports it.
  cluster.on('exit', () => process.exit(1));
  for (let i = 0; i < workers; i += 1) cluster.fork();
  const stop = (): void => {
    cluster.removeAllListeners('exit');
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
    process.exit(0);
  };
  process.once('SIGTERM', stop).once('SIGINT', stop);
}
