/**
 * CSV export of a resource's list as filtered: every row the list's filters
 * select, on all pages, in the list's order, with the columns of the admin's
 * show page. @adminjs/import-export builds the whole file in memory (it reads
 * every record, then stringifies them at once); this streams instead: rows
 * are read a batch at a time with the list's own filters and order (the
 * resource's `findAfter`) and written to the response as they come, waiting
 * while the client is slower than the database.
 */
import './env.js';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { Filter, flat, ForbiddenError, type BaseProperty, type BaseRecord, type BaseResource } from 'adminjs';
import type AdminJS from 'adminjs';
import type { Response } from 'express';
import { stringify } from 'csv-stringify';
import type { Logger } from '../logger.js';
import { readsAfter, type ListBatch, type ListPlace, type ReadsAfter } from './keyset.js';
import { DeclaredResource } from './resource.js';
import type { StaffMember } from './staff.js';

/** Rows read per query. */
const BATCH = 500;
/** The export action: a resource action whose page (ui/export.jsx) links to the download. */
export const EXPORT_ACTION = 'export';

interface ListQuery {
  filters?: Record<string, unknown>;
  sortBy?: string;
  direction?: string;
}

/** The columns: what the show page shows, never a hidden field of the declaration (which is no property anyway). */
export function exportedProperties(resource: BaseResource): BaseProperty[] {
  const hidden = (name: string): boolean => resource instanceof DeclaredResource && Boolean(resource.bound.declaration.fields[name]?.hidden);
  return resource
    .decorate()
    .getProperties({ where: 'show' })
    .filter((property) => !hidden(property.propertyPath))
    .map((property) => property.property);
}

/** The list's sort as AdminJS's list action makes it (its sortSetter): the query's, else the resource's, else the first sortable column. */
function listSort(resource: BaseResource, query: ListQuery): { sortBy: string; direction: 'asc' | 'desc' } {
  const decorated = resource.decorate();
  const configured: { sortBy?: string; direction?: string } = decorated.options.sort ?? {};
  const first = decorated.getListProperties().find((property) => property.isSortable());
  const direction = query.direction || configured.direction || 'asc';
  return { sortBy: query.sortBy || configured.sortBy || first?.name() || 'id', direction: direction === 'asc' ? 'asc' : 'desc' };
}

/** A cell's value: numbers stay numbers (a negative one is no formula), booleans and dates as text, lists joined. */
function cell(value: unknown): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return value;
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map((item) => String(item)).join(' ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * The list's records as filtered and sorted, a batch at a time, each batch
 * after the place of the last record read (keyset.ts): every batch costs the
 * same, and a row inserted, deleted or moved meanwhile shifts no other one.
 * `batch`: rows per read (tests read a few at a time).
 */
export async function* listRecords(resource: BaseResource & ReadsAfter, query: Record<string, string>, batch = BATCH): AsyncGenerator<BaseRecord> {
  const parsed = flat.unflatten(query) as ListQuery;
  const filter = new Filter(typeof parsed.filters === 'object' && parsed.filters !== null ? parsed.filters : {}, resource);
  const sort = listSort(resource, parsed);
  let after: ListPlace | null = null;
  for (;;) {
    const { records, last }: ListBatch = await resource.findAfter(filter, sort, after, batch);
    yield* records;
    if (records.length < batch || !last) return;
    after = last;
  }
}

async function* cells(records: AsyncIterable<BaseRecord>, columns: readonly string[]): AsyncGenerator<(string | number)[]> {
  for await (const record of records) yield columns.map((name) => cell(record.get(name)));
}

/**
 * Streams the CSV of `resourceId`'s list as `query` filters and sorts it, to
 * a staff member who may list that resource. UTF-8 with a byte order mark
 * (so that Excel reads Japanese), a header row of field names, and a leading
 * apostrophe on any text a spreadsheet would run as a formula.
 */
export async function sendCsv(admin: AdminJS, resourceId: string, query: Record<string, string>, staff: StaffMember | undefined, res: Response, logger: Logger): Promise<void> {
  const resource = admin.findResource(resourceId);
  const list = resource.decorate().actions.list;
  if (!staff || !list?.isAccessible(staff)) throw new ForbiddenError('No list action here');
  if (!readsAfter(resource)) throw new Error(`the list of ${resourceId} cannot be read a batch after the other`);
  const columns = exportedProperties(resource).map((property) => property.path());
  res.status(200).type('text/csv; charset=utf-8').attachment(`${resource.id()}.csv`);
  try {
    await pipeline(Readable.from(cells(listRecords(resource, query), columns)), stringify({ bom: true, header: true, columns, escape_formulas: true }), res);
  } catch (error) {
    // The status line is gone: a cut-off download is all the client can be told. A client that left is no failure.
    if ((error as { code?: unknown }).code !== 'ERR_STREAM_PREMATURE_CLOSE') logger.error({ err: error, resource: resourceId }, 'a CSV export failed');
    res.destroy();
  }
}
