import { existsSync } from 'node:fs';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import type { Translate } from './i18n.js';

export interface Config {
  /** NODE_ENV, `development` when unset: demo data loads only there, and nothing development-only runs in `production`. */
  environment: string;
  /** Whether `npm start` may load the demo data into an empty development database (DEMO_DATA). */
  demoData: boolean;
  /** The application served: the folder of its resources/, seeders/ and locales/, relative to the checkout (`examples/blog`). */
  appRoot: string;
  /** `sqlite:<path>` (relative to the project root), `sqlite::memory:` or `postgres://…`. */
  databaseUrl: string;
  port: number;
  host: string;
  /** Host names requests may name (Django's ALLOWED_HOSTS): a name, `.example.com` for it and its subdomains, or `*`; IPv6 in brackets. */
  allowedHosts: readonly string[];
  /**
   * Origins whose browser scripts may call the token site (`/api`, `/sanctum`):
   * `*` (any, without cookies: Laravel's config/cors.php), a list (each may
   * send the session cookie too), or null: none.
   */
  corsAllowedOrigins: '*' | readonly string[] | null;
  /** Signs session cookies; the server requires it in production (without it sessions last as long as the process). */
  secretKey: string | undefined;
  /** Seconds a browser session lives (Django's SESSION_COOKIE_AGE). */
  sessionCookieAge: number;
  /** Express's `trust proxy`: false, true, a hop count or addresses; then X-Forwarded-Proto makes cookies Secure. */
  trustProxy: boolean | number | string;
  debug: boolean;
  /** Minutes a token lives after its `created_at`; null: tokens never expire. */
  tokenExpirationMinutes: number | null;
  /** The longest `expires_in` a new token may ask for, and the lifetime of those that ask none; null: no limit. */
  tokenMaxExpirationMinutes: number | null;
  /** IANA zone in which the paginated site shows timestamps. */
  timeZone: string;
  apiForceJson: boolean;
  /** Rate-limit counters live here when set, shared by every process; else in each process's memory. */
  redisUrl: string | undefined;
  /** Prefix of every Redis key the service writes, so that several deployments can share one Redis. */
  redisPrefix: string;
  /** Failed password checks allowed per account from one client address (the tight limit), in a window; null: unlimited. */
  loginRateAccountAddress: Rate | null;
  /** Per account from every address that has failed for it (a cap on spread guessing; never refuses an address that has not failed). */
  loginRateAccount: Rate | null;
  /** Per client address, whatever accounts it tries. */
  loginRateAddress: Rate | null;
  /** Requests per client (user, or address when anonymous) on the API sites; null (default): unlimited. */
  apiRateLimit: Rate | null;
  webConcurrency: number;
  /** How many machines serve the site behind its load balancer, each with WEB_CONCURRENCY processes (1: this one alone). */
  siteMachines: number;
  /** Seconds a password that opened an account over HTTP Basic is trusted without hashing again; 0: hash every request. */
  basicAuthCacheSeconds: number;
  /** PBKDF2 iterations of new password hashes (Django's 600,000 unless a test lowers it). */
  passwordIterations: number;
  /** Largest request body accepted, in bytes. */
  bodyLimit: number;
  /** Seconds a request may take to arrive, headers and body, until it has been read; then 408 and the connection is closed. */
  requestTimeout: number;
  /** Seconds a served request's database statement may run, or wait for a pooled connection (PostgreSQL); then 503. */
  databaseTimeout: number;
  logLevel: string;
}

/** `limit` events per `seconds`, written `10/hour`, `5/15min` or `60` (per minute). */
export interface Rate {
  limit: number;
  seconds: number;
}

/** What a setting takes, as a key of `config.expected` in `src/locales/<lang>/cli.json` and its slots. */
export type ExpectedSetting =
  | 'boolean'
  | 'time_zone'
  | 'rate'
  | 'allowed_hosts'
  | 'cors_origins'
  | 'secret_key'
  | 'database_url'
  | 'single_in_memory'
  | 'trust_proxy'
  | 'log_level'
  | 'debug_in_production'
  | 'redis_url'
  | { key: 'integer_range'; min: number; max: number };

/** A setting with a value that cannot be used; its messages are in `src/locales/<lang>/cli.json`. */
export class ConfigError extends Error {
  /**
   * `hiddenLength`: the value is a secret, kept out of the error (its message
   * may be printed or logged); only its length is told.
   */
  constructor(
    readonly variable: string,
    readonly value: string,
    readonly expected: ExpectedSetting,
    readonly hiddenLength?: number,
  ) {
    super(`${variable}=${value}`);
    this.name = 'ConfigError';
  }
}

