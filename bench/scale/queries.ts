/**
 * The owner and ordering cases of bench/scale.ts, pages by number (so their
 * count included), as a client gets them without naming a pagination.
 * Cold: `?user_id=` of a different owner each time, newest and oldest first
 * in turn; the first pages of every `?ordering=` both ways, each page once.
 * Kept: one owner, and `?ordering=-title`, each the same request every time.
 */
import { formatNumber, formatRange } from '../lib/report.js';
import { OWNERS, type SeedSummary } from '../lib/seed.js';
import { listProblem } from './answers.js';
import { claim, shuffled, spreadOver, type CaseSource } from './spread.js';
import { keptCase, type Probe, type RequestCase } from './timing.js';
import { DEFAULT_ORDERING, firstIds, ORDERINGS, type Ordering } from './truth.js';

export const OWNER_TARGET_MS = 20;
export const ORDERING_TARGET_MS = 20;
const OLDEST_FIRST = ORDERINGS.find((ordering) => ordering.ordering === 'updated_at') ?? DEFAULT_ORDERING;

const orderingQuery = (ordering: Ordering): string => (ordering.ordering ? `&ordering=${ordering.ordering}` : '');

/** The first page of `owner`'s comments in `ordering`. */
async function ownerProbe(source: CaseSource, seeded: SeedSummary, owner: number, ordering: Ordering): Promise<Probe> {
  const id = seeded.ownerIds[owner] ?? 0;
  const count = seeded.ownerComments[owner] ?? 0;
  const ids = await firstIds(source.client, ordering.sql, source.pageSize, 'user_id = ?', [id]);
  const expected = { count, ids, next: count > source.pageSize };
  return { path: `/comments/?user_id=${id}${orderingQuery(ordering)}`, check: (reply) => listProblem(reply, expected) };
}

/** Cold: owners spread over them all, newest first and oldest first in turn (each owner both ways, when more are wanted). */
async function coldOwnerCase(source: CaseSource, seeded: SeedSummary): Promise<RequestCase> {
  const owners = spreadOver(0, OWNERS - 1, OWNERS);
  const asked = [...owners.map((owner, j) => ({ owner, ordering: j % 2 === 0 ? DEFAULT_ORDERING : OLDEST_FIRST })), ...owners.map((owner, j) => ({ owner, ordering: j % 2 === 0 ? OLDEST_FIRST : DEFAULT_ORDERING }))];
  const key = ({ owner, ordering }: (typeof asked)[number]): string => `/comments/?user_id=${seeded.ownerIds[owner] ?? 0}${orderingQuery(ordering)}`;
  const probes: Probe[] = [];
  for (const { owner, ordering } of claim(source.taken, asked, key, source.wanted)) probes.push(await ownerProbe(source, seeded, owner, ordering));
  const shown = `GET /comments/?user_id=U, ${formatNumber(probes.length)} requests over ${formatNumber(OWNERS)} owners of ${formatRange(seeded.ownerComments)} comments`;
  return { group: 'owner', mode: 'cold', label: 'filter by owner: different owners, both orders', shown, targetMs: OWNER_TARGET_MS, probes };
}

/** Cold: page 1 of each ordering in turn, then page 2 of each, and so on. */
async function coldOrderingCase(source: CaseSource): Promise<RequestCase> {
  const { client, comments, pageSize, wanted, taken } = source;
  const pages = Math.ceil(comments / pageSize);
  const perOrdering = Math.min(pages, Math.ceil(wanted / ORDERINGS.length));
  const asked = Array.from({ length: perOrdering }, (_, j) => ORDERINGS.map((ordering) => ({ ordering, page: j + 1 }))).flat();
  const key = ({ ordering, page }: (typeof asked)[number]): string => `/comments/?page=${page}${orderingQuery(ordering)}`;
  const chosen = claim(taken, asked, key, wanted);
  const probes: Probe[] = [];
  for (const ordering of ORDERINGS) {
    const ids = await firstIds(client, ordering.sql, perOrdering * pageSize);
    for (const { page } of chosen.filter((one) => one.ordering === ordering)) {
      const expected = { count: comments, ids: ids.slice((page - 1) * pageSize, page * pageSize), next: page < pages, previous: page > 1 };
      probes.push({ path: key({ ordering, page }), check: (reply) => listProblem(reply, expected) });
    }
  }
  const shown = `GET /comments/?ordering=F&page=P, pages 1…${formatNumber(perOrdering)} of each of the ${ORDERINGS.length} orderings`;
  return { group: 'ordering', mode: 'cold', label: 'first pages of every ordering', shown, targetMs: ORDERING_TARGET_MS, probes: shuffled(probes) };
}

export async function coldQueryCases(source: CaseSource, seeded: SeedSummary): Promise<RequestCase[]> {
  return [await coldOwnerCase(source, seeded), await coldOrderingCase(source)];
}

/** Kept: the owner in the middle of the owners (with comments spread evenly, a typical one), and `?ordering=-title`. */
export async function keptQueryCases(source: CaseSource, seeded: SeedSummary): Promise<RequestCase[]> {
  const owner = Math.floor(OWNERS / 2);
  const byTitle = ORDERINGS.find((ordering) => ordering.ordering === '-title') ?? DEFAULT_ORDERING;
  const { client, comments, pageSize } = source;
  const ids = await firstIds(client, byTitle.sql, pageSize);
  const expected = { count: comments, ids, next: comments > pageSize };
  return [
    keptCase('owner', `filter by owner (${formatNumber(seeded.ownerComments[owner] ?? 0)} comments)`, await ownerProbe(source, seeded, owner, DEFAULT_ORDERING)),
    keptCase('ordering', 'first page by -title', { path: `/comments/?ordering=-title`, check: (reply) => listProblem(reply, expected) }),
  ];
}
