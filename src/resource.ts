/**
 * The declaration language of `resources/`: a resource names its table, its
 * fields, who owns a row, and how each site exposes it. Everything else (the
 * Sequelize model, routes, validation, representation, metadata) is derived.
 */
import type { FieldDeclaration } from './fields.js';
import type { Permission } from './permissions.js';
import { assertListQueries } from './querying/declaration.js';
import type { ResourceActions } from './actions/declaration.js';
import type { ResourceHooks, Validator } from './hooks.js';
import { assertRelations } from './relations/declaration.js';
import { assertAbilities } from './auth/abilities.js';
import type { ResourcePolicies } from './policy-types.js';

// Field kinds and `field` are part of the language a declaration imports from here.
export * from './fields.js';

/** The six model actions, and `current`: the authenticated user's own row (the account model only). */
export type ActionName = 'list' | 'retrieve' | 'create' | 'update' | 'partial_update' | 'destroy' | 'current';

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
  /**
   * The most rows the list answers whole (asked with no page): a longer one
   * is refused with a 400 that names the page parameters to use instead.
   * Default: 10,000 (pagination/offered.ts).
   */
  maxWholeList?: number;
}

/**
 * What clients may ask of a list, declared once; each site speaks it in its
 * ecosystem's dialect (django-filter and DRF's filters at the root,
 * spatie/laravel-query-builder under /api). Only what is named here can be
 * filtered, searched, ordered, selected or expanded; and a site filters,
 * searches and orders only by the fields its list shows, or names in `unshown`.
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
  /**
   * Fields the list may be filtered, searched or ordered by although the
   * site does not show them. Each comparison tells a client something of the
   * field's values (`created_at__lte=…`, asked again and again, reads a time
   * to the millisecond), so name only fields whose values are no secret.
   */
  unshown?: readonly string[];
}

/** Keys a site that wraps its bodies puts one row or a list under (Laravel's JsonResource::$wrap). */
export interface Wrap {
  item?: string;
  list?: string;
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

/** The account model's contract, as Django's USERNAME_FIELD and EMAIL_FIELD. */
export interface UserModelContract {
  usernameField: string;
  emailField: string;
  /** The display name shown as a row's owner. */
  displayField: string;
}

/** The access-token model's contract: the reference to the account that owns a token, and how logins name theirs. */
export interface TokenModelContract {
  userField: string;
  /** The `name` of tokens issued by the API's login. */
  loginTokenName: string;
}

/**
 * The API-token abilities (Laravel Sanctum's) a resource's actions need. By
 * default reads (list, retrieve, current, a custom action by GET) need
 * `<table>:read` and every other action `<table>:write`; `*` grants all.
 */
export interface AbilityDeclaration {
  /** The ability of reads; default `<table>:read`. */
  read?: string;
  /** The ability of writes; default `<table>:write`. */
  write?: string;
  /** Per action (a model action or a custom action's name), over `read` and `write`; null: any token may. */
  actions?: Readonly<Record<string, string | null>>;
}

/** What staff may do with a resource in the admin site. */
export type AdminAction = 'list' | 'show' | 'new' | 'edit' | 'delete';

/** The admin actions of a resource that declares none: all five. */
export const ALL_ADMIN_ACTIONS: readonly AdminAction[] = ['list', 'show', 'new', 'edit', 'delete'];

/** How the admin site shows a resource; every declared resource has an admin page, these only narrow it. */
export interface AdminExposure {
  /** Default: all five. */
  actions?: readonly AdminAction[];
  /** Columns of the list; default: the first six visible fields. */
  list?: readonly string[];
  /** The list's columns a phone shows (narrower than 577 px), some of `list`; default: all of them, the table scrolling sideways in its box. */
  phoneList?: readonly string[];
  /** Fields the list can be filtered by; default: every visible field. */
  filters?: readonly string[];
  /** Text fields the search matches (any of them, ignoring case); default: the display field. */
  search?: readonly string[];
}

/**
 * A resource. Its `authenticators`, `renderers` and `parsers` (an
 * application's own, src/policy-types.ts) serve its routes on every site, a
 * list added after the site's, a function of the site's list replacing it.
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
  const named = [...(admin.list ?? []), ...(admin.phoneList ?? []), ...(admin.filters ?? []), ...(admin.search ?? [])];
  assertFields(declaration, named, 'admin');
  for (const name of named) {
    if (declaration.fields[name]?.hidden) throw new Error(`Resource ${declaration.name}: hidden field "${name}" cannot be shown in the admin`);
  }
  const offList = admin.list ? admin.phoneList?.find((name) => !admin.list?.includes(name)) : undefined;
  if (offList !== undefined) throw new Error(`Resource ${declaration.name}: admin.phoneList names "${offList}", which admin.list does not show`);
}

/** Checks a declaration's internal references when its module loads, so mistakes fail at start, not on a request. */
export function defineResource<const T extends ResourceDeclaration>(declaration: T): T {
  const ids = Object.entries(declaration.fields).filter(([, declared]) => declared.kind === 'id');
  if (ids.length !== 1) {
    const found = ids.length === 0 ? 'none' : ids.map(([name]) => name).join(', ');
    throw new Error(`Resource ${declaration.name}: declares one id field, as every resource does (id: field.id()); it declares ${found}`);
  }
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
  assertAbilities(declaration);
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
