/**
 * The Django REST Framework original, measured beside the server (opt-in:
 * --django-url and --django-user): its `GET /comments/` with a session cookie
 * (a login through its /api-auth/login/ form, CSRF token and all) and with
 * HTTP Basic (which hashes the password on every request), driven as the
 * server's rows are. The bench only takes its URL: start it beside (its
 * run.sh), with as many workers as the server's.
 *
 * A fresh original has no comment: its table is topped up first (POST
 * /comments/ with the session and its CSRF token, 8 at a time) to
 * --django-comments, so that its page and count are of a table too.
 *
 * gunicorn's sync workers close the connection after every answer: autocannon
 * reconnects, and a request it had already sent on a closing connection counts
 * as a connection error. Those are noted, not failures; the requests/s is the
 * 200 answers over the run's seconds (autocannon's mean of its per-second
 * counts undercounts answers that each come on a new connection).
 */
import { ACCEPT_JSON, isRecord, listItems, parseJson, request, sessionCookie } from '../lib/client.js';
import { describeError, isInterrupted, progress } from '../lib/processes.js';
import { formatNumber } from '../lib/report.js';
import { warmAndMeasure, type Load } from './load.js';
import type { DjangoOptions, Options } from './options.js';
import { NEW_COMMENT, type Row } from './rows.js';

const TOP_UP_AT_ONCE = 8;

export interface DjangoRow {
  label: string;
  credential: 'session' | 'basic';
  real: Load | null;
  /** The connection errors of a server that closes every connection (above). */
  notes: string[];
  problems: string[];
}

export interface DjangoReport {
  url: string;
  username: string;
  /** Comments in its table when measured. */
  comments: number | null;
  rows: DjangoRow[];
  /** What went wrong before the rows (the login, the top-up). */
  problems: string[];
}

function cookieValue(cookie: string, name: string): string | undefined {
  for (const pair of cookie.split(';')) {
    const [key, ...value] = pair.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** The page's count, or a problem. */
function pageProblem(status: number, body: Buffer): string | null {
  if (status !== 200) return `status ${status}, expected 200: ${body.toString('utf8').slice(0, 300)}`;
  const answer = parseJson(body);
  if (!isRecord(answer) || typeof answer.count !== 'number' || !listItems(answer)) return `not a page: ${body.toString('utf8').slice(0, 300)}`;
  return null;
}

async function countOf(url: string, cookie: string): Promise<number> {
  const reply = await request(`${url}/comments/`, { headers: { ...ACCEPT_JSON, Cookie: cookie } });
  const problem = pageProblem(reply.status, reply.body);
  if (problem) throw new Error(`GET /comments/ with the session: ${problem}`);
  return (parseJson(reply.body) as { count: number }).count;
}

/** POSTs comments with the session (and its CSRF token) until the table holds `wanted`. */
async function topUp(url: string, cookie: string, have: number, wanted: number): Promise<void> {
  const csrf = cookieValue(cookie, 'csrftoken');
  if (csrf === undefined) throw new Error('the login set no csrftoken cookie');
  const headers = { ...ACCEPT_JSON, 'Content-Type': 'application/json', Cookie: cookie, 'X-CSRFToken': csrf, Referer: `${url}/comments/` };
  let next = have;
  const worker = async (): Promise<void> => {
    while (next < wanted && !isInterrupted()) {
      next += 1;
      const reply = await request(`${url}/comments/`, { method: 'POST', headers, body: NEW_COMMENT });
      if (reply.status !== 201) throw new Error(`POST /comments/ with the session: status ${reply.status}: ${reply.body.toString('utf8').slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: TOP_UP_AT_ONCE }, worker));
}

async function measure(label: string, credential: DjangoRow['credential'], url: string, headers: Record<string, string>, options: Options): Promise<DjangoRow> {
  const result: DjangoRow = { label, credential, real: null, notes: [], problems: [] };
  progress(`  ${label}`);
  const sample = await request(`${url}/comments/`, { headers });
  const problem = pageProblem(sample.status, sample.body);
  if (problem) {
    result.problems.push(`answer: ${problem}`);
    return result;
  }
  const row: Row = { label, method: 'GET', path: '/comments/', credential, write: false, status: 200, targets: [], check: () => null };
  const spec = { row, headers, connections: options.connections, seconds: options.durationSeconds, url: `${url}/comments/` };
  const problems: string[] = [];
  const real = await warmAndMeasure(spec, options.warmupSeconds, 'django', problems);
  for (const problem of problems) (/connection error/.test(problem) ? result.notes : result.problems).push(problem);
  result.real = { ...real, requestsPerSecond: real.seconds > 0 ? (real.statuses['200'] ?? 0) / real.seconds : 0 };
  progress(`    django   ${formatNumber(result.real.requestsPerSecond).padStart(8)} req/s  p50 ${result.real.p50Ms} ms  p99 ${result.real.p99Ms} ms`);
  return result;
}

export async function benchDjango(django: DjangoOptions, options: Options): Promise<DjangoReport> {
  const report: DjangoReport = { url: django.url, username: django.username, comments: null, rows: [], problems: [] };
  progress(`The Django original at ${django.url}`);
  try {
    const account = { username: django.username, password: django.password, email: '' };
    const cookie = await sessionCookie(django.url, account);
    const have = await countOf(django.url, cookie);
    if (have < django.comments) {
      progress(`  topping its table up from ${have} to ${django.comments} comments`);
      await topUp(django.url, cookie, have, django.comments);
    }
    report.comments = await countOf(django.url, cookie);
    const sessionId = cookieValue(cookie, 'sessionid');
    // Only the session: the CSRF cookie would change nothing for a GET.
    const session = { ...ACCEPT_JSON, Cookie: `sessionid=${sessionId ?? ''}` };
    const basic = { ...ACCEPT_JSON, Authorization: `Basic ${Buffer.from(`${django.username}:${django.password}`).toString('base64')}` };
    if (!isInterrupted()) report.rows.push(await measure('Django GET /comments/ (session cookie)', 'session', django.url, session, options));
    if (!isInterrupted()) report.rows.push(await measure('Django GET /comments/ (Basic)', 'basic', django.url, basic, options));
  } catch (error) {
    report.problems.push(describeError(error));
  }
  return report;
}

export function djangoHasProblems(report: DjangoReport | null): boolean {
  return report !== null && (report.problems.length > 0 || report.rows.some((row) => row.problems.length > 0));
}
