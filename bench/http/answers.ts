/**
 * The answers of a row of bench/http.ts, before it is measured: the server's
 * first answer checked and kept (what the ceiling answers), the same-stack
 * reference's checked against it, and each one's workers primed.
 */
import { listItems, parseJson, request, isRecord, type Credentials, type Reply } from '../lib/client.js';
import { isInterrupted } from '../lib/processes.js';
import type { Context } from './measure-row.js';
import { NEW_COMMENT, rowHeaders, type Row } from './rows.js';

/** A row's request to `origin`, one new connection. */
function ask(origin: string, row: Row, credentials: Credentials, etag?: string, discardBody = false): Promise<Reply> {
  const headers = rowHeaders(row, credentials, etag);
  return request(`${origin}${row.path}`, { method: row.method, headers, body: row.write ? NEW_COMMENT : undefined, discardBody, timeoutMs: 30_000 });
}

export interface Sample {
  reply: Reply;
  /** A conditional row's If-None-Match. */
  etag?: string;
}

/**
 * One checked request of the row to `origin` (`who` names it in a problem):
 * the answer the ceiling will give. A conditional row first asks without a
 * condition for the ETag; none is a problem of this row only. Null (and a
 * problem) when something is wrong.
 */
export async function sampleAnswer(who: string, origin: string, row: Row, credentials: Credentials, problems: string[]): Promise<Sample | null> {
  let etag: string | undefined;
  if (row.conditional) {
    const plain = await ask(origin, row, credentials);
    const header = plain.headers.etag;
    if (plain.status !== 200) {
      problems.push(`${who}: the plain GET answered status ${plain.status}, expected 200`);
      return null;
    }
    if (typeof header !== 'string' || header === '') {
      problems.push(`${who}: no ETag in the answer (GET ${row.path} answered 200 without one), so no If-None-Match to send`);
      return null;
    }
    etag = header;
  }
  const reply = await ask(origin, row, credentials, etag);
  const wrong = reply.status !== row.status ? `status ${reply.status}, expected ${row.status}` : row.check(parseJson(reply.body));
  if (wrong === null) return etag === undefined ? { reply } : { reply, etag };
  problems.push(`${who}: answer: ${wrong}: ${reply.body.toString('utf8').slice(0, 300)}`);
  return null;
}

/**
 * With several workers, a few more requests one after the other, each on a new
 * connection (the primary hands connections to the workers in turn), so that
 * every worker makes its one password check of the row alone rather than ten
 * at once in the warm-up, which a short warm-up might not cover.
 */
export async function primeWorkers(who: string, origin: string, row: Row, context: Pick<Context, 'options' | 'credentials'>, etag: string | undefined, problems: string[]): Promise<void> {
  const { workers } = context.options;
  if (workers === 1) return; // the checked request was that worker's first
  for (let i = 1; i < 2 * workers && !isInterrupted(); i += 1) {
    const reply = await ask(origin, row, context.credentials, etag, true);
    if (reply.status !== row.status) problems.push(`${who}: priming: status ${reply.status}`);
  }
}

/** The item of an answer, bare or wrapped (`{"comment": {…}}`). */
function itemOf(answer: unknown): Record<string, unknown> | undefined {
  if (!isRecord(answer)) return undefined;
  if ('id' in answer) return answer;
  return Object.values(answer).find(isRecord);
}

/**
 * What differs between the reference's answer and the server's, or null: for
 * a read, the count and the items (the links name another port); for a write,
 * the fields of the new item (its id and time are its own); a 304 has no body.
 */
function differs(row: Row, ours: Reply, theirs: Reply): string | null {
  if (row.conditional) return null;
  const a = parseJson(ours.body);
  const b = parseJson(theirs.body);
  const show = (value: unknown): string => JSON.stringify(value)?.slice(0, 200) ?? 'nothing';
  if (row.write) {
    const keys = (value: unknown): string => Object.keys(itemOf(value) ?? {}).sort().join(',');
    return keys(a) === keys(b) ? null : `the new item's fields ${keys(b)}, the server's ${keys(a)}`;
  }
  const ourItems = listItems(a);
  if (ourItems) {
    if (isRecord(a) && isRecord(b) && a.count !== b.count) return `count ${String(b.count)}, the server's ${String(a.count)}`;
    const theirItems = listItems(b);
    return JSON.stringify(ourItems) === JSON.stringify(theirItems) ? null : `items ${show(theirItems)}, the server's ${show(ourItems)}`;
  }
  return JSON.stringify(a) === JSON.stringify(b) ? null : `${show(b)}, the server's ${show(a)}`;
}

/**
 * The same-stack reference's first answer of the row, which must be the
 * server's (`ours`: status, count and items; a write's fields; a 304 to its
 * own ETag), then its workers primed: its sample (its ETag for a 304 row), or
 * null and a problem of the row.
 */
export async function checkReference(row: Row, origin: string, ours: Reply, context: Context, problems: string[]): Promise<Sample | null> {
  const sample = await sampleAnswer('reference', origin, row, context.credentials, problems);
  if (sample === null) return null;
  const wrong = differs(row, ours, sample.reply);
  if (wrong !== null) {
    problems.push(`reference: its answer is not the server's: ${wrong}`);
    return null;
  }
  await primeWorkers('reference', origin, row, context, sample.etag, problems);
  return sample;
}
