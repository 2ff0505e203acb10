import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { csrfSync } from 'csrf-sync';
import { ApiError } from '../errors.js';
import { requestData } from '../parsers.js';

/** Headers that carry the token: Django's, and Laravel's (which axios fills from the XSRF-TOKEN cookie). */
const TOKEN_HEADERS = ['x-csrftoken', 'x-xsrf-token'] as const;
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

/** The session's CSRF token, made on first use; pages put it in their forms. */
export function csrfToken(req: Request): string {
  return csrf.generateToken(req);
}

/** A new token, after the session changed hands (login). */
export function rotateCsrfToken(req: Request): string {
  return csrf.generateToken(req, true);
}

/**
 * Unsafe requests authenticated by a session must carry the session's token
 * in a header or a form field (DRF's enforce_csrf); otherwise 403.
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
  if (!carriesSessionToken(req)) throw new ApiError('csrf_failed');
}
