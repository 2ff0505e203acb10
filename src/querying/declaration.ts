/**
 * The checks of a resource's list queries (`query` and `pagination` in its
 * declaration), run when the declaration loads: a mistake fails at start,
 * never as a request's 500. Hidden fields can be neither filtered, searched
 * nor ordered by: each would let a client guess them one comparison at a time.
 */
import type { FieldDeclaration, ListQuery, Lookup, ResourceDeclaration, SiteExposure } from '../resource.js';

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

/** An exposure's list query: its own keys over the resource's. */
export function effectiveQuery(declaration: ResourceDeclaration, exposure: SiteExposure): ListQuery {
  return { ...declaration.query, ...exposure.query };
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
function assertCursorOrdering(declaration: ResourceDeclaration, site: string, exposure: SiteExposure, query: ListQuery): void {
  const pagination = exposure.pagination;
  const styles = [pagination?.default, ...(pagination?.styles ?? [])];
  if (!styles.includes('cursor')) return;
  const ordered = [...(exposure.ordering ?? []).map(([name]) => name), ...(query.orderingFields ?? [])];
  for (const name of ordered) {
    if (declaration.fields[name]?.nullable) fail(declaration, `sites.${site}`, `pages by cursor, so it cannot order by "${name}", which may be null`);
  }
}

/** Throws on the first mistake in the resource's list queries, resource-wide and per site. */
export function assertListQueries(declaration: ResourceDeclaration): void {
  if (declaration.query) assertQuery(declaration, 'query', declaration.query);
  for (const [site, exposure] of Object.entries(declaration.sites ?? {})) {
    if (exposure.query) assertQuery(declaration, `sites.${site}.query`, exposure.query);
    assertCursorOrdering(declaration, site, exposure, effectiveQuery(declaration, exposure));
    const { pageSize, maxPageSize, maxWholeList } = exposure.pagination ?? {};
    for (const size of [pageSize, maxPageSize, maxWholeList]) {
      if (size !== undefined && !(Number.isInteger(size) && size >= 1)) fail(declaration, `sites.${site}.pagination`, 'sizes must be positive integers');
    }
    if (pageSize !== undefined && maxPageSize !== undefined && pageSize > maxPageSize) fail(declaration, `sites.${site}.pagination`, 'pageSize is above maxPageSize');
  }
}
