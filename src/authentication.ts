import type { Request } from 'express';
import type { PasswordCheck } from './auth/credential-cache.js';
import { BasicLogin } from './auth/strategies.js';
import type { AccessTokens } from './auth/tokens.js';
import type { Authenticated, Authenticator, RequestContext } from './contracts.js';
import { enforceCsrf } from './auth/csrf.js';
import { SESSION_COOKIE } from './auth/sessions.js';
import type { DescribedScheme } from './openapi/types.js';
import { ApiError, type ErrorCode } from './errors.js';
import type { LoginThrottle } from './throttling.js';
import type { Logger } from './logger.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `user:password`: UTF-8 when it decodes as such, Latin-1 otherwise (what older clients send). */
function decodeCredentials(encoded: string): { username: string; password: string } {
  if (!BASE64.test(encoded)) throw new ApiError('basic_header_encoding');
  const bytes = Buffer.from(encoded, 'base64');
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    text = bytes.toString('latin1');
  }
  const colon = text.indexOf(':');
  return colon < 0
    ? { username: text, password: '' }
    : { username: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** The Authorization header split at white space: the scheme (lower-cased) and what follows it. */
function authorization(req: Request): { scheme: string; values: string[] } {
  const [scheme = '', ...values] = (req.headers.authorization ?? '').trim().split(/\s+/);
  return { scheme: scheme.toLowerCase(), values };
}

/**
 * HTTP Basic with username and password. The header is validated and decoded
 * here, with Django REST Framework's messages; the password is checked by the
 * login policy's Basic strategy (src/auth/strategies.ts), behind the
 * credential cache and under the login throttle.
 */
export class BasicAuthentication implements Authenticator {
  readonly challenge: string;
  private readonly login: BasicLogin;

  constructor(passwords: PasswordCheck, throttle: LoginThrottle, realm = 'api', logger?: Logger) {
    this.challenge = `Basic realm="${realm}"`;
    this.login = new BasicLogin(passwords, throttle, realm, logger);
  }

  readonly described: DescribedScheme = { name: 'basicAuth', scheme: { type: 'http', scheme: 'basic' } };

  async authenticate(req: Request): Promise<Authenticated | null> {
    const { scheme, values } = authorization(req);
    if (scheme !== 'basic') return null;
    if (values.length === 0) throw new ApiError('basic_header_no_credentials');
    if (values.length > 1) throw new ApiError('basic_header_spaces');
    const { username, password } = decodeCredentials(values[0] ?? '');
    const user = await this.login.check(req, username, password);
    if (!user) throw new ApiError('authentication_failed');
    return { user };
  }
}

/**
 * `Authorization: Bearer <id>|<secret>` (RFC 6750; the scheme name in any
 * letter case). As Laravel Sanctum, a token that does not check out leaves the
 * request unauthenticated rather than failing it: every reason gets the same
 * "Unauthenticated." and the next scheme may still identify the request.
 */
export class BearerAuthentication implements Authenticator {
  readonly challenge = 'Bearer';
  readonly described: DescribedScheme = { name: 'bearerAuth', scheme: { type: 'http', scheme: 'bearer', bearerFormat: '<id>|<secret>' } };

  constructor(private readonly tokens: AccessTokens) {}

  async authenticate(req: Request): Promise<Authenticated | null> {
    const { scheme, values } = authorization(req);
    if (scheme !== 'bearer' || values.length !== 1) return null;
    return this.tokens.authenticate(values[0] ?? '', req);
  }
}

/** White space as Python's `bytes.split()` knows it: DRF splits the header so, and no other character. */
const ASCII_WHITE_SPACE = /[ \t\n\r\v\f]+/;

/**
 * `Authorization: Token <key>`, as Django REST Framework's TokenAuthentication:
 * the keyword in any letter case, then one key of 40 hexadecimal digits (a DRF
 * key that loaddata brought over, kept as its SHA-256 only). Unlike a bearer
 * token, a key that does not check out fails the request with DRF's own
 * messages and the `Token` challenge.
 */
export class TokenAuthentication implements Authenticator {
  readonly challenge = 'Token';
  readonly described: DescribedScheme = { name: 'tokenAuth', scheme: { type: 'apiKey', in: 'header', name: 'Authorization' } };

  constructor(private readonly tokens: AccessTokens) {}

  private refuse(code: ErrorCode): never {
    throw new ApiError(code, {}, { 'WWW-Authenticate': this.challenge });
  }

  async authenticate(req: Request): Promise<Authenticated | null> {
    const [keyword, ...values] = (req.headers.authorization ?? '').split(ASCII_WHITE_SPACE).filter((part) => part !== '');
    if (keyword?.toLowerCase() !== 'token') return null;
    if (values.length === 0) this.refuse('token_header_no_credentials');
    if (values.length > 1) this.refuse('token_header_spaces');
    const key = values[0] ?? '';
    try {
      // Node reads header bytes as Latin-1; DRF decodes them as UTF-8.
      utf8.decode(Buffer.from(key, 'latin1'));
    } catch {
      this.refuse('token_header_encoding');
    }
    const found = await this.tokens.authenticateKey(key);
    if (found === 'invalid') this.refuse('invalid_token');
    if (found === 'inactive') this.refuse('user_inactive');
    return found;
  }
}

/**
 * The browser session of `/api-auth/login/` (passport put the account in
 * req.user). Unsafe methods must carry the session's CSRF token; Basic and
 * bearer requests never need one.
 */
export class SessionAuthentication implements Authenticator {
  readonly described: DescribedScheme = { name: 'sessionCookie', scheme: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE } };

  constructor(private readonly bodyLimit: number) {}

  async authenticate(req: Request): Promise<Authenticated | null> {
    if (!req.user) return null;
    await enforceCsrf(req, this.bodyLimit);
    return { user: req.user };
  }
}

/**
 * Where the test client (src/testing) puts the user a request is made as, as
 * DRF's APIClient.force_authenticate and Laravel's actingAs: a property no
 * request from the network can set.
 */
export const FORCED_AUTHENTICATION = Symbol('forced authentication');

/** Tries the site's schemes in order; the first that recognises the request decides. */
export async function authenticateRequest(ctx: RequestContext): Promise<void> {
  const forced = (ctx.req as Request & { [FORCED_AUTHENTICATION]?: Authenticated })[FORCED_AUTHENTICATION];
  if (forced) {
    ctx.user = forced.user;
    ctx.token = forced.token ?? null;
    return;
  }
  for (const authenticator of ctx.site.authenticators) {
    const authenticated = await authenticator.authenticate(ctx.req);
    if (authenticated) {
      ctx.user = authenticated.user;
      ctx.token = authenticated.token ?? null;
      ctx.authenticator = authenticator;
      return;
    }
  }
}
