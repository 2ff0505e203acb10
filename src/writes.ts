/**
 * Every write of a declared resource, from either API site, the admin or an
 * action: its cross-field validation, its hooks and its many-to-many links in
 * one transaction with the row, so that a refusal or a failure leaves nothing
 * half written.
 */
import { isDeepStrictEqual } from 'node:util';
import { Op, type Transaction } from 'sequelize';
import { fromStored, toStored } from './cleaning.js';
import { clock } from './clock.js';
import { compiledReads, type KeyedRead, type PlainRow } from './db/compiled.js';
import { claimVersion, holdRow, lockRow, namesUpdateTime, nextVersionTime, RowChanged, rowStillThere, type HeldCheck, type RowVersion, type UpdateTime } from './db/row-version.js';
import { isDatabaseUnavailable } from './db/unavailable.js';
import { writeTransaction } from './db/write-transactions.js';
import type { MessageParams } from './errors.js';
import type { FieldDeclaration } from './fields.js';
import { refusal, type HookContext, type HookName, type ValidationContext } from './hooks.js';
import type { Row, RowModel } from './types/rows.js';
import type { AuthUser } from './types/auth.js';
import type { AnyRelation, BoundResource } from './types/resource.js';

type ManyToMany = Extract<AnyRelation, { kind: 'manyToMany' }>;

export interface WriteOptions {
  /** Whom the write is made for; the hooks see them. */
  user: AuthUser | null;
  /** An enclosing transaction (an action's); else the write opens its own when it needs one. */
  transaction?: Transaction;
  /**
   * The version of the row the write was checked against (If-Match, an
   * admin form's version): an update or a destroy that finds the row at
   * another one writes nothing and throws RowChanged.
   */
  expected?: RowVersion;
  /**
   * More work in the write's transaction, after it (the admin's audit
   * entry): it stands or falls with the write, and the write opens a
   * transaction for it if it needed none.
   */
  within?: (row: Row, transaction: Transaction) => Promise<void>;
}

/**
 * Whether `value` (as validated) is what the row already stores (`stored`,
 * as the driver read it): equal as a model instance sees both (a time to the
 * millisecond, JSON by content), or bound as the same stored value. When in
 * doubt, not the same: the column is written.
 */
function sameAsStored(field: FieldDeclaration | undefined, value: unknown, stored: unknown, sqlite: boolean): boolean {
  if (stored === undefined) return false;
  return isDeepStrictEqual(fromStored(field, stored, sqlite), value) || toStored(field, value, sqlite) === stored;
}

export class RowWriter {
  /** The resource's many-to-many fields, by name. */
  private readonly links: Map<string, ManyToMany>;
  /** Validation, hooks or links make a write several statements: it needs a transaction of its own. */
  private readonly several: boolean;
  /**
   * A create or an update is one statement that compiled SQL may write
   * (createStored, updateStored): no hooks, no links, and times kept in UTC
   * as Sequelize writes them here.
   */
  readonly oneStatement: boolean;

  constructor(
    readonly resource: BoundResource,
    /** Another resource's model by declared name, for hooks and actions. */
    readonly modelOf: (name: string) => RowModel,
  ) {
    this.links = new Map(
      Object.entries(resource.declaration.fields).flatMap(([name, field]) => {
        const relation = field.kind === 'manyToMany' ? resource.relations.get(name) : undefined;
        return relation?.kind === 'manyToMany' ? [[name, relation] as const] : [];
      }),
    );
    const { hooks, validate } = resource.declaration;
    this.several = hooks !== undefined || validate !== undefined || this.links.size > 0;
    const options = (resource.model.sequelize as unknown as { options?: { timezone?: string } } | undefined)?.options;
    this.oneStatement = !this.several && options?.timezone === '+00:00';
  }

