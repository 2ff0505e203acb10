/**
 * The browser session as the sites load it: lazily, as Django does. A safe
 * request (GET, HEAD, OPTIONS) whose session cookie names a logged-in,
 * current session is let in by it as Basic's header lets in: the signed
 * cookie checked once per process, the kept session row, the kept account,
 * then `req.user`. Its session is loaded (express-session, with everything
 * it does to save a changed one) only if something reads `req.session`,
 * such as a page's CSRF token; a JSON read never does, and so skips
 * express-session's work (the cookie's HMAC, three SHA-1 of the session,
 * its wrapped `res.end`). Any other session, unknown, expired, from before
 * auth hashes, of an account gone, deactivated or whose password changed,
 * goes through express-session and passport at once, which end or unbind it.
 */
import { IncomingMessage } from 'node:http';
import { parse as parseCookies } from 'cookie';
import signature from 'cookie-signature';
import express, { type Request, type RequestHandler } from 'express';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';
import type { Accounts } from './accounts.js';
import { boundTo, browserPassport, SESSION_COOKIE, sessionHashSecret, sessionMiddleware, type SessionStore } from './sessions.js';
import type { AuthUser } from '../types/auth.js';

/** The browser session's middlewares as a site mounts them. */
export interface BrowserSession {
  /** Every request gets a session (one is made when none comes): pages that hand out CSRF tokens, logins. */
  always: RequestHandler[];
  /** Only requests that bring the session cookie, safe ones lazily: API clients (Basic, bearer) skip the work of an empty session. */
  ifCookie: RequestHandler;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
// As the cookie parser reads names: white space around them is trimmed.
const SESSION_COOKIE_SENT = new RegExp(`(?:^|;)\\s*${SESSION_COOKIE}\\s*=`);

// Symbol.for: one key however many copies of this module a process loads (the accessor below is defined once per copy).
const LOAD_SESSION: unique symbol = Symbol.for('comment-service.load-session');

declare module 'http' {
  interface IncomingMessage {
    /** Loads `req.session` when it is first read: set on a request let in lazily. */
    [LOAD_SESSION]?: (() => void) | undefined;
  }
}

/**
 * `req.session`, loaded when first read. One accessor on the prototype, as
 * `req.log` (src/middleware/request-log.ts): a getter of each request's own
 * would give every request object a hidden class of its own. express-session
 * sets the session through it, as an own property that hides it.
 */
Object.defineProperty(IncomingMessage.prototype, 'session', {
  configurable: true,
  get(this: IncomingMessage): unknown {
    const load = this[LOAD_SESSION];
    if (!load) return undefined;
    this[LOAD_SESSION] = undefined;
    load();
    const loaded = (Object.getOwnPropertyDescriptor(this, 'session') as PropertyDescriptor | undefined)?.value as unknown;
    // express-session answers from the held row at once; a session not there now would be one the request never gets.
    if (loaded === undefined) throw new Error('the session a request was let in by could not be loaded');
    return loaded;
  },
  set(this: IncomingMessage, value: unknown) {
    Object.defineProperty(this, 'session', { configurable: true, enumerable: true, writable: true, value });
  },
});

/** Verified Cookie headers kept, by count and by their length: browsers send the same one request after request. */
const KEPT_HEADERS = 10_000;
const KEPT_HEADER_BYTES = 4 * 1024 * 1024;

/**
 * The session id a Cookie header's signed session cookie names, its
 * signature checked once per distinct header. Only headers that check out
 * are kept: no one can fill the cache with cookies of their own making.
 */
class SignedSessionIds {
  private readonly verified = new LRUCache<string, string>({ max: KEPT_HEADERS, maxSize: KEPT_HEADER_BYTES, sizeCalculation: (_sid, header) => header.length });

  constructor(private readonly secret: string) {}

  of(header: string): string | null {
    const kept = this.verified.get(header);
    if (kept !== undefined) return kept;
    // As express-session reads it: the first cookie of the name, `s:` and the signed id.
    const raw = parseCookies(header)[SESSION_COOKIE];
    if (!raw?.startsWith('s:')) return null;
    const sid = signature.unsign(raw.slice(2), this.secret);
    if (sid === false) return null;
    if (header.length <= KEPT_HEADER_BYTES / 64) this.verified.set(header, sid);
    return sid;
  }
}

export interface BrowserSessionServices {
  config: Config;
  sessions: SessionStore;
  accounts: Accounts;
}

export function browserSession({ config, sessions, accounts }: BrowserSessionServices): BrowserSession {
  const secret = sessionHashSecret(config);
  const passport = browserPassport(accounts, secret);
  const load = sessionMiddleware(config, sessions.store);
  const initialize = passport.initialize();
  const always = [load, initialize, passport.session()];
  const resume = express.Router().use(...always);
  const sessionIds = new SignedSessionIds(secret);

  /** The account a current, logged-in session lets in, its row held for express-session; null: let express-session and passport decide. */
  const sessionUser = async (req: Request): Promise<AuthUser | null> => {
    const sid = sessionIds.of(req.headers.cookie ?? '');
    if (sid === null) return null;
    const stored = await sessions.read(sid, req);
    if (!stored || stored.userId === undefined || stored.authHash === undefined) return null;
    if (stored.expiresAt !== null && stored.expiresAt <= Date.now()) return null;
    const row = await accounts.findStoredById(stored.userId, req);
    if (!row || !row.get('is_active') || !boundTo(stored.authHash, secret, String(row.get('password')))) return null;
    sessions.holdFor(req, sid, stored);
    return accounts.toAuthUser(row);
  };

  const lazily: RequestHandler = (req, res, next) => {
    sessionUser(req).then((user) => {
      if (!user) return resume(req, res, next);
      initialize(req, res, () => undefined);
      req.user = user;
      // express-session answers at once from the held row: the session is there when the getter returns.
      req[LOAD_SESSION] = () => load(req, res, () => undefined);
      next();
    }, next);
  };

  return {
    always,
    ifCookie: (req, res, next) => {
      if (!SESSION_COOKIE_SENT.test(req.headers.cookie ?? '')) return next();
      return SAFE_METHODS.has(req.method) ? lazily(req, res, next) : resume(req, res, next);
    },
  };
}
