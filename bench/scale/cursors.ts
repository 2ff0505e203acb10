/**
 * The cursor cases of bench/scale.ts: DRF's CursorPagination at the start,
 * the middle and the end of the whole list. A cursor is made, as the server
 * makes its own, from the row just before the page, read from the database
 * with its time as the database's text: a client that followed `next` links
 * there would hold the same cursor.
 */
import type { SqlClient } from '../lib/database.js';
import { formatNumber } from '../lib/report.js';
import { CursorCodec } from '../../src/pagination/cursor-codec.js';
import type { OrderedQuery } from '../../src/pagination/types.js';
import { SECRET_KEY } from '../lib/project.js';
import { listProblem } from './answers.js';
import type { RequestCase } from './timing.js';
import { DEFAULT_ORDER_SQL, firstIds, rowsAt } from './truth.js';

export const CURSOR_TARGET_MS = 10;
/** Cursors as the root site seals them (the server runs with the same SECRET_KEY). */
const cursors = new CursorCodec(SECRET_KEY, 'paginated');
const DEFAULT_ORDER: OrderedQuery['order'] = [
  ['updated_at', 'DESC'],
  ['id', 'DESC'],
];

/** The page after the row at `position` (0: the first row) of `comments`. */
async function pageAfter(client: SqlClient, label: string, position: number, comments: number, pageSize: number): Promise<RequestCase> {
  const [place, ...page] = await rowsAt(client, position, pageSize + 1);
  if (!place) throw new Error(`no comment at position ${position}`);
  const cursor = cursors.encode('Comment', DEFAULT_ORDER, { values: [place.updated, place.id], forward: true });
  const ids = page.map((row) => row.id);
  const expected = { ids, next: position + pageSize < comments - 1, previous: true };
  return {
    group: 'cursor',
    label,
    path: `/comments/?cursor=${cursor}`,
    shown: `GET /comments/?cursor=(after row ${formatNumber(position + 1)})`,
    targetMs: CURSOR_TARGET_MS,
    check: (reply) => listProblem(reply, expected),
  };
}

/** First (`?cursor=`: the first cursor page), middle and last cursor pages of the default order. */
export async function cursorCases(client: SqlClient, comments: number, pageSize: number): Promise<RequestCase[]> {
  const ids = await firstIds(client, DEFAULT_ORDER_SQL, pageSize);
  const first: RequestCase = {
    group: 'cursor',
    label: 'cursor: first page',
    path: '/comments/?cursor=',
    shown: 'GET /comments/?cursor=',
    targetMs: CURSOR_TARGET_MS,
    check: (reply) => listProblem(reply, { ids, next: comments > pageSize, previous: false }),
  };
  const middle = await pageAfter(client, 'cursor: middle page', Math.floor(comments / 2), comments, pageSize);
  const last = await pageAfter(client, 'cursor: last page', Math.max(0, comments - pageSize - 1), comments, pageSize);
  return [first, middle, last];
}
