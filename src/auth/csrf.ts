import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { parse as parseCookies } from 'cookie';
import type { Request } from 'express';
import { csrfSync } from 'csrf-sync';
import { ApiError } from '../errors.js';
import { requestData } from '../parsers.js';

/** Headers that carry the token: Django's, and Laravel's two (X-XSRF-TOKEN, which axios fills from the XSRF-TOKEN cookie; X-CSRF-TOKEN, from a page's csrf-token meta tag). */
const TOKEN_HEADERS = ['x-csrftoken', 'x-xsrf-token', 'x-csrf-token'] as const;
/** Form fields that carry it: Django's and Laravel's names. */
const TOKEN_FIELDS = ['csrfmiddlewaretoken', '_token'] as const;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** The token a request's form carried, read before the synchronous comparison. */
const formTokens = new WeakMap<Request, string>();

function headerToken(req: Request): string | undefined {
  for (const name of TOKEN_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** The synchronizer token pattern (csrf-sync): one token per session, compared with what the request carries. */
const csrf = csrfSync({ getTokenFromRequest: (req) => headerToken(req) ?? formTokens.get(req), size: 32 });

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Whether the request carries the session's token. csrf-sync's own
 * isRequestValid compares with ===, which returns sooner the earlier the two
 * differ; digests of both (fixed length, so the length tells nothing either)
 * are compared in constant time instead.
 */
function carriesSessionToken(req: Request): boolean {
  const received = csrf.getTokenFromRequest(req);
  const stored = csrf.getTokenFromState(req);
  if (typeof received !== 'string' || typeof stored !== 'string') return false;
  return timingSafeEqual(sha256(received), sha256(stored));
}

/**
 * A visitor who is not logged in keeps the token in a signed cookie, as
 * Django's `csrftoken`, not in a session: a login form or a CSRF cookie asked
 * for by someone who never logs in writes no session row. The token carries
 * no identity, so it may live long (Django's year).
 */
export const ANONYMOUS_TOKEN_COOKIE = 'csrftoken';
const ANONYMOUS_TOKEN_MS = 365 * 24 * 60 * 60 * 1000;
/** Where createApp puts the key the anonymous tokens are signed with (the server's secret key). */
export const CSRF_SECRET = 'csrfSecret';

/** The tokens made for anonymous requests, so that a page asking twice gets the same one. */
const madeTokens = new WeakMap<Request, string>();

function signature(req: Request, token: string): string {
  const secret: unknown = req.app.locals[CSRF_SECRET];
  if (typeof secret !== 'string') throw new Error('No CSRF secret: createApp sets app.locals.csrfSecret');
  return createHmac('sha256', secret).update(`csrftoken:${token}`, 'utf8').digest('base64url');
}

/** The token of the visitor's signed cookie, if it carries one whose signature holds. */
function cookieToken(req: Request): string | undefined {
  const made = madeTokens.get(req);
  if (made) return made;
  const value = parseCookies(req.headers.cookie ?? '')[ANONYMOUS_TOKEN_COOKIE];
  const [token, signed] = (value ?? '').split('.');
  if (!token || !signed || !/^[0-9a-f]{64}$/.test(token)) return undefined;
  return timingSafeEqual(sha256(signed), sha256(signature(req, token))) ? token : undefined;
}

function anonymousToken(req: Request): string {
  const existing = cookieToken(req);
  if (existing) return existing;
  const token = randomBytes(32).toString('hex');
  madeTokens.set(req, token);
  req.res?.cookie(ANONYMOUS_TOKEN_COOKIE, `${token}.${signature(req, token)}`, { path: '/', httpOnly: true, sameSite: 'lax', secure: req.secure, maxAge: ANONYMOUS_TOKEN_MS });
  return token;
}

/** Whether an anonymous request carries its cookie's token, compared in constant time. */
function carriesCookieToken(req: Request): boolean {
  const received = csrf.getTokenFromRequest(req);
  const stored = cookieToken(req);
  if (typeof received !== 'string' || stored === undefined) return false;
  return timingSafeEqual(sha256(received), sha256(stored));
}

/** The CSRF token pages put in their forms: the session's when logged in (made on first use), else the signed cookie's. */
export function csrfToken(req: Request): string {
  return req.user ? csrf.generateToken(req) : anonymousToken(req);
}

/** A new token, after the session changed hands (login). */
export function rotateCsrfToken(req: Request): string {
  return csrf.generateToken(req, true);
}

/**
 * Unsafe requests authenticated by a session must carry the session's token
 * in a header or a form field (DRF's enforce_csrf), and anonymous ones (a
 * login) their cookie's token; otherwise 403 (419 on the token site).
 */
export async function enforceCsrf(req: Request, bodyLimit: number): Promise<void> {
  if (SAFE_METHODS.has(req.method)) return;
  if (headerToken(req) === undefined) {
    const data = await requestData(req, bodyLimit).catch(() => undefined);
    if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
      const fields = data as Record<string, unknown>;
      const token = TOKEN_FIELDS.map((name) => (Object.hasOwn(fields, name) ? fields[name] : undefined)).find(
        (value): value is string => typeof value === 'string',
      );
      if (token !== undefined) formTokens.set(req, token);
    }
  }
  // An anonymous request (a login) carries its cookie's token, or the one a session of before held.
  const valid = req.user ? carriesSessionToken(req) : carriesCookieToken(req) || carriesSessionToken(req);
  if (!valid) throw new ApiError('csrf_failed');
}
