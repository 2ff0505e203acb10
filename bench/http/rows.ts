/**
 * The rows of bench/http.ts: each endpoint measured, with its credential, the
 * status it must answer and what its answer must hold; and the request headers
 * that go with a row.
 */
import { ACCEPT_JSON, isRecord, listItems, type Credentials } from '../lib/client.js';

/** How deep the deep-page row reads: page 4000 of 5000 at 10,000 comments, 2 a page (the site's default). */
const DEEP_PAGE_FRACTION = 0.8;
/** Within the limits: a title of at most 10 characters, a body of at most 15. */
export const NEW_COMMENT = JSON.stringify({ title: 'bench', body: 'a bench comment' });

export type Credential = 'basic' | 'session' | 'bearer';

/**
 * What a row is held to (reported, never a failure): a share of its ceiling's
 * or of the same-stack reference's requests/s, or (a 304 row) a multiple of
 * its full read's: the same request without If-None-Match, driven in the
 * same rounds (fullReadOf).
 */
export type RowTarget =
  | { kind: 'ceiling'; fraction: number }
  | { kind: 'reference'; fraction: number }
  | { kind: 'full read'; factor: number };

/** Every small read (a page, one comment, a 304): a tenth of the bare node:http server answering the same bytes. */
export const SMALL_READ_CEILING = 0.1;
/** Writes: a twentieth of the ceiling (a write's transaction costs what no ceiling pays). */
export const WRITE_CEILING = 0.05;
/** One comment by bearer token: half the same-stack reference (Express and sqlite3, no framework). */
export const BEARER_ONE_REFERENCE = 0.5;
/** A 304 at least twice the requests/s of the full answer of the same URL. */
export const NOT_MODIFIED_FACTOR = 2;

export interface Row {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  credential: Credential;
  write: boolean;
  status: 200 | 201 | 304;
  /**
   * A conditional GET: a first plain request must give an ETag, then every
   * request sends it back in If-None-Match and must get a 304.
   */
  conditional?: boolean;
  targets: readonly RowTarget[];
  /** What is wrong with the row's answer, or null. */
  check: (answer: unknown) => string | null;
  /** Rows the Django comparison needs. */
  role?: 'basic list' | 'bearer one';
}

/** A page of the paginated site: the count of every comment, a full page (or the rest, on the last). */
function pageOf(comments: number, pageSize: number, page: number): (answer: unknown) => string | null {
  const expected = Math.min(pageSize, comments - (page - 1) * pageSize);
  return (answer) => {
    if (!isRecord(answer)) return 'not a JSON object';
    if (answer.count !== comments) return `count ${String(answer.count)}, expected ${comments}`;
    const results = listItems(answer);
    return results?.length === expected ? null : `${results?.length ?? 'no'} results, expected ${expected}`;
  };
}

/** An item, bare or wrapped (`{"comment": {…}}` on the token site). */
function itemId(answer: unknown): unknown {
  if (!isRecord(answer)) return undefined;
  if ('id' in answer) return answer.id;
  const inner = Object.values(answer).find(isRecord);
  return inner?.id;
}

function theComment(id: number): (answer: unknown) => string | null {
  return (answer) => (itemId(answer) === id ? null : `not comment ${id}`);
}

function everyComment(comments: number): (answer: unknown) => string | null {
  return (answer) => {
    const items = listItems(answer);
    return items?.length === comments ? null : `${items?.length ?? 'no'} comments, expected ${comments}`;
  };
}

function notModified(): string | null {
  return null;
}

function aNewComment(answer: unknown): string | null {
  return typeof itemId(answer) === 'number' ? null : 'no id in the answer';
}

export function benchRows(comments: number, pageSize: number): Row[] {
  const pages = Math.ceil(comments / pageSize);
  const deep = Math.max(1, Math.round(pages * DEEP_PAGE_FRACTION));
  const read = { method: 'GET', write: false, status: 200 } as const;
  const small = [{ kind: 'ceiling', fraction: SMALL_READ_CEILING }] as const satisfies readonly RowTarget[];
  const write = { method: 'POST', write: true, status: 201, check: aNewComment, targets: [{ kind: 'ceiling', fraction: WRITE_CEILING }] } as const;
  const notModifiedRead: Pick<Row, 'method' | 'write' | 'status' | 'conditional' | 'targets' | 'check'> = {
    method: 'GET',
    write: false,
    status: 304,
    conditional: true,
    targets: [{ kind: 'full read', factor: NOT_MODIFIED_FACTOR }],
    check: notModified,
  };
  const basicList = 'GET /comments/ (Basic)';
  const bearerOne = 'GET /api/comments/1 (bearer)';
  return [
    { ...read, label: basicList, path: '/comments/', credential: 'basic', targets: [...small], check: pageOf(comments, pageSize, 1), role: 'basic list' },
    { ...read, label: `GET /comments/?page=${deep} (Basic)`, path: `/comments/?page=${deep}`, credential: 'basic', targets: [...small], check: pageOf(comments, pageSize, deep) },
    { ...read, label: 'GET /comments/ (session cookie)', path: '/comments/', credential: 'session', targets: [...small], check: pageOf(comments, pageSize, 1) },
    {
      ...read,
      label: bearerOne,
      path: '/api/comments/1',
      credential: 'bearer',
      targets: [{ kind: 'reference', fraction: BEARER_ONE_REFERENCE }, ...small],
      check: theComment(1),
      role: 'bearer one',
    },
    // Not a small read (about 1 MB at 10,000): no target, its ratios for information.
    { ...read, label: `GET /api/comments (bearer, all ${comments})`, path: '/api/comments', credential: 'bearer', targets: [], check: everyComment(comments) },
    { ...notModifiedRead, label: 'GET /api/comments/1 (bearer, If-None-Match)', path: '/api/comments/1', credential: 'bearer' },
    { ...notModifiedRead, label: 'GET /comments/ (Basic, If-None-Match)', path: '/comments/', credential: 'basic' },
    { ...write, label: 'POST /comments/ (Basic)', path: '/comments/', credential: 'basic' },
    { ...write, label: 'POST /api/comments (bearer)', path: '/api/comments', credential: 'bearer' },
  ];
}

/**
 * A 304 row's full read: the same request without If-None-Match, answered
 * 200 with the body; its requests/s is what the row is held to, driven in the
 * same rounds. Its answer was checked when the row asked for the ETag.
 */
export function fullReadOf(row: Row): Row {
  return { ...row, label: `${row.label}: full read`, status: 200, conditional: false, targets: [], check: () => null };
}

/** The row's request headers; `etag` (a conditional row's) goes into If-None-Match. */
export function rowHeaders(row: Row, credentials: Credentials, etag?: string): Record<string, string> {
  const headers: Record<string, string> = { ...ACCEPT_JSON };
  if (etag !== undefined) headers['If-None-Match'] = etag;
  if (row.credential === 'session') headers.Cookie = credentials.cookie;
  else headers.Authorization = row.credential === 'basic' ? credentials.basic : credentials.bearer;
  if (row.write) headers['Content-Type'] = 'application/json';
  return headers;
}
