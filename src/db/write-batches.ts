/**
 * Single-statement writes to a SQLite file, committed together. SQLite has
 * one writer at a time, and each commit writes to its log every page the
 * statement touched: the table's, its indexes', the text index's, the kept
 * counts'. For a comment that is most of the write's time, and a second
 * write in the same transaction shares most of those pages. So the writes
 * that arrive while one is under way wait for it, then run together in one
 * transaction, on a connection of their own:
 *  - a write alone runs as it did, in a transaction of its own;
 *  - a write is answered once its transaction has committed: what a client
 *    was told is written is written, and its next request reads it;
 *  - should anything in a batch fail (a statement refused, a trigger's
 *    rollback, the commit), the batch is undone and its writes run again one
 *    by one, each in a transaction of its own: each gets the answer it would
 *    have got alone;
 *  - the reads stay on their connection, which sees a batch once committed;
 *  - a batch (or a write alone) that waits for the write lock in vain, held
 *    by another process past the busy timeout, fails the writes that came
 *    meanwhile too: each would wait as long again, and fail so.
 * PostgreSQL commits side by side (a pool of connections) and needs none of
 * this; an in-memory SQLite database has a single connection, shared with the
 * reads, which must never see a batch before its commit.
 */

export type PlainRow = Record<string, unknown>;

export interface SqliteStatement {
  all(params: readonly unknown[], callback: (error: Error | null, rows: PlainRow[]) => void): void;
  finalize(callback: () => void): void;
}

export interface SqliteDatabase {
  prepare(sql: string, callback: (error: Error | null) => void): SqliteStatement;
  all(sql: string, params: readonly unknown[], callback: (error: Error | null, rows: PlainRow[]) => void): void;
}

/** What the batches need of their database: the connection they write on, and its statements. */
export interface BatchedConnection {
  /** The writes' own connection (opened once, configured as every connection is). */
  open(): Promise<SqliteDatabase>;
  /** `sql` run with `params` on `db`: prepared once when `kept`, else written each time. */
  run(db: SqliteDatabase, sql: string, params: readonly unknown[], kept: boolean): Promise<PlainRow[]>;
  /** Runs `work` after this process's other write transactions on the database, and before the later ones. */
  inWriteOrder<T>(work: () => Promise<T>): Promise<T>;
  /** Closes `db`, left in a state no statement could tell: the next open() opens another. */
  discard(db: SqliteDatabase): Promise<void>;
}

interface Write {
  sql: string;
  params: readonly unknown[];
  kept: boolean;
  resolve(rows: PlainRow[]): void;
  reject(error: unknown): void;
}

type Together = { committed: true; answers: PlainRow[][] } | { committed: false; undone: boolean; error: unknown };

/** A write asked for while the database closes (a request still under way at the end of a shutdown's grace). */
export class DatabaseClosing extends Error {
  constructor() {
    super('the database is closing: the write was not made');
    this.name = 'DatabaseClosing';
  }
}

/** SQLite's refusal of a ROLLBACK with no transaction left to undo. */
const NO_TRANSACTION = /no transaction is active/;

/** SQLite's answer when the write lock another connection holds was not had within the busy timeout. */
function lockNotHad(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'SQLITE_BUSY';
}

/** At most this many writes in one transaction: each waits for the whole batch's commit. */
const MOST_WRITES_A_BATCH = 64;

export class WriteBatches {
  private waiting: Write[] = [];
  /** The loop that writes the waiting batches, while there are any. */
  private writing: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly connection: BatchedConnection) {}

  /** The rows `sql` answers, once the transaction it ran in has committed. */
  run(sql: string, params: readonly unknown[], kept: boolean): Promise<PlainRow[]> {
    if (this.closed) return Promise.reject(new DatabaseClosing());
    return new Promise((resolve, reject) => {
      this.waiting.push({ sql, params, kept, resolve, reject });
      this.writing ??= this.writeWaiting().finally(() => (this.writing = undefined));
    });
  }

  /**
   * Before the database closes: the batch under way (and those already
   * waiting) are written and answered; a write asked for after this is refused.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.writing;
  }

  private async writeWaiting(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, MOST_WRITES_A_BATCH);
      try {
        await this.connection.inWriteOrder(() => this.commit(batch));
      } catch (error) {
        // The lock not had in time, by this batch or by a write before it in the write order (which then refuses this
        // one): the batch (its writes answered already, if it ran) and the writes that came meanwhile fail with it.
        for (const write of [...batch, ...this.waiting.splice(0)]) write.reject(error);
      }
    }
  }

  private async commit(batch: Write[]): Promise<void> {
    let db: SqliteDatabase;
    try {
      db = await this.connection.open();
    } catch (error) {
      for (const write of batch) write.reject(error);
      return;
    }
    const [first] = batch;
    if (batch.length === 1 && first) return this.alone(db, first);
    try {
      await this.statement(db, 'BEGIN IMMEDIATE');
    } catch (error) {
      // The write lock not had within the busy timeout: alone, each would have waited as long and failed so.
      for (const write of batch) write.reject(error);
      if (lockNotHad(error)) throw error;
      return;
    }
    const outcome = await this.together(db, batch);
    if (outcome.committed) {
      batch.forEach((write, index) => write.resolve(outcome.answers[index] ?? []));
    } else if (outcome.undone) {
      await this.oneByOne(db, batch);
    } else {
      // Neither committed nor known to be undone: no write may go on in what is left of it.
      for (const write of batch) write.reject(outcome.error);
      await this.connection.discard(db);
    }
  }

  /** Every write of `batch` in the transaction begun, then its commit; else the transaction undone, if it can be. */
  private async together(db: SqliteDatabase, batch: readonly Write[]): Promise<Together> {
    const answers: PlainRow[][] = [];
    try {
      for (const write of batch) answers.push(await this.connection.run(db, write.sql, write.params, write.kept));
      await this.statement(db, 'COMMIT');
      return { committed: true, answers };
    } catch (error) {
      const undone = await this.statement(db, 'ROLLBACK').then(
        () => true,
        // SQLite undid it already (a trigger's RAISE(ROLLBACK), some I/O errors): nothing is left to undo.
        (refusal: unknown) => NO_TRANSACTION.test(String(refusal)),
      );
      return { committed: false, undone, error };
    }
  }

  /** Each write of an undone batch alone; once one waited for the lock in vain, the rest fail with it. */
  private async oneByOne(db: SqliteDatabase, batch: readonly Write[]): Promise<void> {
    for (const [index, write] of batch.entries()) {
      try {
        await this.alone(db, write);
      } catch (error) {
        for (const rest of batch.slice(index + 1)) rest.reject(error);
        throw error;
      }
    }
  }

  /** One write in a transaction of its own; the error of a lock not had is thrown on, after the write is answered with it. */
  private async alone(db: SqliteDatabase, write: Write): Promise<void> {
    try {
      write.resolve(await this.connection.run(db, write.sql, write.params, write.kept));
    } catch (error) {
      write.reject(error);
      if (lockNotHad(error)) throw error;
    }
  }

  private statement(db: SqliteDatabase, sql: string): Promise<PlainRow[]> {
    return this.connection.run(db, sql, [], false);
  }
}
