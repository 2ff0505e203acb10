/**
 * The login policy: every password a client sends, to a login form or in an
 * HTTP Basic header, is checked here, as passport strategies. One place
 * decides which names an account goes by on each flow, who may log in (the
 * admin wants staff), and runs the check under the login throttle (src/throttling.ts),
 * which Accounts.verify follows by rehashing an old hash; failures are
 * logged at info (the client's address and the throttle's key of the name,
 * never the password), throttled attempts at warn.
 *
 * Each flow still reads and validates its own request and gives its own
 * answers: the strategies only take the credentials it read (see `offer`).
 * passport-local's own reading would refuse an empty field before any
 * hashing (a name cost less than a password) and fall back to the query
 * string; passport-http's splits the header at every colon, decodes only
 * UTF-8 and has no Django REST Framework messages. So both strategies keep
 * their options and verify callbacks, and their `authenticate` takes what
 * the flow hands over.
 */
import { hash } from 'node:crypto';
import type { Request, Response } from 'express';
import { Passport } from 'passport';
import { BasicStrategy } from 'passport-http';
import { Strategy as LocalStrategy } from 'passport-local';
import type { Logger } from '../logger.js';
import { clientAddress, isThrottled, type LoginThrottle, type PasswordGuard } from '../throttling.js';
import type { Accounts, Identifier } from './accounts.js';
import type { PasswordCheck } from './credential-cache.js';
import type { Row } from '../types/rows.js';
import type { AuthUser } from '../types/auth.js';

/** The four login forms; HTTP Basic is the fifth way a password comes in. */
export type LoginFlow = 'browser' | 'admin' | 'fortify' | 'token';

interface FlowPolicy {
  /** The form field that names the account (passport-local's `usernameField`). */
  usernameField: string;
  /** What that field may name an account by, tried in this order. */
  by: readonly Identifier[];
  /** Who may log in on this flow, besides an active account with the right password. */
  accept?: (row: Row) => boolean;
}

/**
 * Each flow's fields and rules. The admin's field is `email` because
 * AdminJS's login form names it so, though it takes a username too.
 */
export const LOGIN_FLOWS: Readonly<Record<LoginFlow, FlowPolicy>> = {
  // Django REST Framework's login form: username or email address.
  browser: { usernameField: 'username', by: ['username', 'email'] },
  // Staff only; any other account is refused like a wrong password, after the same check.
  admin: { usernameField: 'email', by: ['email', 'username'], accept: (row) => Boolean(row.get('is_staff')) },
  // Fortify's `email` field, with its `username` setting: both at once.
  fortify: { usernameField: 'email', by: ['username', 'email'] },
  // Sanctum's token login: an email address only.
  token: { usernameField: 'email', by: ['email'] },
};

const PASSWORD_FIELD = 'password';
export const BASIC_STRATEGY = 'basic';

export function strategyName(flow: LoginFlow): string {
  return `local-${flow}`;
}

/** What a strategy may call on itself while it authenticates (passport adds them to the instance it runs). */
interface StrategyActions {
  success(user: Express.User): void;
  fail(challenge?: unknown, status?: number): void;
  error(error: unknown): void;
}

type Done = (error: unknown, user?: Express.User | false) => void;

/** The credentials a flow read from its request, by field name, for the strategy it authenticates with. */
const offered = new WeakMap<Request, Record<string, string>>();
/** The account row a local strategy let in, for the flow (which records the login, or shows the row). */
const verifiedRows = new WeakMap<Request, Row>();

/** The throttle's key of an account's name: a digest, as the counters hold it, never the name or a password. */
export function throttleKey(name: string): string {
  return hash('sha256', name.toLowerCase(), 'base64url');
}

/**
 * The password check under the login throttle, logged: a failure at info, a
 * throttled attempt at warn, with the client's address and the throttle's
 * key of the name; never a password.
 */
export function loggedGuard(req: Request, throttle: LoginThrottle, flow: LoginFlow | 'basic', logger?: Logger): PasswordGuard {
  const guard = throttle.guard(req);
  const log = (): Logger | undefined => req.log ?? logger;
  return async (name, check) => {
    const fields = { flow, address: clientAddress(req), account: throttleKey(name) };
    let valid: boolean;
    try {
      valid = await guard(name, check);
    } catch (error) {
      if (isThrottled(error)) log()?.warn({ ...fields, retryAfter: error.headers['Retry-After'] }, 'login throttled');
      throw error;
    }
    if (!valid) log()?.info(fields, 'login failed');
    return valid;
  };
}

/** A form field the flow read, or nothing. */
function offeredField(req: Request, field: string): string {
  const form = offered.get(req);
  return form && Object.hasOwn(form, field) ? (form[field] ?? '') : '';
}

/**
 * passport-local's strategy over what the flow read (see the note at the
 * top): an empty field is checked like any other, and costs the same.
 */
class FormStrategy extends LocalStrategy {
  constructor(
    name: string,
    private readonly usernameField: string,
    private readonly verifyForm: (req: Request, identifier: string, password: string, done: Done) => void,
  ) {
    super({ usernameField, passwordField: PASSWORD_FIELD, passReqToCallback: true, session: false }, verifyForm);
    this.name = name;
  }

  override authenticate(req: Request): void {
    const actions = this as unknown as StrategyActions;
    this.verifyForm(req, offeredField(req, this.usernameField), offeredField(req, PASSWORD_FIELD), (error, user) => {
      if (error) return actions.error(error);
      if (!user) return actions.fail(undefined, 401);
      actions.success(user);
    });
  }
}

