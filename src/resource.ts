/**
 * The declaration language of `resources/`: a resource names its table, its
 * fields, who owns a row, and how each site exposes it. Everything else (the
 * Sequelize model, routes, validation, representation, metadata) is derived.
 */
import type { Permission } from './permissions.js';
import { assertListQueries } from './querying/declaration.js';
import type { ResourceActions } from './actions/declaration.js';
import type { ResourceHooks } from './hooks.js';
import { assertRelations } from './relations/declaration.js';

/** The six model actions, and `current`: the authenticated user's own row (the account model only). */
export type ActionName = 'list' | 'retrieve' | 'create' | 'update' | 'partial_update' | 'destroy' | 'current';

interface CommonField {
  /** The column accepts NULL (and the serializer accepts null). */
  nullable?: boolean;
  /** Set by the service; ignored in requests. */
  readOnly?: boolean;
  /** Never leaves the server: not loaded by default, in no response, log or admin page. */
  hidden?: boolean;
  default?: string | number | boolean | null;
  /** A typical value, shown in the API description's examples. */
  example?: string | number | boolean;
}

export interface IdField extends CommonField {
  kind: 'id';
}

export interface StringField extends CommonField {
  kind: 'string' | 'text';
  /** Longest value, counted in Unicode code points. */
  maxLength?: number;
  format?: 'email' | 'username';
  unique?: boolean;
  /** Uniqueness and look-ups ignore letter case. */
  caseInsensitive?: boolean;
}

export interface BooleanField extends CommonField {
  kind: 'boolean';
}

export interface DateTimeField extends CommonField {
  kind: 'datetime';
  /** Written by the framework's clock when the row is created or on every save. */
  auto?: 'create' | 'update';
}

export interface IntegerField extends CommonField {
  kind: 'integer';
  min?: number;
  max?: number;
}

/** An exact decimal number, as Django's DecimalField: shown and accepted as a string such as "12.50". */
export interface DecimalField extends CommonField {
  kind: 'decimal';
  maxDigits: number;
  decimalPlaces: number;
  min?: number;
  max?: number;
}

/** One of a fixed set of strings (Django's choices, Laravel's Rule::in); shown as a select. */
export interface EnumField extends CommonField {
  kind: 'enum';
  choices: readonly string[];
}

/** Any JSON value, stored as JSON text. */
export interface JsonField extends Omit<CommonField, 'default' | 'example'> {
  kind: 'json';
  default?: unknown;
  example?: unknown;
}

/** A calendar date, shown and accepted as YYYY-MM-DD. */
export interface DateField extends CommonField {
  kind: 'date';
}

export interface ReferenceField extends CommonField {
  kind: 'reference';
  /** Name of the referenced resource. */
  to: string;
  /**
   * Name of the relation: `?expand=`/`include=` it to show the referenced row
   * with each row; in an exposure's fields it shows that row's display name.
   * The field itself (`<name>_id`) is written with the referenced row's id unless read-only.
   */
  as: string;
  /** Name under which the referenced resource reaches the rows that point at it (Django's related_name). */
  related?: string;
  onDelete: 'SET NULL' | 'CASCADE' | 'RESTRICT';
}

/** The table that links two resources' rows, one row per pair (Django's `through`, Laravel's pivot table). */
export interface JoinTable {
  table: string;
  /** Its column holding this resource's id. */
  from: string;
  /** Its column holding the other resource's id. */
  to: string;
}

/**
 * Rows of another resource linked through a join table (Django's
 * ManyToManyField, Laravel's belongsToMany). Shown as a list of ids, or the
 * rows themselves when expanded; written as a list of ids.
 */
export interface ManyToManyField {
  kind: 'manyToMany';
  to: string;
  through: JoinTable;
  /** Name under which the other resource reaches these rows. */
  related?: string;
  readOnly?: boolean;
  hidden?: boolean;
  nullable?: undefined;
  default?: undefined;
  example?: readonly number[];
}

