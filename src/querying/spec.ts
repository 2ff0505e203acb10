/**
 * A list query in two forms that every dialect shares: what an exposure
 * allows (QuerySpec, built once) and what one request asks (ListRequest,
 * parsed by the site's dialect). The database side (conditions.ts) reads only
 * these, so both sites filter, search and order with the same SQL.
 */
import type { FieldDeclaration } from '../resource.js';
import { offeredQuery } from './declaration.js';
import type { Direction, Lookup } from '../types/declaration.js';
import type { SiteExposure, BoundResource } from '../types/resource.js';

export interface FilterSpec {
  field: string;
  kind: FieldDeclaration['kind'];
  nullable: boolean;
  lookups: readonly Lookup[];
  /** A reference's `as` name: django-filter also filters a relation by its own name (`owner__isnull`). */
  alias?: string;
  /** An enum's values: django-filter's ChoiceFilter refuses any other. */
  choices?: readonly string[];
}

/** What one exposure's list lets clients ask. */
export interface QuerySpec {
  resource: BoundResource;
  filters: readonly FilterSpec[];
  search: readonly string[];
  orderingFields: readonly string[];
  /** Fields a client may select among, in their shown order; null: no selection. */
  sparseFields: readonly string[] | null;
  expand: readonly string[];
  /** The name clients give the rows' type in `fields[<type>]`: the table, as spatie's. */
  type: string;
}

export type OrderTerm = [field: string, direction: Direction];
/** A value a filter compares with: a number (ids), text, a boolean (isnull) or an instant. */
export type FilterValue = string | number | boolean | Date;

/** One filter of a request: the field compared by `lookup` with any of `values` (several: any of them). */
export interface Condition {
  field: string;
  lookup: Lookup;
  values: readonly FilterValue[];
}

/** What one request asks of a list, whatever words it used. */
export interface ListRequest {
  /** All must hold. */
  conditions: readonly Condition[];
  /** Every term must be found in one of the search fields. */
  search: readonly string[];
  /** The order asked for; null: the exposure's own. */
  ordering: readonly OrderTerm[] | null;
  /** The fields to show; null: all. */
  fields: readonly string[] | null;
  /** References to show with each row, by `as` name. */
  expand: readonly string[];
}

/** What a request for one row may ask: which fields, and which references with it. */
export type ItemRequest = Pick<ListRequest, 'fields' | 'expand'>;

export const NO_REQUEST: ListRequest = Object.freeze({ conditions: [], search: [], ordering: null, fields: null, expand: [] });

/**
 * What the exposure offers (declaration.ts: comparisons only on the fields its
 * lists show, or that its query names in `unshown`). `shown`: the names the
 * exposure's list or row shows, which sparse fields select among.
 */
export function querySpec(resource: BoundResource, exposure: SiteExposure, shown: readonly string[]): QuerySpec {
  const query = offeredQuery(resource.declaration, exposure);
  const filters = Object.entries(query.filters ?? {}).map(([field, lookups]): FilterSpec => {
    const declared = resource.declaration.fields[field];
    if (!declared) throw new Error(`${resource.declaration.name} has no field ${field}`);
    const spec: FilterSpec = { field, kind: declared.kind, nullable: declared.nullable ?? false, lookups };
    if (declared.kind === 'reference') spec.alias = declared.as;
    if (declared.kind === 'enum') spec.choices = declared.choices;
    return spec;
  });
  return {
    resource,
    filters,
    search: query.search ?? [],
    orderingFields: query.orderingFields ?? [],
    sparseFields: query.sparseFields ? shown : null,
    expand: withPrefixes(query.expand ?? []),
    type: resource.declaration.table,
  };
}

/** `a.b` lets a client expand `a` alone too, as spatie's allowedIncludes do. */
function withPrefixes(paths: readonly string[]): string[] {
  const all = new Set<string>();
  for (const path of paths) {
    const segments = path.split('.');
    for (let depth = 1; depth <= segments.length; depth += 1) all.add(segments.slice(0, depth).join('.'));
  }
  return [...all];
}

/** Whether the exposure lets clients ask anything of its lists. */
export function asksAnything(spec: QuerySpec): boolean {
  return spec.filters.length > 0 || spec.search.length > 0 || spec.orderingFields.length > 0 || spec.sparseFields !== null || spec.expand.length > 0;
}
