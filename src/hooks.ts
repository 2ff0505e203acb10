/**
 * Behaviour a declaration adds to its writes (Django's pre_save/post_save and
 * pre_delete/post_delete signals, Laravel's model events), run inside the
 * write's transaction so that a hook that fails leaves nothing half written.
 */
import type { Transaction } from 'sequelize';
import { ValidationError, type MessageParams } from './errors.js';
import type { Row, RowModel } from './types/rows.js';
import type { AuthUser } from './types/auth.js';

export interface HookContext {
  /** Whom the write is made for: the request's user, the admin's staff member, or null (a seeder, the CLI). */
  readonly user: AuthUser | null;
  /** Every query a hook makes passes it, so that its writes stand or fall with the row's. */
  readonly transaction: Transaction;
  /**
   * The values written, by field name: a before-hook may change, add or
   * remove them (a many-to-many holds its list of ids); after the write, what was written.
   */
  readonly data: Record<string, unknown>;
  /** The row: null before a create, as stored before an update or a delete, as written after a create or an update. */
  readonly row: Row | null;
  /** Another resource's model (by declared name), for reads and writes in the same transaction. */
  model(name: string): RowModel;
  /**
   * Refuses the write with an error on `field`, in the site's shape. `key`
   * names the message in the `resources` catalogue under `<resource>.errors.`.
   */
  refuse(field: string, key: string, params?: MessageParams): never;
}

export type Hook = (ctx: HookContext) => void | Promise<void>;

export interface ResourceHooks {
  beforeCreate?: Hook;
  afterCreate?: Hook;
  beforeUpdate?: Hook;
  afterUpdate?: Hook;
  beforeDestroy?: Hook;
  afterDestroy?: Hook;
}

export type HookName = keyof ResourceHooks;

/**
 * What a declaration's `validate` sees: the row as the write would leave it,
 * before anything is written. It runs in the write's transaction, after each
 * field was validated on its own and before the before-hooks.
 */
export interface ValidationContext {
  /** Whom the write is made for, as a hook's `user`. */
  readonly user: AuthUser | null;
  /** Every query a check makes passes it: what it reads is what the write will be checked against. */
  readonly transaction: Transaction;
  /**
   * The row's values after the write, by field name: on an update the
   * stored row with the values written over it; on a create the values
   * written, and each column's declared default (null for a nullable
   * column) for the others. A many-to-many only when written (its ids).
   */
  readonly values: Readonly<Record<string, unknown>>;
  /** The row as stored before an update; null on a create. */
  readonly row: Row | null;
  /** Another resource's model (by declared name), for reads in the same transaction. */
  model(name: string): RowModel;
  /** Refuses the write with an error on `field`, as a hook's `refuse`: `<resource>.errors.<key>` in the site's shape. */
  refuse(field: string, key: string, params?: MessageParams): never;
}

/**
 * Cross-field validation (Django REST Framework's `Serializer.validate`,
 * Laravel's `withValidator`/`after`): a rule about several fields, or about
 * other rows, checked on every write of the resource, from every site.
 */
export type Validator = (ctx: ValidationContext) => void | Promise<void>;

/** The error a hook's `refuse` throws: a field error whose message is the resource's own. */
export function refusal(resourceKey: string, field: string, key: string, params: MessageParams = {}): ValidationError {
  return new ValidationError({ [field]: [{ code: 'refused', params, key: `resources:${resourceKey}.errors.${key}` }] }, resourceKey);
}