/** The kinds a computed field is shown and documented as. */
export type ComputedType = 'integer' | 'decimal' | 'string' | 'boolean' | 'datetime' | 'date' | 'json';

/**
 * A read-only value derived from the row (DRF's SerializerMethodField, a
 * Laravel accessor in `$appends`): either the number of related rows
 * (`count`, one grouped query per page) or a function of the row's own values.
 */
export interface ComputedField {
  kind: 'computed';
  type: ComputedType;
  /** A related rows' name (a reference's `related` or a many-to-many): their number. */
  count?: string;
  /** The value from the row's stored values (every column, hidden ones excepted). */
  value?: (row: Readonly<Record<string, unknown>>) => unknown;
  readOnly: true;
  hidden?: undefined;
  nullable?: boolean;
  default?: undefined;
  example?: string | number | boolean;
}

export type ColumnField =
  | IdField
  | StringField
  | BooleanField
  | DateTimeField
  | IntegerField
  | DecimalField
  | EnumField
  | JsonField
  | DateField
  | ReferenceField;

export type FieldDeclaration = ColumnField | ManyToManyField | ComputedField;

/** Whether a field is a column of the resource's own table (a many-to-many and a computed field are not). */
export function isColumn(field: FieldDeclaration): field is ColumnField {
  return field.kind !== 'manyToMany' && field.kind !== 'computed';
}

type Options<F> = Omit<F, 'kind'>;

export const field = {
  id: (): IdField => ({ kind: 'id', readOnly: true }),
  string: (options: Options<StringField> = {}): StringField => ({ kind: 'string', ...options }),
  text: (options: Options<StringField> = {}): StringField => ({ kind: 'text', ...options }),
  boolean: (options: Options<BooleanField> = {}): BooleanField => ({ kind: 'boolean', ...options }),
  datetime: (options: Options<DateTimeField> = {}): DateTimeField => ({ kind: 'datetime', ...options }),
  createdAt: (): DateTimeField => ({ kind: 'datetime', auto: 'create', readOnly: true }),
  updatedAt: (): DateTimeField => ({ kind: 'datetime', auto: 'update', readOnly: true }),
  integer: (options: Options<IntegerField> = {}): IntegerField => ({ kind: 'integer', ...options }),
  decimal: (options: Options<DecimalField>): DecimalField => ({ kind: 'decimal', ...options }),
  enum: (choices: readonly string[], options: Omit<EnumField, 'kind' | 'choices'> = {}): EnumField => ({ kind: 'enum', choices, ...options }),
  json: (options: Options<JsonField> = {}): JsonField => ({ kind: 'json', ...options }),
  date: (options: Options<DateField> = {}): DateField => ({ kind: 'date', ...options }),
  reference: (to: string, options: Omit<ReferenceField, 'kind' | 'to'>): ReferenceField => ({
    kind: 'reference',
    to,
    ...options,
  }),
  manyToMany: (to: string, options: Omit<ManyToManyField, 'kind' | 'to'>): ManyToManyField => ({ kind: 'manyToMany', to, ...options }),
  /** The number of related rows, by their relation name. */
  count: (related: string, options: { example?: number } = {}): ComputedField => ({
    kind: 'computed',
    type: 'integer',
    count: related,
    readOnly: true,
    ...options,
  }),
  computed: (type: ComputedType, value: ComputedField['value'], options: { nullable?: boolean; example?: string | number | boolean } = {}): ComputedField => ({
    kind: 'computed',
    type,
    value,
    readOnly: true,
    ...options,
  }),
};

/** A site's own limits on a field, narrower than the column's. */
export interface FieldRules {
  maxLength?: number;
  required?: boolean;
}

export type Direction = 'ASC' | 'DESC';
export type Ordering = readonly (readonly [field: string, direction: Direction])[];

