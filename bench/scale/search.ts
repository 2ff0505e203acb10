/**
 * The search cases of bench/scale.ts (`?search=`, a page by number, so its
 * count included). Cold, with a target: the seeded vocabulary's terms, each
 * in 0.1% of the comments, and the old terms, each in 10 of the oldest
 * comments (a page of them is as far from the list's start as a search can
 * be), one term a request (then again in other orders, when more requests
 * are wanted than there are terms); and the pages of the common term, for
 * information (how search grows with its matches).
 * Kept: the rare term and the common one, each the same request every time.
 */
import { formatNumber, formatRange } from '../lib/report.js';
import { BenchFailure } from '../lib/processes.js';
import { COMMON_TERM, OLD_TERMS, OLD_TERMS_UNTIL, oldTermComments, RARE_TERM, SEARCH_TERMS, searchTermComments, type SeedSummary } from '../lib/seed.js';
import { listProblem } from './answers.js';
import { claim, runFrom, shuffled, type CaseSource } from './spread.js';
import { keptCase, type Probe, type RequestCase } from './timing.js';
import { DEFAULT_ORDER_SQL, DEFAULT_ORDERING, firstIds, ORDERINGS, sqlIntegers, type Ordering } from './truth.js';

export const SEARCH_TARGET_MS = 50;

/** LIKE on lower(): the database's own case-insensitive substring test, no index needed for the truth. */
const HOLDS_TERM = '(lower(title) LIKE ? OR lower(body) LIKE ?)';
const likeTerm = (term: string): string[] => [`%${term}%`, `%${term}%`];

function searchPath(term: string, extra: string): string {
  return `/comments/?search=${term}${extra}`;
}

/** A vocabulary of search terms the seeder planted: the terms, the comments term k is in, and how many the seeder counted. */
interface Vocabulary {
  terms: readonly string[];
  comments: (k: number, comments: number) => number[];
  matches: (seeded: SeedSummary) => readonly number[];
}

const SPREAD: Vocabulary = { terms: SEARCH_TERMS, comments: searchTermComments, matches: (seeded) => seeded.termMatches };
const OLD: Vocabulary = { terms: OLD_TERMS, comments: oldTermComments, matches: (seeded) => seeded.oldTermMatches };

const termPath = (term: string, ordering: Ordering): string => searchPath(term, ordering.ordering ? `&ordering=${ordering.ordering}` : '');

const share = (matches: number, comments: number): string => `${formatNumber(matches)} matches, ${formatNumber((100 * matches) / Math.max(1, comments), 1)}%`;

/** Term k of `vocabulary` in `ordering`: its count from the seeder, its first page from the database among the comments it was planted in. */
async function termProbe(source: CaseSource, seeded: SeedSummary, vocabulary: Vocabulary, k: number, ordering: Ordering): Promise<Probe> {
  const term = vocabulary.terms[k] ?? '';
  const planted = vocabulary.comments(k, source.comments);
  const count = vocabulary.matches(seeded)[k] ?? 0;
  if (count !== planted.length) throw new BenchFailure(`the seeder wrote "${term}" into ${count} comments, not the ${planted.length} it was planted in`);
  const ids = await firstIds(source.client, ordering.sql, source.pageSize, `id IN (${sqlIntegers(planted)}) AND ${HOLDS_TERM}`, likeTerm(term));
  const expected = { count, ids, contains: term, next: count > source.pageSize };
  return { path: termPath(term, ordering), check: (reply) => listProblem(reply, expected) };
}

/** Cold: a term of `vocabulary` a request; past its terms, the terms again in each other order. */
async function termProbes(source: CaseSource, seeded: SeedSummary, vocabulary: Vocabulary): Promise<Probe[]> {
  const terms = shuffled(vocabulary.terms.map((_, k) => k));
  const asked = [DEFAULT_ORDERING, ...ORDERINGS].flatMap((ordering) => terms.map((k) => ({ k, ordering })));
  const probes: Probe[] = [];
  for (const { k, ordering } of claim(source.taken, asked, ({ k, ordering }) => termPath(vocabulary.terms[k] ?? '', ordering), source.wanted)) {
    probes.push(await termProbe(source, seeded, vocabulary, k, ordering));
  }
  return probes;
}

