/**
 * The harness as an HTTP client of the server: one request with its timing,
 * reading list answers, the page size, and the three credentials (HTTP Basic,
 * a Sanctum-style token, a browser session cookie).
 */
import http, { type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { Account } from './database.js';
import { BenchFailure } from './processes.js';

/** Both sites answer JSON when asked so; the root site would render its browsable page for a browser. */
export const ACCEPT_JSON = { Accept: 'application/json' } as const;

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  /** Empty when the body was discarded. */
  body: Buffer;
  bytes: number;
  /** From the request's start to the body's last byte. */
  ms: number;
}

export interface RequestSpec {
  method?: string;
  headers?: OutgoingHttpHeaders;
  body?: string;
  agent?: http.Agent;
  timeoutMs?: number;
  /** Count the body's bytes without keeping it (a large answer must not weigh on the harness). */
  discardBody?: boolean;
}

/** One HTTP request; rejects on a network error or after the timeout (30 s unless told). */
export function request(url: string, spec: RequestSpec = {}): Promise<Reply> {
  const { method = 'GET', headers = {}, body, agent, timeoutMs = 30_000, discardBody = false } = spec;
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method, headers: body === undefined ? headers : { ...headers, 'Content-Length': Buffer.byteLength(body) }, agent: agent ?? false }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (!discardBody) chunks.push(chunk);
      });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), bytes, ms: performance.now() - started }));
      res.once('error', reject);
    });
    outgoing.setTimeout(timeoutMs, () => outgoing.destroy(new Error(`no answer to ${method} ${url} within ${timeoutMs} ms`)));
    outgoing.once('error', reject);
    outgoing.end(body);
  });
}

/** The body as JSON, or undefined when it is not JSON. */
export function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The items of a list answer: the array itself, or the first array in it (`data` on the token site). */
export function listItems(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (!isRecord(value)) return undefined;
  return Object.values(value).find((field): field is unknown[] => Array.isArray(field));
}

function expectStatus(reply: Reply, status: number, what: string): void {
  if (reply.status !== status) {
    throw new BenchFailure(`${what}: expected status ${status}, got ${reply.status}`, reply.body.toString('utf8').slice(0, 1000));
  }
}

/**
 * The paginated site's default page size, as `GET /comments/` answers it (so
 * that the benchmarks need not copy it): the length of the first page, exact
 * whenever there is a second (with a single page, the page count is 1 either way).
 */
export async function pageSizeOf(origin: string, headers: Record<string, string>): Promise<number> {
  const reply = await request(`${origin}/comments/`, { headers: { ...ACCEPT_JSON, ...headers } });
  expectStatus(reply, 200, 'GET /comments/');
  const results = listItems(parseJson(reply.body))?.length ?? 0;
  if (results === 0) throw new BenchFailure('GET /comments/ answered no comment to learn the page size from', reply.body.toString('utf8').slice(0, 500));
  return results;
}

/** Header values, ready to send. */
export interface Credentials {
  /** `Authorization: Basic …` */
  basic: string;
  /** `Authorization: Bearer …` */
  bearer: string;
  /** `Cookie: …`: every cookie the browser login set, the session id among them. */
  cookie: string;
}

export function basicAuthorization(account: Account): string {
  return `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}`;
}

/** `POST /api/login` (one password check): the token site's `id|secret`. */
export async function bearerAuthorization(origin: string, account: Account): Promise<string> {
  const reply = await request(`${origin}/api/login`, {
    method: 'POST',
    headers: { ...ACCEPT_JSON, 'Content-Type': 'application/json' },
    body: JSON.stringify({ email: account.email, password: account.password }),
  });
  expectStatus(reply, 201, 'POST /api/login');
  const answer = parseJson(reply.body);
  const token = isRecord(answer) ? answer.token : undefined;
  if (typeof token !== 'string') throw new BenchFailure('POST /api/login answered no token', reply.body.toString('utf8').slice(0, 1000));
  return `Bearer ${token}`;
}

/** name → value of each `Set-Cookie`, added to `jar`. */
function keepCookies(jar: Map<string, string>, headers: IncomingHttpHeaders): void {
  for (const cookie of headers['set-cookie'] ?? []) {
    const pair = cookie.split(';', 1)[0] ?? '';
    const equals = pair.indexOf('=');
    if (equals > 0) jar.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
  }
}

function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

/** The browser login of `/api-auth/login/`: the form (its CSRF token and cookie), then the POST that answers 302 with the session. */
export async function sessionCookie(origin: string, account: Account): Promise<string> {
  const jar = new Map<string, string>();
  const form = await request(`${origin}/api-auth/login/`, { headers: { Accept: 'text/html' } });
  expectStatus(form, 200, 'GET /api-auth/login/');
  keepCookies(jar, form.headers);
  const csrf = /name="csrfmiddlewaretoken" value="([^"]*)"/.exec(form.body.toString('utf8'))?.[1];
  if (csrf === undefined) throw new BenchFailure('GET /api-auth/login/ has no csrfmiddlewaretoken field', form.body.toString('utf8').slice(0, 1000));
  const fields = new URLSearchParams({ username: account.username, password: account.password, csrfmiddlewaretoken: csrf, next: '/comments/' });
  const login = await request(`${origin}/api-auth/login/`, {
    method: 'POST',
    headers: { Accept: 'text/html', 'Content-Type': 'application/x-www-form-urlencoded', Cookie: cookieHeader(jar) },
    body: fields.toString(),
  });
  expectStatus(login, 302, 'POST /api-auth/login/');
  keepCookies(jar, login.headers);
  if (!jar.has('sessionid')) throw new BenchFailure('POST /api-auth/login/ set no sessionid cookie');
  return cookieHeader(jar);
}

/** Logs in both ways (two password checks): a token and a session, stored in the database, valid after a restart. */
export async function logIn(origin: string, account: Account): Promise<Credentials> {
  return { basic: basicAuthorization(account), bearer: await bearerAuthorization(origin, account), cookie: await sessionCookie(origin, account) };
}