export interface PageSizes {
  pageSize: number;
  maxPageSize: number;
}

/**
 * How a list filter compares a field with the value a client sends, as
 * django-filter's lookup expressions: `exact` equality, `icontains` a
 * case-insensitive substring, `in` any of several values, the four ranges
 * for numbers and times, `isnull` (true or false).
 */
export type Lookup = 'exact' | 'icontains' | 'in' | 'gt' | 'gte' | 'lt' | 'lte' | 'isnull';

/**
 * Django REST Framework's three paginators: page numbers (`page`), `limit` and
 * `offset`, and opaque cursors that keep their place however long the list.
 */
export type PaginationStyle = 'page' | 'limitOffset' | 'cursor';

/** How a list is cut into pages. Each site speaks each style in its own words and shapes. */
export interface Pagination extends Partial<PageSizes> {
  /** The style of a list asked with no pagination parameter, or `none`: the whole list. Default: the site's. */
  default?: PaginationStyle | 'none';
  /** Further styles a client chooses by naming their parameters (`limit`/`offset`, `cursor`, `page`/`per_page`). */
  styles?: readonly PaginationStyle[];
}

/**
 * What clients may ask of a list, declared once; each site speaks it in its
 * ecosystem's dialect (django-filter and DRF's filters at the root,
 * spatie/laravel-query-builder under /api). Only what is named here can be
 * filtered, searched, ordered, selected or expanded.
 */
export interface ListQuery {
  /** Field → the lookups clients may use on it. */
  filters?: Readonly<Record<string, readonly Lookup[]>>;
  /** Text fields a search term is looked for in (every term must be found in one of them). */
  search?: readonly string[];
  /** Fields clients may order by (DRF's ordering_fields, spatie's allowedSorts); the exposure's `ordering` stays the default. */
  orderingFields?: readonly string[];
  /** Clients may ask for only some of the fields shown (`?fields=`, `fields[<table>]=`). */
  sparseFields?: boolean;
  /**
   * Relations a client may ask to be shown with each row (`?expand=`,
   * `include=`): a reference's `as` name, a many-to-many, or a `related`
   * name; dotted for a relation of a relation (`<relation>.<its relation>`), up to three deep.
   */
  expand?: readonly string[];
}

/** Keys a site that wraps its bodies puts one row or a list under (Laravel's JsonResource::$wrap). */
export interface Wrap {
  item?: string;
  list?: string;
}

