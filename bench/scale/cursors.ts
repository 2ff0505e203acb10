/**
 * The cursor cases of bench/scale.ts: DRF's CursorPagination. Cold: the
 * pages after rows spread over the whole list, every other one in the
 * opposite order (`?ordering=updated_at`); kept: the first cursor page and
 * the one after the middle row. A cursor is made, as the server makes its
 * own, from the row just before the page, read from the database with its
 * time as the database's text: a client that followed `next` links there
 * would hold the same cursor.
 */
import { formatNumber } from '../lib/report.js';
import { CursorCodec } from '../../src/pagination/cursor-codec.js';
import type { OrderedQuery } from '../../src/pagination/types.js';
import { SECRET_KEY } from '../lib/project.js';
import { listProblem } from './answers.js';
import { spreadOver, type CaseSource } from './spread.js';
import { keptCase, type Probe, type RequestCase } from './timing.js';
import { DEFAULT_ORDER_SQL, firstIds, rowsAtPositions, type PlacedRow } from './truth.js';

export const CURSOR_TARGET_MS = 10;
/** Cursors as the root site seals them (the server runs with the same SECRET_KEY). */
const cursors = new CursorCodec(SECRET_KEY, 'paginated');

/** The list's default order, and the opposite one a client asks with `?ordering=updated_at`. */
interface ListOrder {
  /** The query's start: `ordering=…&`, or nothing for the default. */
  query: string;
  sql: string;
  order: OrderedQuery['order'];
}

const NEWEST_FIRST: ListOrder = {
  query: '',
  sql: DEFAULT_ORDER_SQL,
  order: [
    ['updated_at', 'DESC'],
    ['id', 'DESC'],
  ],
};
const OLDEST_FIRST: ListOrder = {
  query: 'ordering=updated_at&',
  sql: 'updated_at ASC, id ASC',
  order: [
    ['updated_at', 'ASC'],
    ['id', 'ASC'],
  ],
};

/** A cold request: the page after the row at `position` (0: the first) in `order`. */
interface Place {
  order: ListOrder;
  position: number;
}

/** The page after `place`, its rows read at their positions (`rows`). */
function pageAfter({ order, position }: Place, rows: ReadonlyMap<number, PlacedRow>, comments: number, pageSize: number): Probe {
  const at = rows.get(position);
  if (!at) throw new Error(`no comment at position ${position}`);
  const cursor = cursors.encode('Comment', order.order, { values: [at.updated, at.id], forward: true });
  const ids: number[] = [];
  for (let next = position + 1; next <= Math.min(position + pageSize, comments - 1); next += 1) ids.push(rows.get(next)?.id ?? NaN);
  const expected = { ids, next: position + pageSize < comments - 1, previous: true };
  return { path: `/comments/?${order.query}cursor=${cursor}`, check: (reply) => listProblem(reply, expected) };
}

/** The rows of `order` at the `places` in it and the page after each. */
async function rowsAround(source: CaseSource, order: ListOrder, places: readonly Place[]): Promise<Map<number, PlacedRow>> {
  const positions = places.filter((place) => place.order === order).flatMap(({ position }) => Array.from({ length: source.pageSize + 1 }, (_, j) => position + j));
  return rowsAtPositions(source.client, order.sql, positions);
}

/** Cold: after rows spread over the list, in both orders, in turn. */
export async function coldCursorCases(source: CaseSource): Promise<RequestCase[]> {
  const { comments, pageSize, wanted } = source;
  // Rows with another after them, each at a different place: every cursor differs (no other case sends one).
  const places = spreadOver(0, comments - 2, wanted).map((position, j): Place => ({ order: j % 2 === 0 ? NEWEST_FIRST : OLDEST_FIRST, position }));
  const descending = await rowsAround(source, NEWEST_FIRST, places);
  const ascending = await rowsAround(source, OLDEST_FIRST, places);
  const probes = places.map((place) => pageAfter(place, place.order === NEWEST_FIRST ? descending : ascending, comments, pageSize));
  const shown = `GET /comments/?cursor=C, after ${formatNumber(probes.length)} rows spread over 1…${formatNumber(comments - 1)}, newest and oldest first in turn`;
  return [{ group: 'cursor', mode: 'cold', label: 'cursors spread over the list', shown, targetMs: CURSOR_TARGET_MS, probes }];
}

/** Kept: `?cursor=` (the first cursor page) and the page after the middle row, each the same request every time. */
export async function keptCursorCases(source: CaseSource): Promise<RequestCase[]> {
  const { client, comments, pageSize } = source;
  const ids = await firstIds(client, DEFAULT_ORDER_SQL, pageSize);
  const first: Probe = { path: '/comments/?cursor=', check: (reply) => listProblem(reply, { ids, next: comments > pageSize, previous: false }) };
  const middle: Place = { order: NEWEST_FIRST, position: Math.floor(comments / 2) };
  const rows = await rowsAround(source, NEWEST_FIRST, [middle]);
  return [
    keptCase('cursor', 'cursor: first page', first),
    keptCase('cursor', 'cursor: middle page', pageAfter(middle, rows, comments, pageSize), `GET /comments/?cursor=(after row ${formatNumber(middle.position + 1)})`),
  ];
}
