/**
 * A ListRequest as the database reads it: the filters and search terms as one
 * WHERE (every condition must hold; an `in`'s values and a text filter's
 * values are alternatives), and the order asked for, made total.
 */
import { literal, Op, type WhereOptions } from 'sequelize';
import type { Condition, FilterValue, ListRequest, OrderTerm, QuerySpec } from './spec.js';
import { textSearch } from './text-search.js';
import type { Ordering } from '../types/declaration.js';
import type { BoundResource } from '../types/resource.js';

const RANGE_OPERATORS = { gt: Op.gt, gte: Op.gte, lt: Op.lt, lte: Op.lte } as const;

/** Rows linked through a many-to-many to any of `values` (integers, already read as such): a subquery on the join table. */
function linkedTo(resource: BoundResource, field: string, values: readonly FilterValue[]): WhereOptions | undefined {
  const relation = resource.relations.get(field);
  if (relation?.kind !== 'manyToMany') return undefined;
  const { join } = relation;
  const quote = (name: string): string => resource.model.sequelize!.getQueryInterface().quoteIdentifier(name);
  const ids = values.map((value) => Number(value)).filter(Number.isSafeInteger);
  const linked = `(SELECT ${quote(join.from)} FROM ${quote(join.model.getTableName() as string)} WHERE ${quote(join.to)} IN (${ids.join(', ') || 'NULL'}))`;
  return { [resource.model.primaryKeyAttribute]: { [Op.in]: literal(linked) } };
}

async function conditionWhere(resource: BoundResource, condition: Condition): Promise<WhereOptions> {
  const { model } = resource;
  const { field, lookup, values } = condition;
  const linked = linkedTo(resource, field, values);
  if (linked) return linked;
  switch (lookup) {
    case 'exact':
    case 'in':
      return values.length === 1 ? { [field]: values[0] } : { [field]: { [Op.in]: [...values] } };
    case 'isnull':
      return { [field]: values[0] ? { [Op.is]: null } : { [Op.not]: null } };
    case 'icontains': {
      const search = textSearch(model.sequelize!);
      const each = await Promise.all(values.map((value) => search.contains(model, [field], String(value))));
      return each.length === 1 ? (each[0] as WhereOptions) : { [Op.or]: each };
    }
    default:
      return { [field]: { [RANGE_OPERATORS[lookup]]: values[0] } };
  }
}

/** The WHERE of what the request asks; undefined when it asks for every row. */
export async function listWhere(spec: QuerySpec, request: ListRequest): Promise<WhereOptions | undefined> {
  const model = spec.resource.model;
  const search = textSearch(model.sequelize!);
  const parts = [
    ...(await Promise.all(request.conditions.map((condition) => conditionWhere(spec.resource, condition)))),
    ...(await Promise.all(request.search.map((term) => search.contains(model, spec.search, term)))),
  ];
  if (parts.length === 0) return undefined;
  return parts.length === 1 ? parts[0] : { [Op.and]: parts };
}

/**
 * The order of a list: the one asked for, else the exposure's, always ending
 * with the primary key so that pages never overlap nor skip. The key follows
 * the direction of the last field, so an index on (field, key) serves it either way.
 */
export function listOrder(requested: readonly OrderTerm[] | null, declared: Ordering | undefined, key: string): OrderTerm[] {
  const order: OrderTerm[] = (requested ?? declared ?? []).map(([name, direction]) => [name, direction]);
  if (!order.some(([name]) => name === key)) order.push([key, requested ? (order.at(-1)?.[1] ?? 'ASC') : 'ASC']);
  return order;
}
