/**
 * Custom actions, as Django REST Framework's `@action` and a Laravel route to
 * a controller method: a route on one row (`/<path>/<pk>/<action>/`) or on the
 * list (`/<path>/<action>/`), on every site the resource is exposed on, with its
 * own methods, permissions and input fields.
 */
import type { Transaction } from 'sequelize';
import type { MessageParams } from '../errors.js';
import type { JsonSchema } from '../openapi/types.js';
import type { Permission } from '../permissions.js';
import type { FieldDeclaration } from '../resource.js';
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

export interface ActionDeclaration {
  /** On one row (`/<path>/<pk>/<name>/`), or on the list (`/<path>/<name>/`). */
  detail: boolean;
  /** Default: POST. */
  methods?: readonly ActionMethod[];
  /** Default: the exposure's permissions. */
  permissions?: readonly Permission[];
  /** Fields the request body may hold, validated as a resource's fields are. */
  input?: Readonly<Record<string, FieldDeclaration>>;
  /** What the action answers when `run` gives a body of its own, for the API description (default: the row, or 204). */
  response?: { status?: number; schema?: JsonSchema };
  /** The URL segment; default: the action's name with underscores as hyphens. */
  path?: string;
  run(ctx: ActionContext): Promise<ActionResult> | ActionResult;
}

export type ResourceActions = Readonly<Record<string, ActionDeclaration>>;
