/**
 * What a representation needs beyond its row's own columns, loaded for a
 * whole page of rows at once (no query per row): many-to-many ids, counted
 * and computed fields, and the relations a request expands, each with one
 * query per relation and level.
 */
import { Op, type IncludeOptions, type Transaction } from 'sequelize';
import { displayNameOf } from '../registry.js';
import { fromStored } from '../cleaning.js';
import type { Serializer } from '../serializers.js';
import type { Row, Item } from '../types/rows.js';
import type { AnyRelation, BoundResource } from '../types/resource.js';

/** A row's stored values: a model instance's, or a plain row read with `raw: true, nest: true`. */
export type StoredRow = Record<string, unknown>;

/** How an expanded relation shows its rows: as the site shows them, or by their display name where the site shows them nowhere. */
export type ExpandedShape = { kind: 'rows'; serializer: Serializer; plan: LoadPlan } | { kind: 'name' };

export interface Expansion {
  name: string;
  relation: AnyRelation;
  shape: ExpandedShape;
}

/** What to add to the items of one resource once its rows are read. */
export interface LoadPlan {
  resource: BoundResource;
  /** Many-to-many fields shown as lists of ids (the expanded ones are in `expansions`). */
  ids: { name: string; relation: Extract<AnyRelation, { kind: 'manyToMany' }> }[];
  /** Fields that count related rows. */
  counts: { name: string; relation: Exclude<AnyRelation, { kind: 'reference' }> }[];
  /** Fields computed from the row's own values. */
  values: { name: string; value: (row: Readonly<StoredRow>) => unknown }[];
  expansions: Expansion[];
}

export function isEmptyPlan(plan: LoadPlan): boolean {
  return plan.ids.length + plan.counts.length + plan.values.length + plan.expansions.length === 0;
}

/**
 * The stored values of rows read either way, as a model instance holds them
 * (times as dates, booleans as booleans, JSON parsed), for computed fields.
 */
export function storedValues(resource: BoundResource, rows: readonly (Row | StoredRow)[]): StoredRow[] {
  const sqlite = resource.model.sequelize?.getDialect() === 'sqlite';
  const fields = resource.declaration.fields;
  return rows.map((row) => {
    if (typeof (row as Row).get === 'function') return (row as Row).get({ plain: true }) as StoredRow;
    return Object.fromEntries(Object.entries(row).map(([name, value]) => [name, fromStored(fields[name], value, sqlite)]));
  });
}

function groupBy<T>(rows: readonly T[], key: (row: T) => unknown): Map<unknown, T[]> {
  const groups = new Map<unknown, T[]>();
  for (const row of rows) {
    const at = key(row);
    const group = groups.get(at);
    if (group) group.push(row);
    else groups.set(at, [row]);
  }
  return groups;
}

const unique = (values: unknown[]): unknown[] => [...new Set(values.filter((value) => value !== null && value !== undefined))];

function nameOf(resource: BoundResource, row: StoredRow): string {
  return displayNameOf(resource, (field) => row[field]);
}

/** The columns a display name needs, and the key. */
function nameAttributes(resource: BoundResource): string[] {
  return [...new Set([resource.model.primaryKeyAttribute, ...resource.displayFields])];
}

/** Reads target rows for an expansion and represents them (recursively), keyed by their primary key. */
async function representTargets(
  resource: BoundResource,
  shape: ExpandedShape,
  rows: StoredRow[],
  transaction: Transaction | undefined,
): Promise<Map<unknown, unknown>> {
  const key = resource.model.primaryKeyAttribute;
  const shown = new Map<unknown, unknown>();
  if (shape.kind === 'name') {
    for (const row of rows) shown.set(row[key], nameOf(resource, row));
    return shown;
  }
  const items = rows.map((row) => shape.serializer.representPlain(row));
  await attachRelations(shape.plan, rows, items, transaction);
  rows.forEach((row, index) => shown.set(row[key], items[index]));
  return shown;
}

function targetQuery(resource: BoundResource, shape: ExpandedShape): { attributes?: string[]; include: IncludeOptions[] } {
  return shape.kind === 'name' ? { attributes: nameAttributes(resource), include: [] } : { include: shape.serializer.includes() };
}

