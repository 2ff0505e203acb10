import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import connectSessionSequelize from 'connect-session-sequelize';
import session, { Store, type SessionData } from 'express-session';
import type { Request, RequestHandler, Response } from 'express';
import { DataTypes, type Sequelize } from 'sequelize';
import { Passport } from 'passport';
import type { Config } from '../config.js';
import type { Accounts } from './accounts.js';
import { compiledReads } from '../db/compiled.js';
import { VersionedRows } from '../db/versioned-rows.js';
import type { RowModel } from '../types/rows.js';
import type { AuthUser } from '../types/auth.js';

declare module 'express-session' {
  interface SessionData {
    /** The session auth hash: a keyed digest of the account's password hash when the session was bound to it. */
    authHash?: string;
  }
}

declare global {
  namespace Express {
    /** What passport keeps in req.user: the framework's view of the account. */
    interface User extends AuthUser {}
  }
}

/** Django's session cookie name: a browser that knows DRF sees the same. */
export const SESSION_COOKIE = 'sessionid';
/** Laravel's cookie with the session's CSRF token, for scripts to echo in X-XSRF-TOKEN. */
export const XSRF_COOKIE_NAME = 'XSRF-TOKEN';
/** How often expired sessions are deleted. */
const EXPIRED_SESSION_SWEEP_MS = 15 * 60 * 1000;

const SequelizeStore = connectSessionSequelize(Store);

export interface SessionStore {
  store: Store;
  /** The session row `sid` names as of `request`'s snapshot, kept between requests (null: none). */
  read(sid: string, request: Request): Promise<StoredSession | null>;
  /** The store's next get of `sid` for `request` answers at once with `stored`: express-session loads it synchronously. */
  holdFor(request: Request, sid: string, stored: StoredSession): void;
  /** Stops the periodic sweep of expired sessions (or a test run never ends). */
  close(): void;
}

/** A session row's text, and what a request needs of it to be let in without loading the session (src/auth/lazy-session.ts). */
export interface StoredSession {
  text: string;
  /** passport's account id; undefined when no one is logged in. */
  userId: number | undefined;
  /** The session auth hash it was bound with (sessionAuthHash). */
  authHash: string | undefined;
  /** When its cookie ends, in ms since the epoch; null: with the browser. */
  expiresAt: number | null;
}

/** The `sessions` table of migration 0004, through connect-session-sequelize. */
export function createSessionStore(sequelize: Sequelize, lifetimeSeconds: number): SessionStore {
  sequelize.define(
    'Session',
    {
      sid: { type: DataTypes.STRING(36), primaryKey: true },
      expires: DataTypes.DATE,
      data: DataTypes.TEXT,
    },
    { tableName: 'sessions' },
  );
  const store = new SequelizeStore({
    db: sequelize,
    table: 'Session',
    checkExpirationInterval: EXPIRED_SESSION_SWEEP_MS,
    expiration: lifetimeSeconds * 1000,
    // A session ends when its cookie says, however often it is used: no sliding expiry, no write per request.
    disableTouch: true,
  } as ConstructorParameters<typeof SequelizeStore>[0]);
  const read = readByCompiledSql(store, sequelize);
  refuseExpired(store);
  const holdFor = answerHeld(store);
  return { store, read, holdFor, close: () => store.stopExpiringSessions() };
}

/** Most sessions kept in memory for the requests that bring their cookie (src/db/versioned-rows.ts). */
const KEPT_SESSIONS = 10_000;

/**
 * The request whose session express-session is asking the store for. It
 * asks synchronously, inside its middleware (sessionMiddleware sets and
 * clears this around it); were it ever to ask later, the store finds no
 * request here and reads the row, as it would anyway.
 */
let askingRequest: Request | undefined;

/**
 * Every request with a session cookie reads its row: as compiled SQL (db/compiled.ts)
 * rather than the store's findOne, which builds the query and a model instance each time;
 * and not at all while the sessions table is unchanged since the row was read last.
 * The row's text is kept, not the session: express-session changes the object it is given.
 */
