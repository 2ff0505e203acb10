/**
 * A resource as declared in resources/ and as bound to one database, with the
 * parts of a declaration that see the bound resource back (a permission, a
 * custom action's permissions): these refer to one another, so they share a
 * module. Types only; resource.ts checks a declaration, registry.ts binds it.
 */
import type { ActionContext, ActionMethod, ActionResult } from '../actions/declaration.js';
import type { FieldDeclaration } from '../fields.js';
import type { ResourceHooks, Validator } from '../hooks.js';
import type { JsonSchema } from '../openapi/types.js';
import type {
  AbilityDeclaration,
  ActionName,
  AdminExposure,
  FieldRules,
  ListQuery,
  Ordering,
  Pagination,
  TokenModelContract,
  UserModelContract,
  Wrap,
} from './declaration.js';
import type { RequestState } from './request.js';
import type { RowModel, StoredRecord } from './rows.js';
import type { ResourcePolicies } from '../policy-types.js';

/**
 * A resource. Its `authenticators`, `renderers` and `parsers` (an application's own,
 * src/policy-types.ts) serve its routes on every site, a list added after the
 * site's, a function of the site's list replacing it.
 */
export interface ResourceDeclaration extends ResourcePolicies {
  /** Model name, singular, e.g. `Invoice`. Its lower-case form keys its labels in `locales/<lang>/resources.json`. */
  name: string;
  table: string;
  fields: Readonly<Record<string, FieldDeclaration>>;
  /** The reference field that holds the owning user, for owner-only writes. */
  ownerField?: string;
  /** Present on the one resource that is the account model. */
  userModel?: UserModelContract;
  /** Present on the one resource that holds API tokens (Sanctum's personal_access_tokens). */
  tokenModel?: TokenModelContract;
  /** The field that names a row for people, e.g. as a row's owner; default: the user model's display field, else id. */
  displayField?: string;
  permissions?: readonly Permission[];
  /** What an API token must be allowed to use its actions; requests without a token (sessions, HTTP Basic) may do all. */
  abilities?: AbilityDeclaration;
  /** What clients may ask of this resource's lists on every site, unless an exposure says otherwise. */
  query?: ListQuery;
  sites?: Readonly<Record<string, SiteExposure>>;
  admin?: AdminExposure;
  /** Code run inside each write's transaction, before and after it (Django's save/delete signals, Laravel's model events). */
  hooks?: ResourceHooks;
  /**
   * Cross-field validation of every create and update (DRF's
   * `Serializer.validate`): it sees the row as the write would leave it and
   * may read other rows; `refuse` answers a field error in each site's shape.
   */
  validate?: Validator;
  /** Further routes on a row or on the list (DRF's @action, a Laravel route to a controller method), by name. */
  actions?: ResourceActions;
  /**
   * Indexes beyond those the lists need (Django's Meta.indexes), by name;
   * `makemigrations` derives the rest (src/schema/declared.ts).
   */
  indexes?: Readonly<Record<string, { columns: readonly string[]; unique?: boolean }>>;
}

/**
 * How one site serves a resource. Its `authenticators`, `renderers` and
 * `parsers` replace the resource's on this site (src/policy-types.ts).
 */
export interface SiteExposure extends ResourcePolicies {
  /** URL segment under the site's mount point, e.g. `invoices`. */
  path: string;
  actions: readonly ActionName[];
  /**
   * Fields shown in responses (and accepted in requests unless read-only), in
   * this order. A reference's `as` name shows the referenced row's display name.
   */
  fields: readonly string[];
  /** Fields the retrieve action shows instead of `fields`. */
  retrieveFields?: readonly string[];
  /** Related rows (by `related` name) the `current` action shows with the row, in all their visible fields. */
  include?: readonly string[];
  rules?: Readonly<Record<string, FieldRules>>;
  /** Order of lists; default: id ascending. */
  ordering?: Ordering;
  wrap?: Wrap;
  /** Overrides the site's pagination: its default style, the styles clients may choose, the sizes. */
  pagination?: Pagination;
  /** What clients may ask of the list on this site; each key replaces the resource's. */
  query?: ListQuery;
  /** Overrides the resource's permissions on this site. */
  permissions?: readonly Permission[];
}

/** A model action, OPTIONS' `metadata`, or the name of a custom action the declaration adds (its name). */
export type PermissionAction = ActionName | 'metadata' | (string & Record<never, never>);

/** As Django REST Framework's BasePermission: a request-level and an object-level question (which may read other rows). */
export interface Permission {
  hasPermission?(ctx: RequestState, action: PermissionAction | null): boolean;
  hasObjectPermission?(ctx: RequestState, action: PermissionAction, row: StoredRecord, resource: BoundResource): boolean | Promise<boolean>;
}

/** A custom action of the declaration's `actions`: where it is routed, who may run it, what it reads, what it runs. */
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

/** A declaration bound to one database: its Sequelize model and the names it is known by. */
export interface BoundResource {
  declaration: ResourceDeclaration;
  model: RowModel;
  /** Lower-case name: the key of its labels in the `resources` catalogue. */
  key: string;
  timestamps: Timestamps;
  /** Reference `as` name → the foreign-key field and the resource it points at. */
  references: Map<string, Relation>;
  /** `related` name → the resource whose rows point here, and their foreign-key field. */
  related: Map<string, Relation>;
  /** Every relation by the name a request expands it by: references' `as`, `related` names, many-to-many fields. */
  relations: Map<string, AnyRelation>;
  /** Columns that make up a row's display name, the first non-empty wins. */
  displayFields: readonly string[];
}

export interface Relation {
  field: string;
  resource: BoundResource;
}

/** The model of a many-to-many's join table, one row per linked pair. */
export interface JoinTable {
  model: RowModel;
  /** Its column holding the near side's id. */
  from: string;
  /** Its column holding the far side's id. */
  to: string;
  /** The association from a join row to the far side's row. */
  far: string;
}

/**
 * How a row reaches other rows: a reference it holds (`field` is its own
 * column), rows whose reference holds its id (`field` is theirs), or rows
 * linked through a join table.
 */
export type AnyRelation =
  | { kind: 'reference'; field: string; resource: BoundResource }
  | { kind: 'related'; field: string; resource: BoundResource }
  | { kind: 'manyToMany'; join: JoinTable; resource: BoundResource };

/** The fields the clock writes on create and on every update. */
export interface Timestamps {
  created?: string;
  updated?: string;
}
