/**
 * The list-query cases of bench/scale.ts, each the first page by number (so
 * its count included), as a client gets it without naming a pagination:
 * `?search=` for the rare seeded term (target) and the common one (for
 * information: how search scales with its matches), `?user_id=` for one
 * owner, and `?ordering=` by every allowed field both ways.
 */
import type { SqlClient } from '../lib/database.js';
import { formatNumber } from '../lib/report.js';
import { COMMON_TERM, OWNERS, RARE_TERM, type SeedSummary } from '../lib/seed.js';
import { listProblem } from './answers.js';
import type { RequestCase } from './timing.js';
import { DEFAULT_ORDER_SQL, firstIds } from './truth.js';

export const SEARCH_TARGET_MS = 50;
export const OWNER_TARGET_MS = 20;
export const ORDERING_TARGET_MS = 20;
/** The fields `?ordering=` allows on comments (resources/comment.ts; not created_at, which the root site does not show). */
const ORDERING_FIELDS = ['id', 'title', 'updated_at'] as const;

function listCase(group: RequestCase['group'], label: string, query: string, targetMs: number | null, check: RequestCase['check']): RequestCase {
  const path = `/comments/?${query}`;
  return { group, label, path, shown: `GET ${path}`, targetMs, check };
}

async function searchCase(client: SqlClient, term: string, label: string, seeded: SeedSummary, pageSize: number, targetMs: number | null): Promise<RequestCase> {
  const matches = seeded.matches[term] ?? 0;
  // LIKE on lower(): the database's own case-insensitive substring test, no index needed for the truth.
  const ids = await firstIds(client, DEFAULT_ORDER_SQL, pageSize, 'lower(title) LIKE ? OR lower(body) LIKE ?', [`%${term}%`, `%${term}%`]);
  const expected = { count: matches, ids, contains: term, next: matches > pageSize };
  const share = `${formatNumber(matches)} matches, ${formatNumber((100 * matches) / Math.max(1, seeded.comments), 1)}%`;
  return listCase('search', `${label} (${share})`, `search=${term}`, targetMs, (reply) => listProblem(reply, expected));
}

/** The rare term with a target, the common one without. */
export async function searchCases(client: SqlClient, seeded: SeedSummary, pageSize: number): Promise<RequestCase[]> {
  return [
    await searchCase(client, RARE_TERM, 'search: rare term', seeded, pageSize, SEARCH_TARGET_MS),
    await searchCase(client, COMMON_TERM, 'search: common term', seeded, pageSize, null),
  ];
}

/** The owner in the middle of the owners: with comments spread evenly, a typical one. */
export async function ownerCase(client: SqlClient, seeded: SeedSummary, pageSize: number): Promise<RequestCase> {
  const owner = Math.floor(OWNERS / 2);
  const id = seeded.ownerIds[owner] ?? 0;
  const count = seeded.ownerComments[owner] ?? 0;
  const ids = await firstIds(client, DEFAULT_ORDER_SQL, pageSize, 'user_id = ?', [id]);
  const expected = { count, ids, next: count > pageSize };
  return listCase('owner', `filter by owner (${formatNumber(count)} comments)`, `user_id=${id}`, OWNER_TARGET_MS, (reply) => listProblem(reply, expected));
}

/** `?ordering=F` and `-F` for each field; the server breaks ties by id in the same direction. */
export async function orderingCases(client: SqlClient, comments: number, pageSize: number): Promise<RequestCase[]> {
  const cases: RequestCase[] = [];
  for (const field of ORDERING_FIELDS) {
    for (const direction of ['ASC', 'DESC'] as const) {
      const order = field === 'id' ? `id ${direction}` : `${field} ${direction}, id ${direction}`;
      const ids = await firstIds(client, order, pageSize);
      const expected = { count: comments, ids, next: comments > pageSize };
      const ordering = `${direction === 'DESC' ? '-' : ''}${field}`;
      cases.push(listCase('ordering', `first page by ${ordering}`, `ordering=${ordering}`, ORDERING_TARGET_MS, (reply) => listProblem(reply, expected)));
    }
  }
  return cases;
}