function readByCompiledSql(store: Store, sequelize: Sequelize): SessionStore['read'] {
  const query = { model: sequelize.model('Session') as RowModel, attributes: ['data'] };
  const kept = new VersionedRows<string, StoredSession>(query, { maxEntries: KEPT_SESSIONS });
  const stored = async (sid: string): Promise<StoredSession | null> => {
    const row = await compiledReads(sequelize).one(query, 'session-by-sid', sid);
    return typeof row?.data === 'string' ? storedSession(row.data) : null;
  };
  const read = (sid: string, request: Request | undefined): Promise<StoredSession | null> => kept.get(sid, request, () => stored(sid));
  store.get = (sid, callback) => {
    read(sid, askingRequest)
      .then((found) => (found === null ? null : (JSON.parse(found.text) as SessionData)))
      .then(
        (data) => callback(null, data),
        (error: unknown) => callback(error),
      );
  };
  return read;
}

/**
 * The row a request was let in by (src/auth/lazy-session.ts), answered at
 * once to that request's first get of it, before anything else is asked:
 * express-session then loads the session synchronously, and the session it
 * was let in by, checked current then, stays the one it is served with.
 */
function answerHeld(store: Store): SessionStore['holdFor'] {
  const held = new WeakMap<Request, { sid: string; stored: StoredSession }>();
  const get = store.get.bind(store);
  store.get = (sid, callback) => {
    const answer = askingRequest && held.get(askingRequest);
    if (!askingRequest || answer?.sid !== sid) return get(sid, callback);
    held.delete(askingRequest);
    callback(null, JSON.parse(answer.stored.text) as SessionData);
  };
  return (request, sid, stored) => void held.set(request, { sid, stored });
}

/** What the row's text says of who is logged in, and until when. */
function storedSession(text: string): StoredSession {
  const data = JSON.parse(text) as Partial<SessionData> & { passport?: { user?: unknown } };
  const userId = data.passport?.user;
  const expires = data.cookie?.expires ? new Date(data.cookie.expires).getTime() : null;
  return {
    text,
    userId: Number.isSafeInteger(userId) ? (userId as number) : undefined,
    authHash: typeof data.authHash === 'string' ? data.authHash : undefined,
    expiresAt: expires === null || Number.isNaN(expires) ? null : expires,
  };
}

/**
 * The store hands out a row until its sweep deletes it; an expired session
 * (a cookie kept past its Expires) must be over at once.
 */
function refuseExpired(store: Store): void {
  const get = store.get.bind(store);
  store.get = (sid, callback) =>
    get(sid, (error: unknown, data?: SessionData | null) => {
      const expires = data?.cookie?.expires ? new Date(data.cookie.expires) : null;
      if (error || !data || !expires || expires.getTime() > Date.now()) return callback(error, data);
      store.destroy(sid, () => callback(null, null));
    });
}

/** Where the browser login lives (Django REST Framework's `api-auth/`). */
export const BROWSER_LOGIN_PATH = '/api-auth';

/** A session cookie's name, path and SameSite; the admin's is its own, Strict and under /admin. */
export interface SessionCookie {
  name: string;
  path: string;
  sameSite: 'lax' | 'strict';
}

const BROWSER_COOKIE: SessionCookie = { name: SESSION_COOKIE, path: '/', sameSite: 'lax' };

/**
 * One middleware's view of the shared store: express-session writes its
 * cookie settings onto the store object it is given (`store.generate`), so
 * two middlewares over one store would hand out each other's cookies.
 */
class StoreView extends Store {
  constructor(private readonly inner: Store) {
    super();
  }

  override get(sid: string, callback: (error: unknown, session?: SessionData | null) => void): void {
    this.inner.get(sid, callback);
  }

  override set(sid: string, session: SessionData, callback?: (error?: unknown) => void): void {
    this.inner.set(sid, session, callback);
  }

  override destroy(sid: string, callback?: (error?: unknown) => void): void {
    this.inner.destroy(sid, callback);
  }
}

/**
 * Sessions for people in browsers: the cookie is HttpOnly, SameSite=Lax,
 * Secure when the request came over HTTPS (behind a proxy: TRUST_PROXY), and
 * lives SESSION_COOKIE_AGE seconds. Nothing is stored before there is
 * something to keep, so API clients never get a cookie.
 */
export function sessionMiddleware(config: Config, store: Store, cookie: SessionCookie = BROWSER_COOKIE): RequestHandler {
  const middleware = session({
    name: cookie.name,
    // Without SECRET_KEY (refused in production) sessions last as long as the process. The lazy session checks cookies with it too.
    secret: sessionHashSecret(config),
    store: new StoreView(store),
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: cookie.sameSite, secure: 'auto', maxAge: config.sessionCookieAge * 1000, path: cookie.path },
  });
  return (req, res, next) => {
    askingRequest = req;
    try {
      middleware(req, res, next);
    } finally {
      askingRequest = undefined;
    }
  };
}

