/**
 * The same-stack reference's routes (bench/reference.ts): what each row of
 * bench/http.ts asks, answered by Express 5 with the database work of
 * database.ts and the credentials of auth.ts, in the server's answer shapes
 * (compact JSON, `Content-Type: application/json`, the dates as the two
 * sites write them) and with a header set like the server's (the security
 * headers, Allow, Vary, a request id). Express's default weak ETag is on, so
 * an If-None-Match that matches answers 304 (after the same work).
 */
import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { basicCaller, bearerCaller, can, sessionCaller, type Caller } from './auth.js';
import { parseStoredDate, type CommentRow, type ReferenceDatabase } from './database.js';

/** What helmet and the views put on every answer of the server, so that the answers weigh about the same. */
const HEADERS = {
  'Content-Security-Policy': "default-src 'none';script-src 'self';style-src 'self';img-src 'self' data:;connect-src 'self';form-action 'self';frame-ancestors 'none';base-uri 'none'",
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Origin-Agent-Cluster': '?1',
  'Referrer-Policy': 'same-origin',
  'Strict-Transport-Security': 'max-age=31536000',
  'X-Content-Type-Options': 'nosniff',
  'X-DNS-Prefetch-Control': 'off',
  'X-Download-Options': 'noopen',
  'X-Frame-Options': 'DENY',
  'X-Permitted-Cross-Domain-Policies': 'none',
  'X-XSS-Protection': '0',
  Vary: 'Accept, Accept-Language, Cookie',
};

/** The paginated site's limits (resources/comment.ts `rules`) and the token site's (the fields' own). */
const PAGINATED_LIMITS = { title: 10, body: 15 };
const TOKEN_LIMITS = { title: 255, body: 65_535 };

export interface ReferenceSettings {
  db: ReferenceDatabase;
  /** SECRET_KEY: express-session's cookie signature and the session auth hash. */
  secret: string;
  /** The paginated site's page size. */
  pageSize: number;
}

function send(res: Response, status: number, allow: string, value: unknown): void {
  res.status(status).set(HEADERS).set({ 'X-Request-Id': randomUUID(), Allow: allow, 'Content-Type': 'application/json' });
  // A Buffer keeps the Content-Type as set (a string would get `; charset=utf-8`).
  res.send(Buffer.from(JSON.stringify(value), 'utf8'));
}

/** `2025-01-01T00:00:01.000000Z` (the token site) or the naive UTC `2025-01-01T00:00:01.000000` (the paginated site, TIME_ZONE=UTC). */
function writtenDate(stored: string, zone: 'Z' | ''): string {
  return `${parseStoredDate(stored).toISOString().slice(0, 23)}000${zone}`;
}

const paginatedItem = (row: CommentRow) => ({ id: row.id, title: row.title, body: row.body, updated_at: writtenDate(row.updated_at, '') });
const tokenItem = (row: CommentRow) => ({ id: row.id, title: row.title, body: row.body, updated_at: writtenDate(row.updated_at, 'Z') });

/** The paginated site's callers: the session cookie when one comes, else HTTP Basic. */
async function paginatedCaller(req: Request, settings: ReferenceSettings): Promise<Caller | null> {
  if (req.headers.cookie?.includes('sessionid=')) return sessionCaller(settings.db, req.headers.cookie, settings.secret);
  return req.headers.authorization ? basicCaller(settings.db, req.headers.authorization) : null;
}

function newComment(body: unknown, limits: { title: number; body: number }): { title: string; body: string } | string {
  const fields = (body ?? {}) as Record<string, unknown>;
  const { title, body: text } = fields;
  if (typeof title !== 'string' || title === '' || title.length > limits.title) return 'title';
  if (typeof text !== 'string' || text === '' || text.length > limits.body) return 'body';
  return { title, body: text };
}

export function referenceApp(settings: ReferenceSettings): express.Express {
  const { db, pageSize } = settings;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', 'weak');
  const json = express.json({ limit: '1mb' });
  const LIST = 'GET, POST, HEAD, OPTIONS';
  const DETAIL = 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';

  app.get('/comments/', async (req, res) => {
    const caller = await paginatedCaller(req, settings);
    if (!caller) return send(res, 403, LIST, { detail: 'Authentication credentials were not provided.' });
    const raw = req.query.page;
    const page = raw === undefined ? 1 : Number(raw);
    const count = await db.count();
    const pages = Math.max(1, Math.ceil(count / pageSize));
    if (!Number.isInteger(page) || page < 1 || page > pages) return send(res, 404, LIST, { detail: 'Invalid page.' });
    const rows = await db.page(pageSize, (page - 1) * pageSize);
    const base = `${req.protocol}://${req.get('host') ?? '127.0.0.1'}/comments/`;
    send(res, 200, LIST, {
      count,
      next: page < pages ? `${base}?page=${page + 1}` : null,
      previous: page > 2 ? `${base}?page=${page - 1}` : page === 2 ? base : null,
      results: rows.map(paginatedItem),
    });
  });

  app.post('/comments/', json, async (req, res) => {
    const caller = await paginatedCaller(req, settings);
    if (!caller) return send(res, 403, LIST, { detail: 'Authentication credentials were not provided.' });
    const fields = newComment(req.body, PAGINATED_LIMITS);
    if (typeof fields === 'string') return send(res, 400, LIST, { [fields]: ['invalid'] });
    const now = new Date();
    const id = await db.insertComment(fields.title, fields.body, caller.userId, now);
    send(res, 201, LIST, { id, ...fields, updated_at: `${now.toISOString().slice(0, 23)}000` });
  });

  app.get('/api/comments/:id', async (req, res) => {
    const caller = req.headers.authorization ? await bearerCaller(db, req.headers.authorization) : null;
    if (!caller) return send(res, 401, DETAIL, { message: 'Unauthenticated.' });
    if (!can(caller, 'comments:read')) return send(res, 403, DETAIL, { message: 'Invalid ability provided.' });
    const id = Number(req.params.id);
    const row = Number.isSafeInteger(id) && id > 0 ? await db.comment(id) : undefined;
    if (!row) return send(res, 404, DETAIL, { message: 'Not found.' });
    send(res, 200, DETAIL, { comment: { ...tokenItem(row), owner: row.owner } });
  });

  app.get('/api/comments', async (req, res) => {
    const caller = req.headers.authorization ? await bearerCaller(db, req.headers.authorization) : null;
    if (!caller) return send(res, 401, LIST, { message: 'Unauthenticated.' });
    if (!can(caller, 'comments:read')) return send(res, 403, LIST, { message: 'Invalid ability provided.' });
    send(res, 200, LIST, { comments: (await db.everyComment()).map(tokenItem) });
  });

  app.post('/api/comments', json, async (req, res) => {
    const caller = req.headers.authorization ? await bearerCaller(db, req.headers.authorization) : null;
    if (!caller) return send(res, 401, LIST, { message: 'Unauthenticated.' });
    if (!can(caller, 'comments:write')) return send(res, 403, LIST, { message: 'Invalid ability provided.' });
    const fields = newComment(req.body, TOKEN_LIMITS);
    if (typeof fields === 'string') return send(res, 422, LIST, { message: `The ${fields} field is invalid.` });
    const now = new Date();
    const id = await db.insertComment(fields.title, fields.body, caller.userId, now);
    send(res, 201, LIST, { comment: { id, ...fields, updated_at: `${now.toISOString().slice(0, 23)}000Z` } });
  });

  app.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(error);
    process.stderr.write(`reference: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    send(res, 500, LIST, { detail: 'Server error.' });
  });
  return app;
}
