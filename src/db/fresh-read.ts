/**
 * A read that callers asking close together share, yet never older than
 * their asking. A caller who asks while no read is under way starts one;
 * those who ask while one is under way share the next, which starts as soon
 * as it ends. So every caller gets a read begun after it asked (it sees
 * everything committed before), and however many ask at once, one read is
 * under way and one waits. Under load most requests so share the snapshot of
 * the kept versions (src/db/row-counter.ts) instead of each making its own
 * round trip: on SQLite one through the thread pool, which on two cores took
 * the CPU from the requests themselves.
 *
 * A read that fails fails those waiting for the next one too: they asked
 * while the database was failing to answer, and a read of their own would
 * make them wait for it a second time (a frozen database: twice
 * DATABASE_TIMEOUT_SECONDS and more, where one wait is promised).
 */
export class FreshRead<T> {
  private running: Promise<T> | undefined;
  private waiting: Waiting<T> | undefined;

  constructor(private readonly read: () => Promise<T>) {}

  /** A read begun now or, while one is under way, right after it. */
  get(): Promise<T> {
    if (!this.running) return this.begin();
    this.waiting ??= this.next();
    return this.waiting.promise;
  }

  private begin(): Promise<T> {
    const running = this.readNow();
    this.running = running;
    const ended = (): Waiting<T> | undefined => {
      this.running = undefined;
      const waiting = this.waiting;
      this.waiting = undefined;
      return waiting;
    };
    running.then(
      () => ended()?.start(),
      (error: unknown) => ended()?.fail(error),
    );
    return running;
  }

  /** The read begun now: one that throws rather than rejects fails its callers as a rejection would, and lets the next one begin. */
  private readNow(): Promise<T> {
    try {
      return this.read();
    } catch (error) {
      return Promise.reject(error);
    }
  }

  private next(): Waiting<T> {
    let start = (): void => undefined;
    let fail: (error: unknown) => void = () => undefined;
    const promise = new Promise<T>((resolve, reject) => {
      start = () => resolve(this.begin());
      fail = reject;
    });
    return { promise, start, fail };
  }
}

/** The callers' next read, begun once the one under way ends well; failed with it otherwise. */
interface Waiting<T> {
  promise: Promise<T>;
  start(): void;
  fail(error: unknown): void;
}