/**
 * Django's session auth hash: an HMAC, with the server's secret key, of the
 * account's stored password hash. A session keeps the digest of the hash it
 * was opened with; when the password changes, the hash and its digest change,
 * and every session bound to the old one ends.
 */
export function sessionAuthHash(secret: string, passwordHash: string): string {
  let digests = knownDigests.get(secret);
  if (!digests) knownDigests.set(secret, (digests = new Map()));
  let digest = digests.get(passwordHash);
  if (digest === undefined) {
    // A bound against growth, not a cache policy: recomputing is only an HMAC.
    if (digests.size >= MAX_KNOWN_DIGESTS) digests.clear();
    digest = createHmac('sha256', secret).update(`session-auth-hash:${passwordHash}`, 'utf8').digest('hex');
    digests.set(passwordHash, digest);
  }
  return digest;
}

/**
 * Secret → stored password hash → its digest. Every request of a session
 * checks its digest, and a stored hash changes only with the password: its
 * digest is worked out once per process, not once per request.
 */
const knownDigests = new Map<string, Map<string, string>>();
const MAX_KNOWN_DIGESTS = 10_000;

/** Whether a session's stored auth hash is the one of this password hash. */
export function boundTo(authHash: string, secret: string, passwordHash: string): boolean {
  const left = Buffer.from(authHash, 'utf8');
  const right = Buffer.from(sessionAuthHash(secret, passwordHash), 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Binds the request's session to the account's current password hash (after a login or the person's own password change). */
export function bindSessionToPassword(req: Request, secret: string, passwordHash: string): void {
  req.session.authHash = sessionAuthHash(secret, passwordHash);
}

/**
 * Whether the request's session is still bound to this password hash. A
 * session stored before the hash existed (none in it) is given the current
 * one and accepted, once; one bound to another hash is unbound and refused.
 */
export function sessionStillBound(req: Request, secret: string, passwordHash: string): boolean {
  const current = sessionAuthHash(secret, passwordHash);
  const stored = req.session.authHash;
  if (stored === undefined) {
    req.session.authHash = current;
    return true;
  }
  if (boundTo(stored, secret, passwordHash)) return true;
  delete req.session.authHash;
  return false;
}

/** The secret session cookies are signed and the session auth hash keyed with: SECRET_KEY, else one for this process (sessions last as long anyway). */
export function sessionHashSecret(config: Pick<Config, 'secretKey'>): string {
  return config.secretKey ?? processSecret;
}
const processSecret = randomBytes(32).toString('hex');

/**
 * Passport for the browser login: the session holds the account id and the
 * session auth hash; each request loads the account again, so a deactivated
 * or deleted account, or one whose password changed since, is logged out at
 * once. A session stored before the hash existed (none in it) is accepted
 * once and given the current one: it ends at the next password change.
 */
export function browserPassport(accounts: Accounts, secret: string): InstanceType<typeof Passport> {
  const passport = new Passport();
  passport.serializeUser<number>((req: Request, user: Express.User, done: (error: unknown, id?: number) => void) => {
    accounts.findById(user.id, { withHidden: true }).then(
      (row) => {
        if (row) bindSessionToPassword(req, secret, String(row.get('password')));
        done(null, user.id);
      },
      (error: unknown) => done(error),
    );
  });
  passport.deserializeUser<number>((req: Request, id: number, done: (error: unknown, user?: Express.User | false) => void) => {
    accounts.findStoredById(id, req).then(
      (row) => {
        if (!row || !row.get('is_active') || !sessionStillBound(req, secret, String(row.get('password')))) return done(null, false);
        done(null, accounts.toAuthUser(row));
      },
      (error: unknown) => done(error),
    );
  });
  return passport;
}

/** Logs the session's user out and deletes the session and its cookies. */
export function endSession(req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    req.logout((logoutError?: unknown) => {
      if (logoutError) return reject(logoutError);
      req.session.destroy((destroyError?: unknown) => {
        if (destroyError) return reject(destroyError);
        res.clearCookie(SESSION_COOKIE, { path: '/' });
        res.clearCookie(XSRF_COOKIE_NAME, { path: '/' });
        resolve();
      });
    });
  });
}