/**
 * passport-http's Basic strategy over credentials BasicAuthentication has
 * already taken from the header (Django REST Framework's validation and
 * messages, UTF-8 then Latin-1, the password after the first colon whole).
 */
class DecodedBasicStrategy extends BasicStrategy {
  constructor(
    private readonly realm: string,
    private readonly verifyBasic: (req: Request, username: string, password: string, done: Done) => void,
  ) {
    super({ realm, passReqToCallback: true }, verifyBasic);
    this.name = BASIC_STRATEGY;
  }

  override authenticate(req: Request): void {
    const actions = this as unknown as StrategyActions;
    this.verifyBasic(req, offeredField(req, 'username'), offeredField(req, PASSWORD_FIELD), (error, user) => {
      if (error) return actions.error(error);
      if (!user) return actions.fail(`Basic realm="${this.realm}"`, 401);
      actions.success(user);
    });
  }
}

/**
 * Runs one strategy through passport.authenticate with a callback (no
 * session: each flow logs in its own way) and says whether it let the
 * request in. passport.authenticate puts its own session manager on the
 * request; the browser session's (src/auth/sessions.ts) is put back, so
 * that the flow's req.logIn still stores the account id and its hash.
 */
function runStrategy(passport: InstanceType<typeof Passport>, name: string, req: Request, res: Response, credentials: Record<string, string>): Promise<Express.User | null> {
  const slot = req as Request & { _sessionManager?: unknown };
  const sessionManager = slot._sessionManager;
  offered.set(req, credentials);
  return new Promise<Express.User | null>((resolve, reject) => {
    const settle = (error: unknown, user?: Express.User | false | null): void => {
      offered.delete(req);
      if (error) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve(user || null);
    };
    try {
      passport.authenticate(name, { session: false }, settle)(req, res, (error?: unknown) => settle(error ?? new Error(`${name} passed`)));
    } finally {
      if (sessionManager === undefined) delete slot._sessionManager;
      else slot._sessionManager = sessionManager;
    }
  });
}

/** What a login form sends: the name it knows the account by, and the password. */
export interface OfferedCredentials {
  identifier: string;
  password: string;
}

/** The login forms' strategies (passport-local, one per flow) over the account store and the login throttle. */
export class LoginStrategies {
  private readonly passport = new Passport();

  constructor(
    private readonly accounts: Accounts,
    private readonly throttle: LoginThrottle,
    private readonly logger?: Logger,
  ) {
    for (const flow of Object.keys(LOGIN_FLOWS) as LoginFlow[]) {
      this.passport.use(new FormStrategy(strategyName(flow), LOGIN_FLOWS[flow].usernameField, this.verifier(flow)));
    }
  }

  /** The verify callback of a flow: the account's row when the password opens it and the flow accepts it. */
  private verifier(flow: LoginFlow): (req: Request, identifier: string, password: string, done: Done) => void {
    const { by, accept } = LOGIN_FLOWS[flow];
    return (req, identifier, password, done) => {
      const guard = loggedGuard(req, this.throttle, flow, this.logger);
      this.accounts.checkCredentials(identifier, password, { by, guard, accept }).then(
        (row) => {
          if (!row) return done(null, false);
          verifiedRows.set(req, row);
          done(null, this.accounts.toAuthUser(row));
        },
        (error: unknown) => done(error),
      );
    };
  }

  /**
   * The account (its row, hidden fields included) the flow's credentials
   * open, or null; throws the throttle's refusal (`isThrottled`) or a
   * failure to check. The flow answers each outcome in its own way.
   */
  async check(flow: LoginFlow, req: Request, res: Response, credentials: OfferedCredentials): Promise<Row | null> {
    const form = { [LOGIN_FLOWS[flow].usernameField]: credentials.identifier, [PASSWORD_FIELD]: credentials.password };
    const user = await runStrategy(this.passport, strategyName(flow), req, res, form);
    const row = verifiedRows.get(req) ?? null;
    verifiedRows.delete(req);
    return user ? row : null;
  }
}

/**
 * HTTP Basic's strategy (passport-http), whose verify callback goes through
 * the credential cache (src/auth/credential-cache.ts): a remembered
 * credential skips the hashing and the throttle, any other is checked (by
 * username) under the throttle, and a failure logged.
 */
export class BasicLogin {
  private readonly passport = new Passport();

  constructor(
    private readonly passwords: PasswordCheck,
    private readonly throttle: LoginThrottle,
    realm: string,
    private readonly logger?: Logger,
  ) {
    this.passport.use(
      new DecodedBasicStrategy(realm, (req, username, password, done) => {
        this.passwords.authenticate(username, password, loggedGuard(req, this.throttle, 'basic', this.logger), req).then(
          (user: AuthUser | null) => done(null, user ?? false),
          (error: unknown) => done(error),
        );
      }),
    );
  }

  /** The account a decoded username and password open, or null; throws the throttle's refusal. */
  async check(req: Request, username: string, password: string): Promise<AuthUser | null> {
    const res = req.res;
    if (!res) throw new Error('HTTP Basic needs the response of its request');
    return runStrategy(this.passport, BASIC_STRATEGY, req, res, { username, [PASSWORD_FIELD]: password });
  }
}