async function expand(expansion: Expansion, keys: unknown[], rows: StoredRow[], items: Item[], transaction?: Transaction): Promise<void> {
  const { name, relation, shape } = expansion;
  const target = relation.resource;
  const targetKey = target.model.primaryKeyAttribute;
  const order: [string, string][] = [[targetKey, 'ASC']];
  if (relation.kind === 'reference') {
    const ids = unique(rows.map((row) => row[relation.field]));
    const found = ids.length === 0 ? [] : ((await target.model.findAll({ ...targetQuery(target, shape), where: { [targetKey]: { [Op.in]: ids } }, raw: true, nest: true, transaction })) as unknown as StoredRow[]);
    const shown = await representTargets(target, shape, found, transaction);
    rows.forEach((row, index) => ((items[index] as Item)[name] = shown.get(row[relation.field]) ?? null));
    return;
  }
  if (relation.kind === 'related') {
    const found = (await target.model.findAll({ ...withColumn(targetQuery(target, shape), relation.field), where: { [relation.field]: { [Op.in]: keys } }, order, raw: true, nest: true, transaction })) as unknown as StoredRow[];
    const shown = await representTargets(target, shape, found, transaction);
    const byOwner = groupBy(found, (row) => row[relation.field]);
    keys.forEach((key, index) => ((items[index] as Item)[name] = (byOwner.get(key) ?? []).map((row) => shown.get(row[targetKey]))));
    return;
  }
  // One query: the join rows with the rows they link to.
  const { join } = relation;
  const links = (await join.model.findAll({
    attributes: [join.from, join.to],
    where: { [join.from]: { [Op.in]: keys } },
    include: [{ association: join.far, required: true, ...targetQuery(target, shape) }],
    order: [[join.from, 'ASC'], [join.to, 'ASC']],
    raw: true,
    nest: true,
    transaction,
  })) as unknown as StoredRow[];
  const targets = new Map<unknown, StoredRow>();
  for (const link of links) targets.set(link[join.to], link[join.far] as StoredRow);
  const shown = await representTargets(target, shape, [...targets.values()], transaction);
  const byOwner = groupBy(links, (link) => link[join.from]);
  keys.forEach((key, index) => ((items[index] as Item)[name] = (byOwner.get(key) ?? []).map((link) => shown.get(link[join.to]))));
}

function withColumn(query: { attributes?: string[]; include: IncludeOptions[] }, column: string): { attributes?: string[]; include: IncludeOptions[] } {
  return query.attributes ? { ...query, attributes: [...new Set([...query.attributes, column])] } : query;
}

async function linkedIds(relation: Extract<AnyRelation, { kind: 'manyToMany' }>, keys: unknown[], transaction?: Transaction): Promise<Map<unknown, unknown[]>> {
  const { join } = relation;
  const links = (await join.model.findAll({ attributes: [join.from, join.to], where: { [join.from]: { [Op.in]: keys } }, order: [[join.from, 'ASC'], [join.to, 'ASC']], raw: true, transaction })) as unknown as StoredRow[];
  const byOwner = groupBy(links, (link) => link[join.from]);
  return new Map([...byOwner].map(([owner, owned]) => [owner, owned.map((link) => link[join.to])]));
}

async function counted(relation: Exclude<AnyRelation, { kind: 'reference' }>, keys: unknown[], transaction?: Transaction): Promise<Map<unknown, number>> {
  const [model, column] = relation.kind === 'related' ? [relation.resource.model, relation.field] : [relation.join.model, relation.join.from];
  const groups = (await model.count({ where: { [column]: { [Op.in]: keys } }, group: [column], transaction })) as unknown as { count: number | string; [column: string]: unknown }[];
  return new Map(groups.map((group) => [group[column], Number(group.count)]));
}

/**
 * Fills `items` (one per row, in the same order) with what `plan` adds. Rows
 * are read in pages and batches, so the ids of one `IN` list stay few.
 */
export async function attachRelations(plan: LoadPlan, rows: readonly StoredRow[], items: Item[], transaction?: Transaction): Promise<void> {
  if (rows.length === 0 || isEmptyPlan(plan)) return;
  const key = plan.resource.model.primaryKeyAttribute;
  const keys = rows.map((row) => row[key]);
  for (const { name, relation } of plan.ids) {
    const byOwner = await linkedIds(relation, keys, transaction);
    keys.forEach((owner, index) => ((items[index] as Item)[name] = byOwner.get(owner) ?? []));
  }
  for (const { name, relation } of plan.counts) {
    const counts = await counted(relation, keys, transaction);
    keys.forEach((owner, index) => ((items[index] as Item)[name] = counts.get(owner) ?? 0));
  }
  for (const { name, value } of plan.values) rows.forEach((row, index) => ((items[index] as Item)[name] = value(row) ?? null));
  for (const expansion of plan.expansions) await expand(expansion, keys, [...rows], items, transaction);
}