/** How one site serves a resource. */
export interface SiteExposure {
  /** URL segment under the site's mount point, e.g. `comments`. */
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

/** The account model's contract, as Django's USERNAME_FIELD and EMAIL_FIELD. */
export interface UserModelContract {
  usernameField: string;
  emailField: string;
  /** The display name shown as a comment's owner. */
  displayField: string;
}

/** The access-token model's contract: the reference to the account that owns a token, and how logins name theirs. */
export interface TokenModelContract {
  userField: string;
  /** The `name` of tokens issued by the API's login. */
  loginTokenName: string;
}

/** What staff may do with a resource in the admin site. */
export type AdminAction = 'list' | 'show' | 'new' | 'edit' | 'delete';

/** How the admin site shows a resource; every declared resource has an admin page, these only narrow it. */
export interface AdminExposure {
  /** Default: all five. */
  actions?: readonly AdminAction[];
  /** Columns of the list; default: the first six visible fields. */
  list?: readonly string[];
  /** Fields the list can be filtered by; default: every visible field. */
  filters?: readonly string[];
  /** Text fields the search matches (any of them, ignoring case); default: the display field. */
  search?: readonly string[];
}

export interface ResourceDeclaration {
  /** Model name, singular, e.g. `Comment`. Its lower-case form keys its labels in `locales/<lang>/resources.json`. */
  name: string;
  table: string;
  fields: Readonly<Record<string, FieldDeclaration>>;
  /** The reference field that holds the owning user, for owner-only writes. */
  ownerField?: string;
  /** Present on the one resource that is the account model. */
  userModel?: UserModelContract;
  /** Present on the one resource that holds API tokens (Sanctum's personal_access_tokens). */
  tokenModel?: TokenModelContract;
  /** The field that names a row for people, e.g. as a comment's owner; default: the user model's display field, else id. */
  displayField?: string;
  permissions?: readonly Permission[];
  /** What clients may ask of this resource's lists on every site, unless an exposure says otherwise. */
  query?: ListQuery;
  sites?: Readonly<Record<string, SiteExposure>>;
  admin?: AdminExposure;
  /** Code run inside each write's transaction, before and after it (Django's save/delete signals, Laravel's model events). */
  hooks?: ResourceHooks;
  /** Further routes on a row or on the list (DRF's @action, a Laravel route to a controller method), by name. */
  actions?: ResourceActions;
}

/** The `as` name of a reference, which an exposure may show (as the referenced row's display name). */
function isReferenceAlias(declaration: ResourceDeclaration, name: string): boolean {
  return Object.values(declaration.fields).some((field) => field.kind === 'reference' && field.as === name);
}

function assertFields(declaration: ResourceDeclaration, names: readonly string[], where: string, aliases = false): void {
  for (const name of names) {
    if (!(name in declaration.fields) && !(aliases && isReferenceAlias(declaration, name))) {
      throw new Error(`Resource ${declaration.name}: ${where} names unknown field "${name}"`);
    }
  }
}

function assertAdmin(declaration: ResourceDeclaration): void {
  const admin = declaration.admin;
  if (!admin) return;
  const named = [...(admin.list ?? []), ...(admin.filters ?? []), ...(admin.search ?? [])];
  assertFields(declaration, named, 'admin');
  for (const name of named) {
    if (declaration.fields[name]?.hidden) throw new Error(`Resource ${declaration.name}: hidden field "${name}" cannot be shown in the admin`);
  }
}

/** Checks a declaration's internal references when its module loads, so mistakes fail at start, not on a request. */
export function defineResource<const T extends ResourceDeclaration>(declaration: T): T {
  if (declaration.ownerField) {
    assertFields(declaration, [declaration.ownerField], 'ownerField');
    if (declaration.fields[declaration.ownerField]?.kind !== 'reference') {
      throw new Error(`Resource ${declaration.name}: ownerField must be a reference field`);
    }
  }
  if (declaration.userModel) {
    const { usernameField, emailField, displayField } = declaration.userModel;
    assertFields(declaration, [usernameField, emailField, displayField], 'userModel');
  }
  if (declaration.tokenModel) {
    assertFields(declaration, [declaration.tokenModel.userField], 'tokenModel');
  }
  if (declaration.displayField) assertFields(declaration, [declaration.displayField], 'displayField');
  assertAdmin(declaration);
  assertRelations(declaration);
  assertListQueries(declaration);
  for (const [site, exposure] of Object.entries(declaration.sites ?? {})) {
    assertFields(declaration, exposure.fields, `sites.${site}.fields`, true);
    assertFields(declaration, exposure.retrieveFields ?? [], `sites.${site}.retrieveFields`, true);
    assertFields(declaration, Object.keys(exposure.rules ?? {}), `sites.${site}.rules`);
    assertFields(declaration, (exposure.ordering ?? []).map(([name]) => name), `sites.${site}.ordering`);
    if (exposure.actions.includes('current') && !declaration.userModel) {
      throw new Error(`Resource ${declaration.name}: only the user model has a current action (sites.${site})`);
    }
    for (const name of [...exposure.fields, ...(exposure.retrieveFields ?? [])]) {
      if (declaration.fields[name]?.hidden) {
        throw new Error(`Resource ${declaration.name}: hidden field "${name}" cannot be exposed on ${site}`);
      }
    }
  }
  return declaration;
}
