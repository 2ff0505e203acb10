/**
 * A resource's list queries (`query` and `pagination` in its declaration):
 * what each site offers of them, and their checks, run when the declaration
 * loads, so that a mistake fails at start, never as a request's 500.
 *
 * Hidden fields can be neither filtered, searched nor ordered by: each would
 * let a client guess them one comparison at a time (`created_at__lte=…`,
 * halving the interval until the millisecond; a text, a substring at a time).
 * For the same reason a site offers those comparisons only on the fields its
 * lists show, and on those its query names in `unshown`; a query naming a
 * field that no site would offer it on is a mistake.
 */
import type { FieldDeclaration } from '../fields.js';
import type { ListQuery, Lookup } from '../types/declaration.js';
import type { ResourceDeclaration, SiteExposure } from '../types/resource.js';

/** The lookups that compare by order: numbers and times. */
export const RANGES: readonly Lookup[] = ['gt', 'gte', 'lt', 'lte'];

/** Which lookups make sense for each kind of field (ranges on numbers and times, substrings on text). */
export const LOOKUPS_BY_KIND: Readonly<Record<FieldDeclaration['kind'], readonly Lookup[]>> = {
  id: ['exact', 'in', ...RANGES],
  reference: ['exact', 'in', ...RANGES, 'isnull'],
  string: ['exact', 'icontains', 'in', 'isnull'],
  text: ['exact', 'icontains', 'in', 'isnull'],
  boolean: ['exact', 'isnull'],
  datetime: ['exact', ...RANGES, 'isnull'],
  integer: ['exact', 'in', ...RANGES, 'isnull'],
  decimal: ['exact', 'in', ...RANGES, 'isnull'],
  enum: ['exact', 'in', 'isnull'],
  date: ['exact', ...RANGES, 'isnull'],
  json: [],
  // Rows linked to any of the ids given.
  manyToMany: ['exact', 'in'],
  computed: [],
};

/** Query parameters either dialect already gives a meaning: a filter must not be named like one. */
export const RESERVED_PARAMETERS: ReadonlySet<string> = new Set([
  'page', 'page_size', 'per_page', 'limit', 'offset', 'cursor', 'search', 'ordering', 'sort',
  'fields', 'expand', 'include', 'filter', 'format',
]);

/** The keys of a list query that compare a field's values: what a site offers only on the fields it may be asked about. */
const COMPARING_KEYS = ['filters', 'search', 'orderingFields'] as const;
type ComparingKey = (typeof COMPARING_KEYS)[number];

/** An exposure's list query: its own keys over the resource's. */
function effectiveQuery(declaration: ResourceDeclaration, exposure: SiteExposure): ListQuery {
  return { ...declaration.query, ...exposure.query };
}

/** The fields one key of a query names. */
function comparedFields(query: ListQuery, key: ComparingKey): string[] {
  return key === 'filters' ? Object.keys(query.filters ?? {}) : [...(query[key] ?? [])];
}

/** The fields a site's lists may be asked about: those they show, and those `query` names in `unshown`. */
function askableFields(exposure: SiteExposure, query: ListQuery): ReadonlySet<string> {
  return new Set([...exposure.fields, ...(query.unshown ?? [])]);
}

/** The exposure's list query as its site offers it: every comparison on a field it may be asked about, the rest as declared. */
export function offeredQuery(declaration: ResourceDeclaration, exposure: SiteExposure): ListQuery {
  const query = effectiveQuery(declaration, exposure);
  const askable = askableFields(exposure, query);
  const offered: ListQuery = { ...query };
  if (query.filters) offered.filters = Object.fromEntries(Object.entries(query.filters).filter(([name]) => askable.has(name)));
  if (query.search) offered.search = query.search.filter((name) => askable.has(name));
  if (query.orderingFields) offered.orderingFields = query.orderingFields.filter((name) => askable.has(name));
  return offered;
}

function fail(declaration: ResourceDeclaration, where: string, message: string): never {
  throw new Error(`Resource ${declaration.name}: ${where} ${message}`);
}

function column(declaration: ResourceDeclaration, where: string, name: string): FieldDeclaration {
  const field = declaration.fields[name];
  if (!field) fail(declaration, where, `names unknown field "${name}"`);
  if (field.hidden) fail(declaration, where, `names hidden field "${name}"`);
  return field;
}

function assertFilters(declaration: ResourceDeclaration, where: string, filters: ListQuery['filters'] = {}): void {
  for (const [name, lookups] of Object.entries(filters)) {
    const field = column(declaration, `${where}.filters`, name);
    if (RESERVED_PARAMETERS.has(name)) fail(declaration, `${where}.filters`, `cannot filter "${name}": it is a query parameter of its own`);
    if (lookups.length === 0) fail(declaration, `${where}.filters.${name}`, 'names no lookup');
    for (const lookup of lookups) {
      if (!LOOKUPS_BY_KIND[field.kind].includes(lookup)) {
        fail(declaration, `${where}.filters.${name}`, `cannot use "${lookup}" on a ${field.kind} field`);
      }
      if (lookup === 'isnull' && !field.nullable) fail(declaration, `${where}.filters.${name}`, 'uses isnull on a field that is never null');
    }
  }
}

