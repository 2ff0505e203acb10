/**
 * The root site's dialect, Django REST Framework's filter backends:
 * django-filter's `?<field>=` and `?<field>__<lookup>=` (a reference also by
 * its relation's name, `?owner__isnull=true`), SearchFilter's `?search=`,
 * OrderingFilter's `?ordering=-updated_at,id` (unknown names ignored), and
 * drf-flex-fields' `?fields=` and `?expand=`. An empty value is no filter; a
 * value of the wrong kind is django-filter's 400 naming the parameter.
 */
import { FieldErrors, type ErrorCode, type FieldErrorCode, type MessageParams } from '../errors.js';
import type { Translate } from '../i18n.js';
import type { Parameter } from '../openapi/types.js';
import { parseBoolean } from '../serializers.js';
import { drfLink } from '../pagination/links.js';
import { filterInput, filterLabel, filterSchema, orderingLinks, type QueryDialect, type QueryForm, type QueryInput } from './dialect.js';
import type { Condition, FilterSpec, ItemRequest, ListRequest, OrderTerm, QuerySpec } from './spec.js';
import { lastValue, queryPairs } from '../context.js';
import type { RequestState } from '../types/request.js';
import { commaList, filterValues, searchTerms } from './values.js';
import type { Lookup } from '../types/declaration.js';

const SEARCH = 'search';
const ORDERING = 'ordering';
const FIELDS = 'fields';
const EXPAND = 'expand';

/** django-filter's names of a filter: `<field>` for exact, `<field>__<lookup>` for the others. */
function parameterName(field: string, lookup: Lookup): string {
  return lookup === 'exact' ? field : `${field}__${lookup}`;
}

/** Every name a filter answers to: its field's, then its relation's. */
function parameterNames(filter: FilterSpec, lookup: Lookup): string[] {
  const names = [parameterName(filter.field, lookup)];
  if (filter.alias) names.push(parameterName(filter.alias, lookup));
  return names;
}

type ReadCondition = { condition: Condition } | { error: FieldErrorCode; params?: MessageParams } | null;

export class DrfQueryDialect implements QueryDialect {
  /** `parseTime` reads a filter's date-time; naive times are the site's. */
  constructor(private readonly parseTime: (text: string) => Date | null) {}

  private readCondition(filter: FilterSpec, lookup: Lookup, raw: string): ReadCondition {
    const text = raw.trim();
    if (text === '') return null;
    if (lookup === 'isnull') {
      // django-filter's BooleanFilter: a value that is no boolean is no filter.
      const value = parseBoolean(text);
      return value === undefined ? null : { condition: { field: filter.field, lookup, values: [value] } };
    }
    const texts = lookup === 'in' ? commaList(text) : [text];
    if (texts.length === 0) return null;
    const read = filterValues(lookup === 'icontains' ? 'text' : filter.kind, texts, this.parseTime);
    if ('error' in read) return read;
    const { choices } = filter;
    // django-filter's ChoiceFilter checks `exact`; its `__in` (a BaseInFilter of text) does not.
    const unknown = choices && lookup === 'exact' ? read.values.find((value) => !choices.includes(String(value))) : undefined;
    if (unknown !== undefined) return { error: 'select_valid_choice', params: { value: String(unknown).slice(0, 64) } };
    return { condition: { field: filter.field, lookup, values: read.values } };
  }

  private conditions(pairs: readonly [string, string][], spec: QuerySpec): Condition[] {
    const errors = new FieldErrors();
    const conditions: Condition[] = [];
    for (const filter of spec.filters) {
      for (const lookup of filter.lookups) {
        for (const name of parameterNames(filter, lookup)) {
          const raw = lastValue(pairs, name);
          const read = raw === undefined ? null : this.readCondition(filter, lookup, raw);
          if (read && 'error' in read) errors.add(name, read.error, read.params);
          else if (read) conditions.push(read.condition);
        }
      }
    }
    errors.throwIfAny();
    return conditions;
  }

  /** OrderingFilter: the names it knows, `-` for descending, each field once; none known is the default order. */
  private ordering(pairs: readonly [string, string][], spec: QuerySpec): OrderTerm[] | null {
    const raw = lastValue(pairs, ORDERING);
    if (!raw || spec.orderingFields.length === 0) return null;
    const terms: OrderTerm[] = [];
    for (const term of raw.split(',').map((part) => part.trim())) {
      const field = term.startsWith('-') ? term.slice(1) : term;
      if (spec.orderingFields.includes(field) && !terms.some(([known]) => known === field)) terms.push([field, term.startsWith('-') ? 'DESC' : 'ASC']);
    }
    return terms.length > 0 ? terms : null;
  }

