/**
 * The words of the declaration language that refer to no other part of it:
 * model actions, orders, page sizes and styles, list queries, wrapping keys,
 * the account and token models' contracts, abilities and the admin's view.
 * Types only; a resource as a whole is in types/resource.ts.
 */

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