/** The one-line explanation printed when a setting stops a command or the server, in the user's language. */
export function describeConfigError(t: Translate, error: ConfigError): string {
  const { expected } = error;
  const what = typeof expected === 'string' ? t(`config.expected.${expected}`) : t(`config.expected.${expected.key}`, { min: expected.min, max: expected.max });
  if (error.hiddenLength !== undefined) return t('config.invalid_secret', { variable: error.variable, count: error.hiddenLength, expected: what });
  return t('config.invalid', { variable: error.variable, value: error.value, expected: what });
}

export const DEFAULT_DATABASE_URL = 'sqlite:data/db.sqlite3';

/** Each application's own SQLite file under its root: another application's would get migrations that are not its own. */
function defaultDatabaseUrl(appRoot: string): string {
  const root = path.normalize(appRoot);
  return root === '.' ? DEFAULT_DATABASE_URL : `sqlite:${path.join(root, 'data', 'db.sqlite3')}`;
}

type Env = Record<string, string | undefined>;

function text(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value === '' ? undefined : value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = text(env, name);
  if (raw === undefined) return fallback;
  const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) throw new ConfigError(name, raw, { key: 'integer_range', min, max });
  return value;
}

/** An on/off setting (`1/0`, `true/false`, `yes/no`, `on/off`); unset, `fallback`. */
export function flag(env: Env, name: string, fallback = false): boolean {
  const raw = text(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (['0', 'false', 'no', 'off'].includes(raw)) return false;
  if (['1', 'true', 'yes', 'on'].includes(raw)) return true;
  throw new ConfigError(name, raw, 'boolean');
}

function timeZone(env: Env): string {
  const raw = text(env, 'TIME_ZONE') ?? 'UTC';
  // Asking Intl loads ICU's time zone data, some 20 ms of every start: not for the default.
  if (raw === 'UTC') return raw;
  try {
    new Intl.DateTimeFormat('en', { timeZone: raw });
  } catch {
    throw new ConfigError('TIME_ZONE', raw, 'time_zone');
  }
  return raw;
}

/** TRUST_PROXY as Express takes it: a boolean, a number of hops, or a list of addresses and subnets. */
/** What Express's `trust proxy` takes besides addresses and networks (proxy-addr's names). */
const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

function isProxyEntry(entry: string): boolean {
  if (PROXY_NAMES.has(entry) || ipaddr.isValid(entry)) return true;
  // A network written with its mask (`10.0.0.0/255.0.0.0`), as proxy-addr takes it too.
  const [address = '', mask = ''] = entry.split('/');
  if (ipaddr.isValid(address) && ipaddr.isValid(mask)) return true;
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
}

function trustProxy(env: Env): boolean | number | string {
  const raw = text(env, 'TRUST_PROXY');
  if (raw === undefined) return false;
  if (/^\d+$/.test(raw)) return Number(raw);
  if (/^(true|false|yes|no|on|off)$/i.test(raw)) return flag(env, 'TRUST_PROXY');
  // Checked here: Express refuses a wrong one only when the first request asks who its client is.
  if (!raw.split(',').every((entry) => isProxyEntry(entry.trim()))) throw new ConfigError('TRUST_PROXY', raw, 'trust_proxy');
  return raw;
}

/** A URL as a message may show it: what stands between `//` and its last `@` before the path (user and password) masked but the user. */
export function withoutPassword(url: string): string {
  return url.replace(/^([a-z][\w+.-]*:\/\/[^:/?#@]*):[^?#]*@/i, '$1:***@');
}

/** A host name, an IPv4 address or a bracketed IPv6 one, and maybe a port: what ioredis takes for a server. */
const REDIS_SERVER = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * REDIS_URL as ioredis reads it: `redis://` or `rediss://` (TLS), a Unix
 * socket's path, or `host[:port]`; anything else (another scheme, spaces) it
 * would take for a host name and fail on later.
 */
function redisUrl(env: Env): string | undefined {
  const raw = text(env, 'REDIS_URL');
  if (raw === undefined || raw.startsWith('/') || REDIS_SERVER.test(raw)) return raw;
  try {
    const { protocol, hostname } = new URL(raw);
    if ((protocol === 'redis:' || protocol === 'rediss:') && hostname !== '') return raw;
  } catch {
    // Not a URL: refused below.
  }
  throw new ConfigError('REDIS_URL', withoutPassword(raw), 'redis_url');
}

/** pino's levels. */
const LOG_LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

function logLevel(env: Env): string {
  const raw = text(env, 'LOG_LEVEL');
  if (raw === undefined) return env.NODE_ENV === 'test' ? 'silent' : 'info';
  if (!LOG_LEVELS.has(raw.toLowerCase())) throw new ConfigError('LOG_LEVEL', raw, 'log_level');
  return raw.toLowerCase();
}

const RATE_UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };
const RATE = /^(\d+)\s*(?:\/\s*(\d*)\s*(s|sec|second|m|min|minute|h|hour|d|day)s?)?$/i;

/** DRF's `number/period` (`100/day`), with an optional period count (`5/15min`); `off` or `0` turns it off. */
function rate(env: Env, name: string, fallback: string | null): Rate | null {
  const raw = text(env, name) ?? fallback;
  if (raw === null || /^(off|0)$/i.test(raw)) return null;
  const match = RATE.exec(raw);
  const limit = Number(match?.[1]);
  const periods = match?.[2] ? Number(match[2]) : 1;
  const unit = RATE_UNITS[(match?.[3] ?? 'm').charAt(0).toLowerCase()] ?? 0;
  const seconds = periods * unit;
  if (!match || !(limit >= 1 && limit <= 1_000_000_000) || !(seconds >= 1 && seconds <= 31_536_000)) {
    throw new ConfigError(name, raw, 'rate');
  }
  return { limit, seconds };
}

/** The loopback names, as Django allows them in development: what a browser on this machine sends. */
const LOCAL_HOSTS = ['.localhost', '127.0.0.1', '[::1]'];
const HOST_PATTERN = /^(\*|\.?[a-z0-9-]+(\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])$/;

/** One ALLOWED_HOSTS entry, lower case, IPv6 in brackets as a Host header writes it; undefined if it is no host. */
function hostPattern(entry: string): string | undefined {
  // A bare IPv6 address (two colons at least, as `::1`), as HOST may name one.
  const pattern = /^[0-9a-f.]*:[0-9a-f.]*:[0-9a-f:.]*$/i.test(entry) ? `[${entry.toLowerCase()}]` : entry.toLowerCase();
  return HOST_PATTERN.test(pattern) ? pattern.replace(/(?<=.)\.$/, '') : undefined;
}

/** ALLOWED_HOSTS, comma-separated; by default the loopback names and HOST, the address the server listens on. */
/** What ALLOWED_HOSTS is when unset: this machine's names and HOST. */
export function defaultAllowedHosts(host: string): string[] {
  return [...new Set([...LOCAL_HOSTS, host].map(hostPattern).filter((pattern) => pattern !== undefined))];
}

function allowedHosts(env: Env, host: string): string[] {
  const raw = text(env, 'ALLOWED_HOSTS');
  if (raw === undefined) return defaultAllowedHosts(host);
  const entries = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const patterns = entries.map(hostPattern);
  if (patterns.length === 0 || patterns.includes(undefined)) {
    throw new ConfigError('ALLOWED_HOSTS', raw, 'allowed_hosts');
  }
  return [...new Set(patterns.filter((pattern) => pattern !== undefined))];
}

/** CORS_ALLOWED_ORIGINS: `*` (the default), `off`, or origins (`https://app.example.com`) separated by commas. */
function corsOrigins(env: Env): Config['corsAllowedOrigins'] {
  const raw = text(env, 'CORS_ALLOWED_ORIGINS');
  if (raw === undefined || raw === '*') return '*';
  if (raw.toLowerCase() === 'off') return null;
  const origins = raw.split(',').map((entry) => entry.trim()).filter((entry) => entry !== '');
  const valid = (origin: string): boolean => {
    try {
      const url = new URL(origin);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === origin.toLowerCase();
    } catch {
      return false;
    }
  };
  if (origins.length === 0 || !origins.every(valid)) throw new ConfigError('CORS_ALLOWED_ORIGINS', raw, 'cors_origins');
  return origins.map((origin) => origin.toLowerCase());
}

/** Whether an empty database gets the demo data at start: in development, unless DEMO_DATA=0. */
export function seedsDemoData(config: Pick<Config, 'environment' | 'demoData'>): boolean {
  return config.environment === 'development' && config.demoData;
}

export function loadConfig(env: Env = process.env): Config {
  const expiration = text(env, 'TOKEN_EXPIRATION_MINUTES');
  const environment = text(env, 'NODE_ENV') ?? 'development';
  return {
    environment,
    demoData: flag(env, 'DEMO_DATA', true),
    databaseUrl: text(env, 'DATABASE_URL') ?? defaultDatabaseUrl(text(env, 'APP_ROOT') ?? '.'),
    appRoot: text(env, 'APP_ROOT') ?? '.',
    port: integer(env, 'PORT', 8000, 0, 65535),
    host: text(env, 'HOST') ?? '127.0.0.1',
    allowedHosts: allowedHosts(env, text(env, 'HOST') ?? '127.0.0.1'),
    corsAllowedOrigins: corsOrigins(env),
    secretKey: text(env, 'SECRET_KEY'),
    sessionCookieAge: integer(env, 'SESSION_COOKIE_AGE', 1_209_600, 60, 315_360_000),
    trustProxy: trustProxy(env),
    debug: flag(env, 'DEBUG'),
    tokenExpirationMinutes:
      expiration === undefined ? null : integer(env, 'TOKEN_EXPIRATION_MINUTES', 0, 1, 10_000_000),
    tokenMaxExpirationMinutes:
      text(env, 'TOKEN_MAX_EXPIRATION_MINUTES') === undefined ? null : integer(env, 'TOKEN_MAX_EXPIRATION_MINUTES', 0, 1, 10_000_000),
    timeZone: timeZone(env),
    apiForceJson: flag(env, 'API_FORCE_JSON'),
    redisUrl: redisUrl(env),
    redisPrefix: text(env, 'REDIS_PREFIX') ?? 'throttle',
    loginRateAccountAddress: rate(env, 'LOGIN_RATE_ACCOUNT_ADDRESS', '10/hour'),
    loginRateAccount: rate(env, 'LOGIN_RATE_ACCOUNT', '100/hour'),
    loginRateAddress: rate(env, 'LOGIN_RATE_ADDRESS', '100/hour'),
    apiRateLimit: rate(env, 'API_RATE_LIMIT', null),
    webConcurrency: integer(env, 'WEB_CONCURRENCY', 1, 1, 64),
    siteMachines: integer(env, 'SITE_MACHINES', 1, 1, 10_000),
    basicAuthCacheSeconds: integer(env, 'BASIC_AUTH_CACHE_SECONDS', 300, 0, 86_400),
    passwordIterations: integer(env, 'PASSWORD_HASH_ITERATIONS', 600_000, 1_000, 10_000_000),
    bodyLimit: integer(env, 'BODY_LIMIT_BYTES', 1_048_576, 1_024, 104_857_600),
    requestTimeout: integer(env, 'REQUEST_TIMEOUT_SECONDS', 30, 1, 3_600),
    databaseTimeout: integer(env, 'DATABASE_TIMEOUT_SECONDS', 30, 1, 3_600),
    logLevel: logLevel(env),
  };
}

/** Every process that serves the site: WEB_CONCURRENCY on each of SITE_MACHINES machines. */
export function servingProcesses(config: Pick<Config, 'webConcurrency' | 'siteMachines'>): number {
  return config.webConcurrency * config.siteMachines;
}

/** Django's check of a production SECRET_KEY (security.W009): long enough, and not one character repeated. */
export const SECRET_KEY_MIN_LENGTH = 50;
const SECRET_KEY_MIN_DISTINCT = 5;

export function secretKeyIsWeak(key: string): boolean {
  return key.length < SECRET_KEY_MIN_LENGTH || new Set(key).size < SECRET_KEY_MIN_DISTINCT;
}

/**
 * What the server needs beyond what every command does: in production, a fixed
 * SECRET_KEY strong enough to sign sessions and seal cursors (Django only warns
 * of a weak one in `check --deploy`; Laravel refuses a key of the wrong length).
 * The key itself is never printed, only its length.
 */
export function checkServerConfig(config: Config): void {
  if (config.environment !== 'production') return;
  // Its error details (the code's stack traces, file paths) are for a developer's machine.
  if (config.debug) throw new ConfigError('DEBUG', 'on', 'debug_in_production');
  const key = config.secretKey ?? '';
  if (secretKeyIsWeak(key)) {
    throw new ConfigError('SECRET_KEY', '', 'secret_key', key ? key.length : undefined);
  }
}

/** Reads `.env` of the application (the working directory) into process.env, without overriding what is already set. */
export function loadDotEnv(file = path.join(process.cwd(), '.env')): void {
  if (existsSync(file)) process.loadEnvFile(file);
}
