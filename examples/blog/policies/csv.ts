/**
 * Lists as CSV (`Accept: text/csv` or `?format=csv`), for a spreadsheet: a
 * header row of the fields shown, then one row a post, RFC 4180's quoting.
 * Every answer of the routes it serves is rendered so, as DRF renders
 * errors with the negotiated renderer: an error, or one row, is a row of its fields.
 */
import type { Renderer } from 'declarest';

type Row = Record<string, unknown>;

const isRow = (value: unknown): value is Row => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The rows of a body as each site shapes it: a whole list (an array), a page
 * of the root site (`results`), a list of /api (`{"posts": […], "links", "meta"}`),
 * one wrapped row (`{"post": {…}}`), else the body itself as one row.
 */
export function rowsOf(data: unknown): Row[] {
  if (Array.isArray(data)) return data.filter(isRow);
  if (!isRow(data)) return [];
  if (Array.isArray(data.results)) return data.results.filter(isRow);
  const values = Object.values(data);
  const [first] = values;
  if (Array.isArray(first)) return first.filter(isRow);
  if (values.length === 1 && isRow(first)) return [first];
  return [data];
}

/** A value as a cell: lists of ids joined by `;`, objects as JSON, null empty. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null)) return value.join(';');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Quoted when it holds a comma, a quote or a line break; text a spreadsheet would run as a formula (`=`, `+`, `-`, `@`) starts with `'`. */
export function csvCell(value: unknown): string {
  let text = cellText(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvText(rows: readonly Row[]): string {
  const [first] = rows;
  if (!first) return '';
  // The first row's fields, then any a later row adds (a sparse field set shows the same fields in every row).
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const lines = [columns.map(csvCell), ...rows.map((row) => columns.map((column) => csvCell(row[column])))];
  return lines.map((cells) => `${cells.join(',')}\r\n`).join('');
}

export const csvRenderer: Renderer = {
  mediaType: 'text/csv',
  format: 'csv',
  contentType: 'text/csv; charset=utf-8',
  render: (_ctx, answer) => Buffer.from(csvText(rowsOf(answer.data))),
};
