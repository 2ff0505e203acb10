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

export interface Row {
  label: string;
  method: 'GET' | 'POST';
  path: string;
  credential: Credential;
  write: boolean;
  status: 200 | 201;
  /** What is wrong with the row's answer, or null. */
  check: (answer: unknown) => string | null;
  /** Rows the Basic-auth comparison needs. */
  role?: 'basic list' | 'session list' | 'bearer one';
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

function aNewComment(answer: unknown): string | null {
  return typeof itemId(answer) === 'number' ? null : 'no id in the answer';
}

export function benchRows(comments: number, pageSize: number): Row[] {
  const pages = Math.ceil(comments / pageSize);
  const deep = Math.max(1, Math.round(pages * DEEP_PAGE_FRACTION));
  const read = { method: 'GET', write: false, status: 200 } as const;
  const write = { method: 'POST', write: true, status: 201, check: aNewComment } as const;
  return [
    { ...read, label: 'GET /comments/ (Basic)', path: '/comments/', credential: 'basic', check: pageOf(comments, pageSize, 1), role: 'basic list' },
    { ...read, label: `GET /comments/?page=${deep} (Basic)`, path: `/comments/?page=${deep}`, credential: 'basic', check: pageOf(comments, pageSize, deep) },
    { ...read, label: 'GET /comments/ (session cookie)', path: '/comments/', credential: 'session', check: pageOf(comments, pageSize, 1), role: 'session list' },
    { ...read, label: 'GET /api/comments/1 (bearer)', path: '/api/comments/1', credential: 'bearer', check: theComment(1), role: 'bearer one' },
    { ...read, label: `GET /api/comments (bearer, all ${comments})`, path: '/api/comments', credential: 'bearer', check: everyComment(comments) },
    { ...write, label: 'POST /comments/ (Basic)', path: '/comments/', credential: 'basic' },
    { ...write, label: 'POST /api/comments (bearer)', path: '/api/comments', credential: 'bearer' },
  ];
}

export function rowHeaders(row: Row, credentials: Credentials): Record<string, string> {
  const headers: Record<string, string> = { ...ACCEPT_JSON };
  if (row.credential === 'session') headers.Cookie = credentials.cookie;
  else headers.Authorization = row.credential === 'basic' ? credentials.basic : credentials.bearer;
  if (row.write) headers['Content-Type'] = 'application/json';
  return headers;
}