  /** Runs `work` in one transaction (db/write-transactions.ts: IMMEDIATE, and one at a time on SQLite). */
  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    return writeTransaction(this.resource.model.sequelize!, work);
  }

  /** Stops a write with a field error whose message is the resource's own (`<resource>.errors.<key>`). */
  refuse(field: string, key: string, params?: MessageParams): never {
    throw refusal(this.resource.key, field, key, params);
  }

  async create(values: Record<string, unknown>, options: WriteOptions): Promise<Row> {
    return this.inTransaction(options, async (transaction) => {
      const data = { ...values };
      await this.validate(data, null, transaction, options.user);
      await this.run('beforeCreate', { data, row: null, transaction, user: options.user });
      const { columns, linked } = this.split(data);
      const row = await this.resource.model.create(columns, { transaction });
      await this.link(row, linked, transaction);
      await this.run('afterCreate', { data, row, transaction, user: options.user });
      await this.alongside(row, options, transaction);
      return row;
    });
  }

  /**
   * create's single INSERT as compiled SQL, answered as `read` reads the
   * row back (its `shape`): Sequelize's building, validating and per-query
   * work skipped, the same values written (defaults, one instant for both
   * times, Sequelize's text for each type), triggers and constraints the
   * database's as ever. Null when the write needs create (oneStatement false,
   * or an enclosing transaction).
   */
  async createStored(values: Record<string, unknown>, options: WriteOptions, read: KeyedRead, shape: string): Promise<PlainRow | null> {
    if (!this.oneStatement || options.transaction) return null;
    return compiledReads(this.resource.model.sequelize!).inserted(read, shape, this.insertedColumns(this.split(values).columns));
  }

  /**
   * update's single UPDATE as compiled SQL of the row `current` (as `read`
   * read it), answered as `read` reads it back. As update's save, it writes
   * the values that differ from the row's, and the update time as update
   * sets it (a change or not). Null when the write needs update, when no row has that
   * key, or when the row is no longer at `options.expected` (the caller
   * tells which).
   */
  async updateStored(current: PlainRow, values: Record<string, unknown>, options: WriteOptions, read: KeyedRead, shape: string): Promise<PlainRow | null> {
    if (!this.oneStatement || options.transaction || options.within) return null;
    const { model, declaration, timestamps } = this.resource;
    const sqlite = model.sequelize?.getDialect() === 'sqlite';
    // As Sequelize's save: only the columns whose values change are written, so that UPDATE OF triggers do not fire for the others.
    const row: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(this.split(values).columns)) {
      if (!sameAsStored(declaration.fields[name], value, current[name], sqlite)) row[name] = value;
    }
    const { expected } = options;
    const version = expected && namesUpdateTime(expected) ? expected : undefined;
    const updated = timestamps.updated;
    if (updated) row[updated] = version ? nextVersionTime(this.resource, clock().now(), version) : clock().now();
    const guard = updated && version ? { attribute: updated, version } : undefined;
    const key = current[model.primaryKeyAttribute];
    const reads = compiledReads(model.sequelize!);
    if (!expected || namesUpdateTime(expected)) return reads.updated(read, shape, key, this.stored(row), guard);
    // No update time to name: checked again and written in one transaction that holds the row.
    return holdRow(this.resource, key, async (transaction) => ((await expected.stillHolds(transaction)) ? reads.updated(read, shape, key, this.stored(row), undefined, transaction) : null));
  }

  /** What the model's create would write: the values given, the declared defaults for the others, the times as the model's hook sets them. */
  private insertedColumns(given: Record<string, unknown>): Record<string, unknown> {
    const { model, timestamps } = this.resource;
    const row: Record<string, unknown> = {};
    for (const [name, attribute] of Object.entries(model.getAttributes())) {
      if ((attribute.type as { key?: string }).key === 'VIRTUAL') continue;
      const fallback: unknown = attribute.defaultValue;
      const value = given[name] !== undefined ? given[name] : typeof fallback === 'function' ? (fallback as () => unknown)() : fallback;
      if (value !== undefined) row[name] = value;
    }
    // As Sequelize and the model's beforeCreate hook: the update time is the creation time, else the clock's.
    const { created, updated } = timestamps;
    if (updated) row[updated] = created ? row[created] : clock().now();
    return this.stored(row);
  }

  /** Values by attribute as the statement binds them. */
  private stored(values: Record<string, unknown>): Record<string, unknown> {
    const { model, declaration } = this.resource;
    const sqlite = model.sequelize?.getDialect() === 'sqlite';
    const bound: Record<string, unknown> = {};
    for (const name in values) bound[name] = toStored(declaration.fields[name], values[name], sqlite);
    return bound;
  }

  /** Every accepted update refreshes the update time, changed values or not (Django's auto_now). */
  async update(row: Row, values: Record<string, unknown>, options: WriteOptions): Promise<Row> {
    return this.versioned(row, options, async (transaction, at) => {
      const data = { ...values };
      await this.validate(data, row, transaction, options.user);
      await this.run('beforeUpdate', { data, row, transaction, user: options.user });
      const { columns, linked } = this.split(data);
      row.set(columns);
      const updated = this.resource.timestamps.updated;
      if (updated) {
        // Sequelize keeps its timestamps read-only to set(), and saves nothing when no value changed.
        row.setDataValue(updated, at ?? clock().now());
        (row as unknown as { changed(key: string, dirty: boolean): void }).changed(updated, true);
      }
      await row.save({ transaction });
      // Deleted meanwhile by another request: its UPDATE changed nothing, which Sequelize does not tell.
      const key = row.get(this.resource.model.primaryKeyAttribute);
      if ((await this.resource.model.count({ where: { [this.resource.model.primaryKeyAttribute]: key }, transaction })) === 0) {
        throw new RowChanged(this.resource.declaration.name);
      }
      await this.link(row, linked, transaction);
      await this.run('afterUpdate', { data, row, transaction, user: options.user });
      await this.alongside(row, options, transaction);
      return row;
    });
  }

  async destroy(row: Row, options: WriteOptions): Promise<void> {
    await this.versioned(row, options, async (transaction) => {
      const key = row.get(this.resource.model.primaryKeyAttribute);
      // Several statements (hooks, links, work within): none runs for a row another request deleted meanwhile.
      if (transaction && !(await rowStillThere(this.resource, key, transaction))) throw new RowChanged(this.resource.declaration.name);
      await this.run('beforeDestroy', { data: {}, row, transaction, user: options.user });
      for (const { join } of this.links.values()) await join.model.destroy({ where: { [join.from]: key }, transaction });
      // By its key, counted: a row another request deleted meanwhile is gone (404), not deleted a second time (204).
      const removed = await this.resource.model.destroy({ where: { [this.resource.model.primaryKeyAttribute]: key }, transaction });
      if (removed === 0) throw new RowChanged(this.resource.declaration.name);
      await this.run('afterDestroy', { data: {}, row, transaction, user: options.user });
      await this.alongside(row, options, transaction);
    });
  }

  /** A single statement is atomic by itself: a transaction only when hooks, links or work `within` make the write several. */
  private async inTransaction<T>(options: WriteOptions, work: (transaction: Transaction | undefined) => Promise<T>): Promise<T> {
    if (options.transaction) return work(options.transaction);
    return this.several || options.within ? this.transaction(work) : work(undefined);
  }

  /** The caller's work `within` the write's transaction (which inTransaction opened for it). */
  private async alongside(row: Row, options: WriteOptions, transaction: Transaction | undefined): Promise<void> {
    if (!options.within) return;
    if (!transaction) throw new Error(`${this.resource.declaration.name}: work within a write needs its transaction`);
    await options.within(row, transaction);
  }

  /**
   * An update or a destroy, under the version If-Match checked when one is
   * expected: the row's update time is first moved from that version to the
   * write's own (`at`, which the update keeps), in one statement that finds
   * the row only at that version, else RowChanged and nothing is written.
   * The claim changes the version itself, so a second writer expecting the
   * same one is refused at once, without waiting for a transaction. The
   * write's transaction then confirms the row is still at `at` (PostgreSQL
   * holds it from there), and a write that fails gives the version back. A
   * version that names no update time is checked again inside the
   * transaction that holds the row (held).
   */
  private async versioned<T>(row: Row, options: WriteOptions, work: (transaction: Transaction | undefined, at: Date | undefined) => Promise<T>): Promise<T> {
    const { expected } = options;
    const updated = this.resource.timestamps.updated;
    const key = row.get(this.resource.model.primaryKeyAttribute);
    if (expected && !namesUpdateTime(expected)) return this.held(key, expected, options, (transaction) => work(transaction, undefined));
    if (!expected || !updated) return this.inTransaction(options, (transaction) => work(transaction, undefined));
    const at = nextVersionTime(this.resource, clock().now(), expected);
    const stamp = this.stored({ [updated]: at })[updated];
    if (options.transaction) {
      // Inside an action's transaction, which may already hold the row: claimed there.
      await claimVersion(this.resource, key, expected.updatedAt, stamp, options.transaction);
      return work(options.transaction, at);
    }
    await claimVersion(this.resource, key, expected.updatedAt, stamp, undefined);
    try {
      return await this.transaction(async (transaction) => {
        await claimVersion(this.resource, key, stamp, stamp, transaction);
        return work(transaction, at);
      });
    } catch (error) {
      await this.giveBack(key, stamp, expected, error);
      throw error;
    }
  }

  /**
   * A write under a version that names no update time: the check is made
   * again inside the transaction that holds the row (holdRow), and the write
   * made there only if it still holds, else RowChanged and nothing written.
   */
  private async held<T>(key: unknown, check: HeldCheck, options: WriteOptions, work: (transaction: Transaction) => Promise<T>): Promise<T> {
    const checked = async (transaction: Transaction): Promise<T> => {
      if (!(await check.stillHolds(transaction))) throw new RowChanged(this.resource.declaration.name);
      return work(transaction);
    };
    if (!options.transaction) return holdRow(this.resource, key, checked);
    await lockRow(this.resource, key, options.transaction);
    return checked(options.transaction);
  }

  /**
   * Runs `work` (an action's own code) under the version If-Match checked:
   * the row's update time is first moved from that version to a new one, so
   * that a second request naming the same version is refused (RowChanged)
   * before its work runs; work that fails gives the version back. The row
   * keeps the new update time even if `work` writes nothing to it: its work
   * was done under that version, and a client holding it must read again.
   */
  async claimed<T>(row: Row, expected: UpdateTime, work: () => Promise<T>): Promise<T> {
    const updated = this.resource.timestamps.updated;
    if (!updated) throw new Error(`${this.resource.declaration.name} has no update time to claim`);
    const key = row.get(this.resource.model.primaryKeyAttribute);
    const stamp = this.stored({ [updated]: nextVersionTime(this.resource, clock().now(), expected) })[updated];
    await claimVersion(this.resource, key, expected.updatedAt, stamp, undefined);
    try {
      return await work();
    } catch (error) {
      await this.giveBack(key, stamp, expected, error);
      throw error;
    }
  }

  /**
   * After a write under a claimed version failed: the row back at the version
   * the client holds, if it still has the one claimed. Not after a database
   * that did not answer in time, which the request would wait for again.
   */
  private async giveBack(key: unknown, stamp: unknown, expected: UpdateTime, failure: unknown): Promise<void> {
    if (isDatabaseUnavailable(failure)) return;
    await claimVersion(this.resource, key, stamp, expected.updatedAt, undefined).catch(() => {
      // The write's own error is the answer; the row then keeps a version no client holds, which only asks for a fresh read.
    });
  }

  private split(data: Record<string, unknown>): { columns: Record<string, unknown>; linked: [ManyToMany, number[]][] } {
    const columns: Record<string, unknown> = {};
    const linked: [ManyToMany, number[]][] = [];
    for (const [name, value] of Object.entries(data)) {
      const relation = this.links.get(name);
      if (relation) linked.push([relation, Array.isArray(value) ? (value as number[]) : []]);
      else if (name in this.resource.declaration.fields) columns[name] = value;
    }
    return { columns, linked };
  }

  /** Makes each many-to-many link exactly the ids given: the others are removed, the missing added. */
  private async link(row: Row, linked: [ManyToMany, number[]][], transaction: Transaction | undefined): Promise<void> {
    const key = row.get(this.resource.model.primaryKeyAttribute);
    for (const [{ join }, ids] of linked) {
      await join.model.destroy({ where: { [join.from]: key, ...(ids.length > 0 ? { [join.to]: { [Op.notIn]: ids } } : {}) }, transaction });
      const kept = new Set(
        ((await join.model.findAll({ attributes: [join.to], where: { [join.from]: key }, raw: true, transaction })) as unknown as Record<string, unknown>[]).map((link) => link[join.to]),
      );
      const added = ids.filter((id) => !kept.has(id)).map((id) => ({ [join.from]: key, [join.to]: id }));
      if (added.length > 0) await join.model.bulkCreate(added, { transaction });
    }
  }

  /** The declaration's cross-field validation of the row as the write would leave it (`data` over `row`, or over the defaults). */
  private async validate(data: Record<string, unknown>, row: Row | null, transaction: Transaction | undefined, user: AuthUser | null): Promise<void> {
    const validate = this.resource.declaration.validate;
    if (!validate || !transaction) return;
    const values: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(this.resource.declaration.fields)) {
      if (field.kind === 'manyToMany' || field.kind === 'computed') continue;
      if (row) values[name] = row.get(name);
      else if (field.default !== undefined) values[name] = field.default;
      else if (field.nullable) values[name] = null;
    }
    Object.assign(values, data);
    const ctx: ValidationContext = { user, transaction, values, row, model: this.modelOf, refuse: (field, key, params) => this.refuse(field, key, params) };
    await validate(ctx);
  }

  private async run(
    name: HookName,
    { data, row, transaction, user }: { data: Record<string, unknown>; row: Row | null; transaction: Transaction | undefined; user: AuthUser | null },
  ): Promise<void> {
    const hook = this.resource.declaration.hooks?.[name];
    if (!hook || !transaction) return;
    const ctx: HookContext = { user, transaction, data, row, model: this.modelOf, refuse: (field, key, params) => this.refuse(field, key, params) };
    await hook(ctx);
  }
}