function assertQuery(declaration: ResourceDeclaration, where: string, query: ListQuery): void {
  assertFilters(declaration, where, query.filters);
  for (const name of query.search ?? []) {
    const field = column(declaration, `${where}.search`, name);
    if (field.kind !== 'string' && field.kind !== 'text') fail(declaration, `${where}.search`, `names "${name}", which is no text field`);
  }
  for (const name of query.orderingFields ?? []) column(declaration, `${where}.orderingFields`, name);
  for (const name of query.unshown ?? []) column(declaration, `${where}.unshown`, name);
  // A hidden relation is not shown, so neither are the rows it reaches. A name that is no field of
  // this resource may be another's `related` name: the registry checks those once every resource is known.
  for (const path of query.expand ?? []) {
    const [name = ''] = path.split('.');
    const reference = Object.values(declaration.fields).find((field) => field.kind === 'reference' && field.as === name);
    const field = reference ?? declaration.fields[name];
    if (field && ((field.kind !== 'reference' && field.kind !== 'manyToMany') || field.hidden)) {
      fail(declaration, `${where}.expand`, `names "${name}", which is no relation (a reference's \`as\` name, a many-to-many or a related name)`);
    }
  }
}

/** A cursor continues after the last row's values: NULL compares with nothing, so cursor orderings are of NOT NULL columns. */
function assertCursorOrdering(declaration: ResourceDeclaration, site: string, exposure: SiteExposure): void {
  const pagination = exposure.pagination;
  const styles = [pagination?.default, ...(pagination?.styles ?? [])];
  if (!styles.includes('cursor')) return;
  const ordered = [...(exposure.ordering ?? []).map(([name]) => name), ...(offeredQuery(declaration, exposure).orderingFields ?? [])];
  for (const name of ordered) {
    if (declaration.fields[name]?.nullable) fail(declaration, `sites.${site}`, `pages by cursor, so it cannot order by "${name}", which may be null`);
  }
}

/**
 * `unshown` opens fields to the comparisons of `queries` (the one it is
 * declared in, and the sites' that take it): a name none of them compares
 * opens nothing, and is a mistake.
 */
function assertUnshownUsed(declaration: ResourceDeclaration, where: string, unshown: readonly string[], queries: readonly ListQuery[]): void {
  for (const name of unshown) {
    if (!queries.some((query) => COMPARING_KEYS.some((key) => comparedFields(query, key).includes(name)))) {
      fail(declaration, `${where}.unshown`, `names "${name}", which the query neither filters, searches nor orders by`);
    }
  }
}

/**
 * Each field a query compares is offered by a site: a site's own names on
 * that site; the resource's on at least one of the sites that take them
 * (another may leave it out, because it does not show it).
 */
function assertOffered(declaration: ResourceDeclaration): void {
  const sites = Object.entries(declaration.sites ?? {});
  const askable = new Map(sites.map(([site, exposure]) => [site, askableFields(exposure, effectiveQuery(declaration, exposure))]));
  const advice = (where: string): string => `show it, name it in ${where}.unshown if its values are no secret, or leave it out`;
  for (const key of COMPARING_KEYS) {
    for (const [site, exposure] of sites) {
      if (exposure.query?.[key] === undefined) continue;
      for (const name of comparedFields(exposure.query, key)) {
        if (!askable.get(site)?.has(name)) fail(declaration, `sites.${site}.query.${key}`, `names "${name}", which the site does not show: ${advice(`sites.${site}.query`)}`);
      }
    }
    const taking = sites.filter(([, exposure]) => exposure.query?.[key] === undefined).map(([site]) => site);
    if (!declaration.query || taking.length === 0) continue;
    for (const name of comparedFields(declaration.query, key)) {
      if (!taking.some((site) => askable.get(site)?.has(name))) fail(declaration, `query.${key}`, `names "${name}", which no site shows (${taking.join(', ')}): ${advice('query')}`);
    }
  }
}

/** Throws on the first mistake in the resource's list queries, resource-wide and per site. */
export function assertListQueries(declaration: ResourceDeclaration): void {
  const exposures = Object.values(declaration.sites ?? {});
  if (declaration.query) {
    assertQuery(declaration, 'query', declaration.query);
    const taking = exposures.filter((exposure) => exposure.query?.unshown === undefined).map((exposure) => effectiveQuery(declaration, exposure));
    assertUnshownUsed(declaration, 'query', declaration.query.unshown ?? [], [declaration.query, ...taking]);
  }
  for (const [site, exposure] of Object.entries(declaration.sites ?? {})) {
    if (exposure.query) assertQuery(declaration, `sites.${site}.query`, exposure.query);
    if (exposure.query?.unshown) assertUnshownUsed(declaration, `sites.${site}.query`, exposure.query.unshown, [effectiveQuery(declaration, exposure)]);
    assertCursorOrdering(declaration, site, exposure);
    const { pageSize, maxPageSize, maxWholeList } = exposure.pagination ?? {};
    for (const size of [pageSize, maxPageSize, maxWholeList]) {
      if (size !== undefined && !(Number.isInteger(size) && size >= 1)) fail(declaration, `sites.${site}.pagination`, 'sizes must be positive integers');
    }
    if (pageSize !== undefined && maxPageSize !== undefined && pageSize > maxPageSize) fail(declaration, `sites.${site}.pagination`, 'pageSize is above maxPageSize');
  }
  assertOffered(declaration);
}
