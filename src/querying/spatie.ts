/**
 * The token site's dialect, spatie/laravel-query-builder's:
 * `filter[<field>]=a,b` (a text field: partial match, any of them; a number:
 * exact, any of them; a time: spatie's dynamic operators, `>=2026-01-01`,
 * each of them; empty: NULL where the field declares isnull), `filter[search]`
 * when the list has a search, `sort=-id,title`, `fields[<table>]=id,title`
 * and `include=owner`. A name the list does not allow is spatie's 400; a
 * value of the wrong kind, Laravel's 422 naming `filter.<field>`.
 */
import { ApiError, FieldErrors, type ErrorCode } from '../errors.js';
import type { Translate } from '../i18n.js';
import type { Parameter } from '../openapi/types.js';
import { laravelLink } from '../pagination/links.js';
import { filterInput, filterLabel, orderingLinks, valueSchema, type QueryDialect, type QueryForm } from './dialect.js';
import type { Condition, FilterSpec, ItemRequest, ListRequest, OrderTerm, QuerySpec } from './spec.js';
import { queryPairs } from '../context.js';
import type { RequestState } from '../types/request.js';
import { RANGES } from './declaration.js';
import { commaList, filterValue, filterValues, MAX_FILTER_VALUES, searchTerms, substringValues } from './values.js';
import type { Lookup } from '../types/declaration.js';

const SEARCH_FILTER = 'search';
/** The `fields` key of the listed rows' own type when the client names none (`fields=id,title`). */
const OWN_TYPE = '_';

/** spatie's dynamic operators, longest first, and the lookups they stand for. */
const OPERATORS: readonly [string, Lookup | null][] = [
  ['<>', null],
  ['>=', 'gte'],
  ['<=', 'lte'],
  ['>', 'gt'],
  ['<', 'lt'],
  ['=', 'exact'],
];

/** The spatie parameters of a request, as PHP reads `name[key]=…` and `name[]=…`. */
interface SpatieParameters {
  filter: Map<string, string[]>;
  sort: string[] | undefined;
  include: string[] | undefined;
  fields: Map<string, string[]>;
}

const BRACKETS = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;

/**
 * PHP's reading: a later `name=` replaces an earlier one, `name[]=` adds to
 * a list; `filter` as plain text is no filter at all (spatie ignores it).
 */
function readParameters(pairs: readonly [string, string][]): SpatieParameters {
  const read: SpatieParameters = { filter: new Map(), sort: undefined, include: undefined, fields: new Map() };
  for (const [name, value] of pairs) {
    const match = BRACKETS.exec(name);
    if (!match) continue;
    const [, base = '', brackets = ''] = match;
    const keys = [...brackets.matchAll(/\[([^[\]]*)\]/g)].map(([, key = '']) => key);
    const appended = keys.length > (base === 'filter' || base === 'fields' ? 1 : 0);
    if ((base === 'sort' || base === 'include') && keys.length <= 1) {
      const list = appended ? [...(read[base] ?? []), ...commaList(value)] : commaList(value);
      read[base] = list;
    } else if (base === 'filter' && keys.length >= 1 && keys[0]) {
      const known = read.filter.get(keys[0]);
      read.filter.set(keys[0], appended && known ? [...known, value] : [value]);
    } else if (base === 'fields') {
      read.fields.set(keys[0] || OWN_TYPE, commaList(value));
    }
  }
  return read;
}

/** What kind of spatie filter a declared filter is: partial text, an operator, or exact. */
function filterKind(filter: FilterSpec): 'partial' | 'operator' | 'exact' {
  if (filter.lookups.includes('icontains')) return 'partial';
  if (filter.lookups.some((lookup) => RANGES.includes(lookup))) return 'operator';
  return 'exact';
}

/** A value after spatie's dynamic operator (none: `=`), as the lookup it stands for; null when the filter allows no such lookup. */
function withOperator(filter: FilterSpec, text: string): { lookup: Lookup; text: string } | null {
  const [operator = '', lookup = 'exact'] = OPERATORS.find(([prefix]) => text.startsWith(prefix)) ?? [];
  if (lookup === null || !filter.lookups.includes(lookup)) return null;
  return { lookup, text: text.slice(operator.length).trim() };
}

function operatorsOf(filter: FilterSpec): string[] {
  return OPERATORS.filter(([, lookup]) => lookup !== null && filter.lookups.includes(lookup)).map(([operator]) => operator);
}

function unknownNames(requested: readonly string[], allowed: readonly string[]): string[] {
  return [...new Set(requested.filter((name) => !allowed.includes(name)))];
}

export class SpatieQueryDialect implements QueryDialect {
  constructor(private readonly parseTime: (text: string) => Date | null) {}

  private allowedFilters(spec: QuerySpec): string[] {
    return [...spec.filters.map((filter) => filter.field), ...(spec.search.length > 0 ? [SEARCH_FILTER] : [])];
  }

