/**
 * A query dialect: the words one ecosystem's clients use to ask a list for
 * filters, a search, an order, some fields and related rows. A site names
 * its dialect; the dialect reads a request into a ListRequest, and tells the
 * API description, OPTIONS and the browsable page what it understands.
 */
import type { RequestState } from '../types/request.js';
import type { ErrorCode } from '../errors.js';
import { fieldLabel } from '../errors.js';
import type { Translate } from '../i18n.js';
import type { JsonSchema, Parameter } from '../openapi/types.js';
import type { FieldDeclaration } from '../resource.js';
import type { FilterSpec, ItemRequest, ListRequest, QuerySpec } from './spec.js';
import { RANGES } from './declaration.js';
import { MAX_FILTER_VALUES } from './values.js';
import type { Lookup } from '../types/declaration.js';

/** One input of the browsable page's filter form. */
export interface QueryInput {
  name: string;
  label: string;
  type: 'text' | 'number' | 'select';
  value: string;
  /** For a select: its choices, the first one empty (no filter). */
  options?: { value: string; label: string }[];
  /** What a value looks like, for a time or a list. */
  placeholder?: string;
}

/** A link that orders the list by one field, one way. */
export interface OrderingLink {
  label: string;
  href: string;
  active: boolean;
}

/** The browsable page's "Filters" form, as Django REST Framework's filter backends render theirs. */
export interface QueryForm {
  inputs: QueryInput[];
  ordering: OrderingLink[];
  /** Where "clear" leads: the list without any of the dialect's parameters. */
  clearHref: string;
}

export interface QueryDialect {
  /** What a list request asks, in this dialect's words; throws the site's error for what it refuses. */
  listRequest(ctx: RequestState, spec: QuerySpec): ListRequest;
  /** What a request for one row asks: its fields and the references shown with it. */
  itemRequest(ctx: RequestState, spec: QuerySpec): ItemRequest;
  listParameters(spec: QuerySpec, t: Translate): Parameter[];
  itemParameters(spec: QuerySpec, t: Translate): Parameter[];
  /** The parameter names a validation error of the list may name. */
  validatedParameters(spec: QuerySpec): string[];
  /** What else than a validation error a list's parameters may answer. */
  errors(spec: QuerySpec): ErrorCode[];
  /** What a single row's parameters may answer. */
  itemErrors(spec: QuerySpec): ErrorCode[];
  /** What OPTIONS tells of the list's query, in the ecosystem's words. */
  metadata(spec: QuerySpec): Record<string, unknown>;
  form(ctx: RequestState, spec: QuerySpec, request: ListRequest): QueryForm;
}

/** A filter value's schema, by the kind of its field. */
export function valueSchema(kind: FieldDeclaration['kind']): JsonSchema {
  switch (kind) {
    case 'id':
    case 'reference':
      return { type: 'integer' };
    case 'boolean':
      return { type: 'boolean' };
    case 'datetime':
      // Naive times are allowed (the site's zone): no `date-time` format, which needs an offset.
      return { type: 'string', example: '2026-01-01T00:00:00' };
    default:
      return { type: 'string' };
  }
}

/** What a filter parameter takes: several values (comma-separated), a yes/no, or one value of its field's kind. */
export function filterSchema(filter: FilterSpec, lookup: Lookup): Pick<Parameter, 'schema' | 'style' | 'explode'> {
  if (lookup === 'in') return { schema: { type: 'array', items: valueSchema(filter.kind), maxItems: MAX_FILTER_VALUES }, style: 'form', explode: false };
  if (lookup === 'isnull') return { schema: { type: 'boolean' } };
  if (lookup === 'icontains') return { schema: { type: 'string' } };
  return { schema: valueSchema(filter.kind) };
}

/** A filter's label for people: the field's label with its lookup's words (a time's range reads "after", "until"…). */
export function filterLabel(t: Translate, spec: QuerySpec, field: string, lookup: Lookup): string {
  const time = RANGES.includes(lookup) && spec.resource.declaration.fields[field]?.kind === 'datetime';
  return t(`query.lookups.${lookup}${time ? '_time' : ''}`, { label: fieldLabel(t, spec.resource.key, field) });
}

/** The input a filter gets in the browsable form. */
export function filterInput(t: Translate, spec: QuerySpec, filter: FilterSpec, lookup: Lookup, name: string, value: string): QueryInput {
  const label = filterLabel(t, spec, filter.field, lookup);
  if (lookup === 'isnull' || (lookup === 'exact' && filter.kind === 'boolean')) {
    const options = [
      { value: '', label: t('query.any') },
      { value: 'true', label: t('query.yes') },
      { value: 'false', label: t('query.no') },
    ];
    return { name, label, type: 'select', value, options };
  }
  const numeric = (filter.kind === 'id' || filter.kind === 'reference') && lookup !== 'in';
  const input: QueryInput = { name, label, type: numeric ? 'number' : 'text', value };
  if (filter.kind === 'datetime') input.placeholder = t('query.placeholders.time');
  else if (lookup === 'in') input.placeholder = t(filter.kind === 'id' || filter.kind === 'reference' ? 'query.placeholders.numbers' : 'query.placeholders.words');
  return input;
}

/** The request's URL with some parameters set or left out, in an ecosystem's way (see pagination/links.ts). */
export type LinkMaker = (ctx: RequestState, changes: Record<string, string | null>) => string;

/** Ascending and descending links for every field the list may be ordered by; `current` is the order in force. */
export function orderingLinks(
  ctx: RequestState,
  spec: QuerySpec,
  { param, link }: { param: string; link: LinkMaker },
  current: ListRequest['ordering'],
): OrderingLink[] {
  const [first] = current ?? [];
  return spec.orderingFields.flatMap((field) =>
    (['ASC', 'DESC'] as const).map((direction) => {
      const value = direction === 'ASC' ? field : `-${field}`;
      const label = ctx.t(direction === 'ASC' ? 'query.ascending' : 'query.descending', { label: fieldLabel(ctx.t, spec.resource.key, field) });
      const href = link(ctx, { [param]: value, page: null, cursor: null, offset: null });
      return { label, href, active: first?.[0] === field && first[1] === direction };
    }),
  );
}