  itemRequest(ctx: RequestState, spec: QuerySpec): ItemRequest {
    const pairs = queryPairs(ctx.req);
    const known = (name: string, allowed: readonly string[]): string[] => {
      const raw = lastValue(pairs, name);
      return raw === undefined ? [] : [...new Set(commaList(raw).filter((part) => allowed.includes(part)))];
    };
    const expand = known(EXPAND, spec.expand);
    const fields = spec.sparseFields ? known(FIELDS, [...spec.sparseFields, ...expand]) : [];
    return { fields: fields.length > 0 ? fields : null, expand };
  }

  listRequest(ctx: RequestState, spec: QuerySpec): ListRequest {
    const pairs = queryPairs(ctx.req);
    const search = spec.search.length > 0 ? searchTerms(lastValue(pairs, SEARCH) ?? '') : [];
    return { conditions: this.conditions(pairs, spec), search, ordering: this.ordering(pairs, spec), ...this.itemRequest(ctx, spec) };
  }

  private filterParameters(spec: QuerySpec, t: Translate): Parameter[] {
    return spec.filters.flatMap((filter) =>
      filter.lookups.flatMap((lookup) =>
        parameterNames(filter, lookup).map((name): Parameter => ({ name, in: 'query', description: filterLabel(t, spec, filter.field, lookup), ...filterSchema(filter, lookup) })),
      ),
    );
  }

  itemParameters(spec: QuerySpec, t: Translate): Parameter[] {
    const parameters: Parameter[] = [];
    if (spec.sparseFields) {
      parameters.push({ name: FIELDS, in: 'query', description: t('parameters.fields', { fields: spec.sparseFields.join(', ') }), schema: { type: 'string' } });
    }
    if (spec.expand.length > 0) {
      parameters.push({ name: EXPAND, in: 'query', description: t('parameters.expand', { names: spec.expand.join(', ') }), schema: { type: 'string' } });
    }
    return parameters;
  }

  listParameters(spec: QuerySpec, t: Translate): Parameter[] {
    const parameters = this.filterParameters(spec, t);
    if (spec.search.length > 0) {
      parameters.push({ name: SEARCH, in: 'query', description: t('parameters.search', { fields: spec.search.join(', ') }), schema: { type: 'string' } });
    }
    if (spec.orderingFields.length > 0) {
      const fields = spec.orderingFields.join(', ');
      parameters.push({ name: ORDERING, in: 'query', description: t('parameters.ordering', { fields }), schema: { type: 'string' }, example: `-${spec.orderingFields[0]}` });
    }
    return [...parameters, ...this.itemParameters(spec, t)];
  }

  validatedParameters(spec: QuerySpec): string[] {
    return spec.filters.flatMap((filter) => filter.lookups.filter((lookup) => lookup !== 'isnull').flatMap((lookup) => parameterNames(filter, lookup)));
  }

  errors(): ErrorCode[] {
    return [];
  }

  itemErrors(): ErrorCode[] {
    return [];
  }

  metadata(spec: QuerySpec): Record<string, unknown> {
    const data: Record<string, unknown> = {};
    const filters = spec.filters.flatMap((filter) => filter.lookups.flatMap((lookup) => parameterNames(filter, lookup)));
    if (filters.length > 0) data.filters = filters;
    if (spec.search.length > 0) data.search_fields = spec.search;
    if (spec.orderingFields.length > 0) data.ordering_fields = spec.orderingFields;
    if (spec.sparseFields) data.sparse_fields = spec.sparseFields;
    if (spec.expand.length > 0) data.expandable_fields = spec.expand;
    return data;
  }

  form(ctx: RequestState, spec: QuerySpec, request: ListRequest): QueryForm {
    const pairs = queryPairs(ctx.req);
    const inputs: QueryInput[] = [];
    if (spec.search.length > 0) inputs.push({ name: SEARCH, label: ctx.t('query.search'), type: 'text', value: lastValue(pairs, SEARCH) ?? '' });
    for (const filter of spec.filters) {
      for (const lookup of filter.lookups) {
        const name = parameterName(filter.field, lookup);
        inputs.push(filterInput(ctx.t, spec, filter, lookup, name, lastValue(pairs, name) ?? ''));
      }
    }
    const names = [SEARCH, ORDERING, 'page', 'cursor', 'offset', ...inputs.map((input) => input.name)];
    const clearHref = drfLink(ctx, Object.fromEntries(names.map((name) => [name, null])));
    return { inputs, ordering: orderingLinks(ctx, spec, { param: ORDERING, link: drfLink }, request.ordering), clearHref };
  }
}