  /** The conditions of one filter's values, or a field error for the first bad one. */
  private readFilter(filter: FilterSpec, texts: readonly string[], errors: FieldErrors): Condition[] {
    const name = `filter.${filter.field}`;
    const values = texts.flatMap(commaList);
    if (values.length === 0) return filter.lookups.includes('isnull') ? [{ field: filter.field, lookup: 'isnull', values: [true] }] : [];
    const kind = filterKind(filter);
    if (kind !== 'operator') {
      // Partial and exact values are alternatives (spatie's orWhere, whereIn).
      const read = kind === 'partial' ? substringValues(values, this.parseTime) : filterValues(filter.kind, values, this.parseTime);
      if ('error' in read) errors.add(name, read.error, read.params);
      return 'error' in read ? [] : [{ field: filter.field, lookup: kind === 'partial' ? 'icontains' : 'exact', values: read.values }];
    }
    // spatie's dynamic operators, one before each value: all must hold. The first bad value is the one reported.
    if (values.length > MAX_FILTER_VALUES) {
      errors.add(name, 'too_many_values', { max: MAX_FILTER_VALUES });
      return [];
    }
    const conditions: Condition[] = [];
    for (const text of values) {
      const compared = withOperator(filter, text);
      if (!compared) {
        errors.add(name, 'operator_not_allowed', { operators: operatorsOf(filter).join(', ') });
        return [];
      }
      const parsed = filterValue(filter.kind, compared.text, this.parseTime);
      if ('error' in parsed) {
        errors.add(name, parsed.error);
        return [];
      }
      conditions.push({ field: filter.field, lookup: compared.lookup, values: [parsed.value] });
    }
    return conditions;
  }

  private filters(parameters: SpatieParameters, spec: QuerySpec): Pick<ListRequest, 'conditions' | 'search'> {
    const allowed = this.allowedFilters(spec);
    if (allowed.length === 0) return { conditions: [], search: [] };
    const unknown = unknownNames([...parameters.filter.keys()], allowed);
    if (unknown.length > 0) throw new ApiError('invalid_filter_query', { unknown: unknown.join(', '), allowed: allowed.join(', ') });
    const errors = new FieldErrors();
    const conditions = spec.filters.flatMap((filter) => {
      const texts = parameters.filter.get(filter.field);
      return texts === undefined ? [] : this.readFilter(filter, texts, errors);
    });
    errors.throwIfAny();
    const searched = parameters.filter.get(SEARCH_FILTER);
    return { conditions, search: searched ? searchTerms(searched.join(',')) : [] };
  }

  private sorts(parameters: SpatieParameters, spec: QuerySpec): OrderTerm[] | null {
    const requested = parameters.sort;
    if (!requested || requested.length === 0 || spec.orderingFields.length === 0) return null;
    const names = requested.map((term) => (term.startsWith('-') ? term.slice(1) : term));
    const unknown = unknownNames(names, spec.orderingFields);
    if (unknown.length > 0) throw new ApiError('invalid_sort_query', { unknown: unknown.join(', '), allowed: spec.orderingFields.join(', ') });
    const terms: OrderTerm[] = [];
    requested.forEach((term, index) => {
      const field = names[index] ?? '';
      if (!terms.some(([known]) => known === field)) terms.push([field, term.startsWith('-') ? 'DESC' : 'ASC']);
    });
    return terms;
  }

  private fields(parameters: SpatieParameters, spec: QuerySpec): string[] | null {
    if (!spec.sparseFields || parameters.fields.size === 0) return null;
    const requested: string[] = [];
    const unknown: string[] = [];
    for (const [type, names] of parameters.fields) {
      const own = type === OWN_TYPE || type === spec.type;
      for (const name of names.map((field) => field.slice(field.lastIndexOf('.') + 1))) {
        if (own && spec.sparseFields.includes(name)) requested.push(name);
        else unknown.push(`${own ? spec.type : type}.${name}`);
      }
    }
    if (unknown.length > 0) {
      const allowed = spec.sparseFields.map((name) => `${spec.type}.${name}`).join(', ');
      throw new ApiError('invalid_field_query', { unknown: [...new Set(unknown)].join(', '), allowed });
    }
    return requested.length > 0 ? [...new Set(requested)] : null;
  }

  private includes(parameters: SpatieParameters, spec: QuerySpec): string[] {
    const requested = parameters.include ?? [];
    if (requested.length === 0 || spec.expand.length === 0) return [];
    const unknown = unknownNames(requested, spec.expand);
    if (unknown.length > 0) throw new ApiError('invalid_include_query', { unknown: unknown.join(', '), allowed: spec.expand.join(', ') });
    return [...new Set(requested)];
  }

  itemRequest(ctx: RequestState, spec: QuerySpec): ItemRequest {
    const parameters = readParameters(queryPairs(ctx.req));
    // Included references are shown whatever fields are selected, as spatie's includes are.
    return { fields: this.fields(parameters, spec), expand: this.includes(parameters, spec) };
  }

  listRequest(ctx: RequestState, spec: QuerySpec): ListRequest {
    const parameters = readParameters(queryPairs(ctx.req));
    // In the order a route calls allowedFilters, allowedSorts, allowedFields, allowedIncludes: each refuses at once.
    const { conditions, search } = this.filters(parameters, spec);
    const ordering = this.sorts(parameters, spec);
    const fields = this.fields(parameters, spec);
    return { conditions, search, ordering, fields, expand: this.includes(parameters, spec) };
  }

