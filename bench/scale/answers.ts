/**
 * What a list answer of the root site must hold for a case of
 * bench/scale.ts to count: a DRF page (`{count, next, previous, results}`,
 * or without `count` for a cursor page) with the expected count, the
 * expected rows in the expected order, and the links where there must be
 * some. The expectations come from the seeder's own counts and from the
 * database read directly, never from the server.
 */
import { isRecord, listItems, parseJson, type Reply } from '../lib/client.js';

export interface Expected {
  /** The page's `count` (page numbers); absent: a cursor page, which has none. */
  count?: number;
  /** How many results. */
  results?: number;
  /** The results' ids, in order. */
  ids?: readonly number[];
  /** Every result's title or body holds this, ignoring case (a search). */
  contains?: string;
  /** Whether there must be a `next` (a `previous`) link. */
  next?: boolean;
  previous?: boolean;
}

const shortBody = (reply: Reply): string => reply.body.toString('utf8').slice(0, 200);

function resultsProblem(results: unknown[], expected: Expected): string | null {
  if (expected.results !== undefined && results.length !== expected.results) return `${results.length} results, expected ${expected.results}`;
  const ids = results.map((item) => (isRecord(item) ? item.id : undefined));
  if (expected.ids && ids.join() !== expected.ids.join()) return `results ${ids.join(', ')}, expected ${expected.ids.join(', ')}`;
  const term = expected.contains?.toLowerCase();
  const missing = term === undefined ? undefined : results.find((item) => !isRecord(item) || ![item.title, item.body].some((text) => String(text).toLowerCase().includes(term)));
  return missing === undefined ? null : `a result without "${expected.contains}": ${JSON.stringify(missing)}`;
}

function linkProblem(answer: Record<string, unknown>, name: 'next' | 'previous', wanted: boolean | undefined): string | null {
  if (wanted === undefined) return null;
  const present = typeof answer[name] === 'string';
  return present === wanted ? null : `${name} ${present ? 'present' : 'missing'}, expected ${wanted ? 'a link' : 'none'}`;
}

/** What is wrong with a list answer, or null. */
export function listProblem(reply: Reply, expected: Expected): string | null {
  if (reply.status !== 200) return `status ${reply.status}: ${shortBody(reply)}`;
  const answer = parseJson(reply.body);
  if (!isRecord(answer)) return `not a JSON object: ${shortBody(reply)}`;
  if (expected.count !== undefined && answer.count !== expected.count) return `count ${String(answer.count)}, expected ${expected.count}`;
  const results = listItems(answer);
  if (!results) return `no results: ${shortBody(reply)}`;
  return resultsProblem(results, expected) ?? linkProblem(answer, 'next', expected.next) ?? linkProblem(answer, 'previous', expected.previous);
}
