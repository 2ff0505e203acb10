import { randomBytes } from 'node:crypto';
import connectSessionSequelize from 'connect-session-sequelize';
import session, { Store } from 'express-session';
import type { RequestHandler } from 'express';
import { DataTypes, type Sequelize } from 'sequelize';
import { Passport } from 'passport';
import type { Config } from '../config.js';
import type { Accounts, AuthUser } from './accounts.js';

declare global {
  namespace Express {
    /** What passport keeps in req.user: the framework's view of the account. */
    interface User extends AuthUser {}
  }
}

/** Django's session cookie name: a browser that knows DRF sees the same. */
export const SESSION_COOKIE = 'sessionid';
/** How often expired sessions are deleted. */
const EXPIRED_SESSION_SWEEP_MS = 15 * 60 * 1000;

const SequelizeStore = connectSessionSequelize(Store);

export interface SessionStore {
  store: Store;
  /** Stops the periodic sweep of expired sessions (or a test run never ends). */
  close(): void;
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
  });
  return { store, close: () => store.stopExpiringSessions() };
}

/**
 * Sessions for people in browsers: the cookie is HttpOnly, SameSite=Lax,
 * Secure when the request came over HTTPS (behind a proxy: TRUST_PROXY), and
 * lives SESSION_COOKIE_AGE seconds. Nothing is stored before there is
 * something to keep, so API clients never get a cookie.
 */
export function sessionMiddleware(config: Config, store: Store): RequestHandler {
  return session({
    name: SESSION_COOKIE,
    // Without SECRET_KEY (refused in production) sessions last as long as the process.
    secret: config.secretKey ?? randomBytes(32).toString('hex'),
    store,
    resave: false,
    saveUninitialized: false,
    cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: config.sessionCookieAge * 1000, path: '/' },
  });
}

/**
 * Passport for the browser login: the session holds the account id; each
 * request loads the account again, so a deactivated or deleted account is
 * logged out at once.
 */
export function browserPassport(accounts: Accounts): InstanceType<typeof Passport> {
  const passport = new Passport();
  passport.serializeUser<number>((user, done) => done(null, user.id));
  passport.deserializeUser<number>((id, done) => {
    accounts.findActiveById(id).then(
      (user) => done(null, user ?? false),
      (error: unknown) => done(error),
    );
  });
  return passport;
}
