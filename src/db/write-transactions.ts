/**
 * The transactions the framework's writes open. SQLite has one writer at a
 * time, and an in-memory database's transactions all share one connection,
 * where a second BEGIN fails and its ROLLBACK would undo the first: so on
 * SQLite the write transactions of this process run one at a time (on a
 * database file they would wait for each other's lock anyway, IMMEDIATE
 * taking it first), and a file's other writes take their turn with them
 * (db/write-batches.ts, db/database.ts). PostgreSQL runs them side by side.
 *
 * A write that waits for the lock in vain (another process held it past the
 * busy timeout) fails those queued behind it with the same error: each would
 * wait as long again, and the last of many would be answered long after
 * DATABASE_TIMEOUT_SECONDS.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Transaction, type Sequelize } from 'sequelize';
import { isDatabaseUnavailable } from './unavailable.js';

/** A place in the write order; refused, with the error to fail with, when a write before it found no database in time. */
interface Place {
  refused?: { error: unknown };
}

/** One SQLite database's write order in this process: the tail of its work, and the places waiting their turn. */
interface WriteOrder {
  tail: Promise<unknown>;
  waiting: Set<Place>;
}

const orders = new WeakMap<Sequelize, WriteOrder>();

function orderOf(sequelize: Sequelize): WriteOrder {
  let order = orders.get(sequelize);
  if (!order) {
    order = { tail: Promise.resolve(), waiting: new Set() };
    orders.set(sequelize, order);
  }
  return order;
}

/** Set inside a queued transaction: one opened from within it is not queued behind itself (it fails as SQLite has it). */
const inside = new AsyncLocalStorage<true>();

/** Runs `work` in an IMMEDIATE transaction: on SQLite the write lock is taken first, so two writers wait for each other instead of failing. */
export function writeTransaction<T>(sequelize: Sequelize, work: (transaction: Transaction) => Promise<T>): Promise<T> {
  const open = (): Promise<T> => sequelize.transaction({ type: Transaction.TYPES.IMMEDIATE }, work);
  if (sequelize.getDialect() !== 'sqlite' || inside.getStore()) return open();
  return inWriteOrder(sequelize, () => inside.run(true, open));
}

/**
 * Runs `work` once this process's earlier SQLite writes on `sequelize` are
 * done, and before its later ones; or fails it unrun, when one it waited
 * for found no database in time.
 */
export function inWriteOrder<T>(sequelize: Sequelize, work: () => Promise<T>): Promise<T> {
  const order = orderOf(sequelize);
  const place: Place = {};
  order.waiting.add(place);
  const run = order.tail.then(async () => {
    order.waiting.delete(place);
    if (place.refused) throw place.refused.error;
    try {
      return await work();
    } catch (error) {
      if (isDatabaseUnavailable(error)) for (const behind of order.waiting) behind.refused ??= { error };
      throw error;
    }
  });
  order.tail = run.catch(() => undefined);
  return run;
}

/** Whether the caller runs inside one of those transactions: what it writes must not wait for the transaction's end. */
export function insideWriteTransaction(): boolean {
  return inside.getStore() === true;
}
