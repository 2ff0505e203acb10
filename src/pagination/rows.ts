/**
 * Reading the rows of one page by position (page numbers, limit and offset),
 * and the query parameters a size or position is given in.
 */
import { Op, type Sequelize, type WhereOptions } from 'sequelize';
import { rowCounts } from '../db/row-counter.js';
import { compiledReads, joinedReferences, type KeyedRead } from '../db/compiled.js';
import { queryPairs, queryValue } from '../context.js';
import type { RequestState } from '../types/request.js';
import type { Translate } from '../i18n.js';
import type { Parameter } from '../openapi/types.js';
import type { OrderedQuery } from './types.js';
import type { RowModel, PlainRow } from '../types/rows.js';
import type { PageSizes } from '../types/declaration.js';

/** Up to this many skipped rows, a page is one query; deeper ones look their ids up first. */
const DIRECT_OFFSET_LIMIT = 1000;
export const POSITIVE = /^\d+$/;

/** The query's own condition and `more`, both (a place to read after, the ids of a page). */
export function alsoWhere(query: OrderedQuery, more: WhereOptions | undefined): WhereOptions | undefined {
  if (!more) return query.where;
  return query.where ? { [Op.and]: [query.where, more] } : more;
}

export function reversed(order: OrderedQuery['order']): OrderedQuery['order'] {
  return order.map(([name, direction]) => [name, direction === 'ASC' ? 'DESC' : 'ASC']);
}

/**
 * The `limit` rows after `offset` of a list of `count`. OFFSET walks every
 * row it skips, so a page nearer the end is read from the end, in the
 * reverse order; and a deep page first finds its ids on the ordering's index
 * alone, then reads those rows.
 */
export async function readOffsetRows(model: RowModel, query: OrderedQuery, offset: number, limit: number, count: number): Promise<PlainRow[]> {
  if (limit <= 0 || offset >= count) return [];
  const fromEnd = offset > count - offset - limit;
  const order = fromEnd ? reversed(query.order) : query.order;
  const skip = fromEnd ? Math.max(0, count - offset - limit) : offset;
  // Plain rows: a page is shown, never saved, and model instances cost it three times the CPU.
  const plain = { raw: true, nest: true } as const;
  let rows: PlainRow[];
  const compiled = compiledPage(model, query);
  if (compiled) {
    const reads = compiledReads(model.sequelize as Sequelize);
    rows = skip <= DIRECT_OFFSET_LIMIT ? await reads.page(compiled, order, compiled.shape, limit, skip) : await reads.deepPage(compiled, order, compiled.shape, limit, skip);
  } else if (skip <= DIRECT_OFFSET_LIMIT) {
    rows = (await model.findAll({ ...query, order, limit, offset: skip, ...plain })) as unknown as PlainRow[];
  } else {
    const key = model.primaryKeyAttribute;
    // Without the includes: they only name related rows, never filter (a filtering include would have to come along).
    const keys = await model.findAll({ where: query.where, order, attributes: [key], limit, offset: skip, raw: true });
    const ids = keys.map((found) => (found as unknown as Record<string, unknown>)[key]);
    const found = ids.length === 0 ? [] : await model.findAll({ ...query, order, where: alsoWhere(query, { [key]: { [Op.in]: ids } }), ...plain });
    rows = found as unknown as PlainRow[];
  }
  return fromEnd ? rows.reverse() : rows;
}

/**
 * A page of the whole table (no condition) ordered by its own columns, with
 * references joined only to be named: compiled SQL, written once per shape.
 * Anything else is Sequelize's to build.
 */
function compiledPage(model: RowModel, query: OrderedQuery): (KeyedRead & { shape: string }) | null {
  if (query.where !== undefined) return null;
  const columns = model.getAttributes();
  if (!query.order.every(([name]) => name in columns)) return null;
  const include = joinedReferences((query.include ?? []) as unknown[]);
  if (!include) return null;
  return { model, include, shape: include.map(({ association, attributes }) => `${association}(${attributes?.join(',')})`).join(';') };
}

/** The rows a list's condition keeps; the whole table's count comes from its counter where one is kept (src/db/row-counter.ts). */
export async function countRows(model: RowModel, where: WhereOptions | undefined, keptCount?: number): Promise<number> {
  if (where === undefined && keptCount !== undefined) return keptCount;
  if (where === undefined && model.sequelize) {
    const kept = await rowCounts(model.sequelize).count(model.getTableName() as string);
    if (kept !== null) return kept;
  }
  return model.count({ where });
}

/** A whole number a client sent; undefined when absent, not digits, or past what a page can be. */
export function positiveParameter(ctx: RequestState, name: string): number | undefined {
  const raw = queryValue(ctx.req, name);
  if (raw === undefined || !POSITIVE.test(raw)) return undefined;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : Number.MAX_SAFE_INTEGER;
}

/** A page size a client asks for, up to the maximum; zero, negative or not a number gives the default. */
export function pageSizeParameter(ctx: RequestState, name: string, sizes: PageSizes): number {
  const requested = positiveParameter(ctx, name) ?? 0;
  return requested <= 0 ? sizes.pageSize : Math.min(requested, sizes.maxPageSize);
}

/** Whether the query names any of `names`, with or without a value. */
export function hasParameter(ctx: RequestState, ...names: string[]): boolean {
  return queryPairs(ctx.req).some(([key]) => names.includes(key));
}

/** A page size parameter as the API description shows it: no bounds, for larger asks are clamped and the others fall back, never refused. */
export function sizeParameterDoc(t: Translate, name: string, key: string, { pageSize, maxPageSize }: PageSizes): Parameter {
  return { name, in: 'query', description: t(`parameters.${key}`, { default: pageSize, max: maxPageSize }), schema: { type: 'integer', default: pageSize } };
}

/** A cursor parameter as the API description shows it. */
export function cursorParameterDoc(t: Translate, name: string): Parameter {
  return { name, in: 'query', description: t('parameters.cursor'), schema: { type: 'string' } };
}
