/**
 * The transactions the framework's writes open. SQLite has one writer at a
 * time, and an in-memory database's transactions all share one connection,
 * where a second BEGIN fails and its ROLLBACK would undo the first: so on
 * SQLite the write transactions of this process run one at a time (on a
 * database file they would wait for each other's lock anyway, IMMEDIATE
 * taking it first). PostgreSQL runs them side by side.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Transaction, type Sequelize } from 'sequelize';

/** The tail of each SQLite database's write transactions in this process. */
const queued = new WeakMap<Sequelize, Promise<unknown>>();
/** Set inside a queued transaction: one opened from within it is not queued behind itself (it fails as SQLite has it). */
const inside = new AsyncLocalStorage<true>();

/** Runs `work` in an IMMEDIATE transaction: on SQLite the write lock is taken first, so two writers wait for each other instead of failing. */
export function writeTransaction<T>(sequelize: Sequelize, work: (transaction: Transaction) => Promise<T>): Promise<T> {
  const open = (): Promise<T> => sequelize.transaction({ type: Transaction.TYPES.IMMEDIATE }, work);
  if (sequelize.getDialect() !== 'sqlite' || inside.getStore()) return open();
  return inWriteOrder(sequelize, () => inside.run(true, open));
}

/** Runs `work` once this process's earlier SQLite write transactions on `sequelize` are done, and before its later ones. */
export function inWriteOrder<T>(sequelize: Sequelize, work: () => Promise<T>): Promise<T> {
  const before = queued.get(sequelize) ?? Promise.resolve();
  const run = before.then(work);
  queued.set(sequelize, run.catch(() => undefined));
  return run;
}

/** Whether the caller runs inside one of those transactions: what it writes must not wait for the transaction's end. */
export function insideWriteTransaction(): boolean {
  return inside.getStore() === true;
}
