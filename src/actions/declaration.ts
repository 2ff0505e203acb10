/**
 * Custom actions, as Django REST Framework's `@action` and a Laravel route to
 * a controller method: a route on one row (`/<path>/<pk>/<action>/`) or on the
 * list (`/<path>/<action>/`), on every site the resource is exposed on, with its
 * own methods, permissions and input fields. Here, what an action's code sees
 * and answers; the declaration (ActionDeclaration) names permissions, which
 * see the bound resource, so it is in types/resource.ts with them.
 */
import type { Transaction } from 'sequelize';
import type { MessageParams } from '../errors.js';
import type { Row, RowModel } from '../types/rows.js';
import type { AuthUser } from '../types/auth.js';

export type ActionMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface ActionContext {
  readonly user: AuthUser | null;
  /** The row of a detail action (its permissions already checked); null on a list action. */
  readonly row: Row | null;
  /** The action's input fields, validated. */
  readonly data: Record<string, unknown>;
  readonly method: ActionMethod;
  /**
   * Writes to the row as an update would (hooks, the update time); returns it
   * written. Inside `transaction(work)`, pass work's transaction so that the
   * update stands or falls with the rest; else it has a transaction of its own.
   */
  update(values: Record<string, unknown>, transaction?: Transaction): Promise<Row>;
  /** Runs `work` in one transaction; writes made with it stand or fall together. */
  transaction<T>(work: (transaction: Transaction) => Promise<T>): Promise<T>;
  model(name: string): RowModel;
  /** Refuses with a field error (message key under `<resource>.errors.` in the `resources` catalogue). */
  refuse(field: string, key: string, params?: MessageParams): never;
}

/**
 * What an action answers: nothing (a detail action then shows the row as
 * the site shows it, a list action answers 204), a row of this resource
 * (shown as the site shows rows), or a body of its own with a status.
 */
export type ActionResult = void | Row | { status?: number; body: unknown };