  itemParameters(spec: QuerySpec, t: Translate): Parameter[] {
    const parameters: Parameter[] = [];
    if (spec.sparseFields) {
      const description = t('parameters.fields', { fields: spec.sparseFields.join(', ') });
      const schema = { type: 'array', items: { type: 'string', enum: [...spec.sparseFields] } };
      parameters.push({ name: `fields[${spec.type}]`, in: 'query', description, schema, style: 'form', explode: false });
      parameters.push({ name: 'fields', in: 'query', description: t('parameters.fields_own', { type: spec.type }), schema, style: 'form', explode: false });
    }
    if (spec.expand.length > 0) {
      const description = t('parameters.include', { names: spec.expand.join(', ') });
      parameters.push({ name: 'include', in: 'query', description, schema: { type: 'array', items: { type: 'string', enum: [...spec.expand] } }, style: 'form', explode: false });
    }
    return parameters;
  }

  listParameters(spec: QuerySpec, t: Translate): Parameter[] {
    const parameters = spec.filters.map((filter): Parameter => {
      const kind = filterKind(filter);
      const description = t(`parameters.spatie_${kind}`, { label: filterLabel(t, spec, filter.field, 'exact'), operators: operatorsOf(filter).join(', ') });
      const schema = kind === 'exact' ? { type: 'array', items: valueSchema(filter.kind), maxItems: MAX_FILTER_VALUES } : { type: 'string' };
      return { name: `filter[${filter.field}]`, in: 'query', description, schema, ...(kind === 'exact' ? { style: 'form' as const, explode: false } : {}) };
    });
    if (spec.search.length > 0) {
      parameters.push({ name: `filter[${SEARCH_FILTER}]`, in: 'query', description: t('parameters.search', { fields: spec.search.join(', ') }), schema: { type: 'string' } });
    }
    if (spec.orderingFields.length > 0) {
      const values = spec.orderingFields.flatMap((field) => [field, `-${field}`]);
      parameters.push({ name: 'sort', in: 'query', description: t('parameters.sort', { fields: spec.orderingFields.join(', ') }), schema: { type: 'array', items: { type: 'string', enum: values } }, style: 'form', explode: false });
    }
    return [...parameters, ...this.itemParameters(spec, t)];
  }

  validatedParameters(spec: QuerySpec): string[] {
    return spec.filters.map((filter) => `filter.${filter.field}`);
  }

  errors(spec: QuerySpec): ErrorCode[] {
    const errors: ErrorCode[] = [];
    if (this.allowedFilters(spec).length > 0) errors.push('invalid_filter_query');
    if (spec.orderingFields.length > 0) errors.push('invalid_sort_query');
    if (spec.sparseFields) errors.push('invalid_field_query');
    if (spec.expand.length > 0) errors.push('invalid_include_query');
    return errors;
  }

  itemErrors(spec: QuerySpec): ErrorCode[] {
    return this.errors(spec).filter((code) => code === 'invalid_field_query' || code === 'invalid_include_query');
  }

  metadata(spec: QuerySpec): Record<string, unknown> {
    const data: Record<string, unknown> = {};
    const filters = this.allowedFilters(spec);
    if (filters.length > 0) data.allowed_filters = filters;
    if (spec.orderingFields.length > 0) data.allowed_sorts = spec.orderingFields;
    if (spec.sparseFields) data.allowed_fields = spec.sparseFields.map((name) => `${spec.type}.${name}`);
    if (spec.expand.length > 0) data.allowed_includes = spec.expand;
    return data;
  }

  form(ctx: RequestState, spec: QuerySpec, request: ListRequest): QueryForm {
    const parameters = readParameters(queryPairs(ctx.req));
    const value = (name: string): string => (parameters.filter.get(name) ?? []).join(',');
    const inputs = spec.filters.map((filter) => {
      const kind = filterKind(filter);
      const lookup: Lookup = kind === 'partial' ? 'icontains' : kind === 'operator' ? 'exact' : filter.lookups.includes('in') ? 'in' : 'exact';
      const input = filterInput(ctx.t, spec, filter, lookup, `filter[${filter.field}]`, value(filter.field));
      if (kind !== 'operator') return input;
      // One box takes spatie's operators before each value: `>=2026-01-01T00:00:00Z,<2026-02-01T00:00:00Z`.
      const operators = operatorsOf(filter);
      return { ...input, label: ctx.t('query.compare', { label: input.label, operators: operators.join(' ') }), placeholder: `${operators[0] ?? ''}${input.placeholder ?? ''}` };
    });
    if (spec.search.length > 0) inputs.unshift({ name: `filter[${SEARCH_FILTER}]`, label: ctx.t('query.search'), type: 'text', value: value(SEARCH_FILTER) });
    const clearHref = laravelLink(ctx, { filter: null, sort: null, page: null, cursor: null });
    return { inputs, ordering: orderingLinks(ctx, spec, { param: 'sort', link: laravelLink }, request.ordering), clearHref };
  }
}
