/**
 * bcrypt checks on worker threads. bcryptjs is JavaScript: on the main thread
 * a cost-12 check of an imported Laravel account holds it some 0.1–0.3 s, and
 * a wave of first sign-ins after a migration would slow every request. Here
 * the main thread only waits, as it does for PBKDF2 on libuv's pool; a
 * worker is started on the first check and left to idle, never keeping an
 * idle process alive.
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

interface Job {
  password: string;
  hash: string;
  resolve: (valid: boolean) => void;
  reject: (error: Error) => void;
}

interface Answer {
  valid?: boolean;
  error?: string;
}

// CommonJS, evaluated in the worker: node resolves bcryptjs from the path the main thread found.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const bcrypt = require(workerData.bcryptjs);
parentPort.on('message', ({ password, hash }) => {
  bcrypt.compare(password, hash).then(
    (valid) => parentPort.postMessage({ valid }),
    (error) => parentPort.postMessage({ error: String(error && error.message || error) }),
  );
});
`;

const BCRYPTJS = createRequire(import.meta.url).resolve('bcryptjs');

class BcryptWorker {
  private readonly worker: Worker;
  private current: Job | null = null;

  constructor(private readonly next: () => Job | undefined) {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { bcryptjs: BCRYPTJS } });
    this.worker.on('message', (answer: Answer) => this.finish(answer));
    this.worker.on('error', (error) => this.finish({ error: error.message }));
    // Held while it checks (a script awaiting one check must not exit first), let go when idle; after the listeners, which would hold it again.
    this.worker.unref();
  }

  get idle(): boolean {
    return this.current === null;
  }

  start(job: Job): void {
    this.current = job;
    this.worker.ref();
    this.worker.postMessage({ password: job.password, hash: job.hash });
  }

  private finish(answer: Answer): void {
    const job = this.current;
    this.current = null;
    if (job) {
      if (answer.error === undefined) job.resolve(Boolean(answer.valid));
      else job.reject(new Error(answer.error));
    }
    const waiting = this.next();
    if (waiting) this.start(waiting);
    else this.worker.unref();
  }
}

/** At most one worker per core (two on this project's machines), each checking one hash at a time. */
export class BcryptPool {
  private readonly workers: BcryptWorker[] = [];
  private readonly queue: Job[] = [];

  constructor(private readonly size = Math.max(1, Math.min(2, availableParallelism()))) {}

  compare(password: string, hash: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const job: Job = { password, hash, resolve, reject };
      let worker = this.workers.find((candidate) => candidate.idle);
      if (!worker && this.workers.length < this.size) {
        worker = new BcryptWorker(() => this.queue.shift());
        this.workers.push(worker);
      }
      if (worker) worker.start(job);
      else this.queue.push(job);
    });
  }
}

/** The process's pool, shared by every hasher. */
export const bcryptPool = new BcryptPool();