/** Cold: the vocabulary spread over the whole list. */
async function vocabularyCase(source: CaseSource, seeded: SeedSummary): Promise<RequestCase> {
  const probes = await termProbes(source, seeded, SPREAD);
  const label = 'search: vocabulary terms (0.1% each)';
  const shown = `GET /comments/?search=T, ${formatNumber(probes.length)} requests over ${formatNumber(SEARCH_TERMS.length)} terms of ${formatRange(seeded.termMatches)} matches`;
  return { group: 'search', mode: 'cold', label, shown, targetMs: SEARCH_TARGET_MS, probes };
}

/** Cold: the old terms, whose few matches are all among the oldest comments. */
async function oldTermsCase(source: CaseSource, seeded: SeedSummary): Promise<RequestCase> {
  const probes = await termProbes(source, seeded, OLD);
  const oldest = Math.min(source.comments, OLD_TERMS_UNTIL);
  const label = `search: rare terms, all old (${formatRange(seeded.oldTermMatches)} matches each, all in the oldest ${formatNumber(oldest)})`;
  const shown = `GET /comments/?search=T, ${formatNumber(probes.length)} requests over ${formatNumber(OLD_TERMS.length)} terms`;
  return { group: 'search', mode: 'cold', label, shown, targetMs: SEARCH_TARGET_MS, probes };
}

/** Cold: the common term's pages from the first, for information. */
async function commonPagesCase(source: CaseSource, seeded: SeedSummary): Promise<RequestCase> {
  const { client, pageSize, wanted, taken } = source;
  const matches = seeded.matches[COMMON_TERM] ?? 0;
  const pages = Math.ceil(matches / pageSize);
  const numbers = claim(taken, runFrom(1, pages, wanted), (page) => searchPath(COMMON_TERM, `&page=${page}`), wanted);
  const ids = await firstIds(client, DEFAULT_ORDER_SQL, Math.max(0, ...numbers) * pageSize, HOLDS_TERM, likeTerm(COMMON_TERM));
  const probes = numbers.map((page): Probe => {
    const expected = { count: matches, ids: ids.slice((page - 1) * pageSize, page * pageSize), contains: COMMON_TERM, next: page < pages, previous: page > 1 };
    return { path: searchPath(COMMON_TERM, `&page=${page}`), check: (reply) => listProblem(reply, expected) };
  });
  const label = `search: common term, its first pages (${share(matches, source.comments)})`;
  const shown = `GET /comments/?search=${COMMON_TERM}&page=P, ${formatNumber(probes.length)} pages`;
  return { group: 'search', mode: 'cold', label, shown, targetMs: null, probes };
}

export async function coldSearchCases(source: CaseSource, seeded: SeedSummary): Promise<RequestCase[]> {
  return [await vocabularyCase(source, seeded), await oldTermsCase(source, seeded), await commonPagesCase(source, seeded)];
}

/** Kept: the rare term and the common one, the first page of each. */
export async function keptSearchCases(source: CaseSource, seeded: SeedSummary): Promise<RequestCase[]> {
  const cases: RequestCase[] = [];
  for (const [term, label] of [
    [RARE_TERM, 'search: rare term'],
    [COMMON_TERM, 'search: common term'],
  ] as const) {
    const matches = seeded.matches[term] ?? 0;
    const ids = await firstIds(source.client, DEFAULT_ORDER_SQL, source.pageSize, HOLDS_TERM, likeTerm(term));
    const expected = { count: matches, ids, contains: term, next: matches > source.pageSize };
    cases.push(keptCase('search', `${label} (${share(matches, source.comments)})`, { path: searchPath(term, ''), check: (reply) => listProblem(reply, expected) }));
  }
  return cases;
}
