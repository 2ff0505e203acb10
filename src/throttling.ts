import { hash } from 'node:crypto';
import type { Request, Response } from 'express';
import ipaddr from 'ipaddr.js';
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config, Rate } from './config.js';
import { ApiError } from './errors.js';
import type { Logger } from './logger.js';

/**
 * Runs one password check and says whether it succeeded; a throttle may
 * refuse to run it. `account` names the account tried, one name for all its
 * spellings: its username when the identifier names an account (by username
 * or email address, whichever the login takes), else the identifier as typed.
 */
export type PasswordGuard = (account: string, check: () => Promise<boolean>) => Promise<boolean>;

/** For the CLI and tests, which check passwords with no client to throttle. */
export const unguarded: PasswordGuard = (_account, check) => check();

/** Short and fixed-size, whatever a client sends: a key never holds a name or grows with it. */
function digest(text: string): string {
  return hash('sha256', text, 'base64url');
}

/** A client's address as limits count it: IPv4 as is, IPv6 by its /64 network, which one host commonly holds whole. */
export function clientAddress(req: Request): string {
  const address = req.ip ?? req.socket.remoteAddress ?? '';
  // A forwarded value that is no address (TRUST_PROXY=true trusts the client's own header) still gets a bounded key.
  if (!ipaddr.isValid(address)) return `other:${digest(address)}`;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  return `${(parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16)).join(':')}::/64`;
}

/** The 429 a refusal becomes: `Retry-After` in whole seconds, at least one. */
function throttled(msBeforeNext: number): ApiError {
  const wait = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new ApiError('throttled', {}, { 'Retry-After': String(wait) });
}

/** Whether an error is a throttle's refusal, which login pages show in their form rather than as an error page. */
export function isThrottled(error: unknown): error is ApiError {
  return error instanceof ApiError && error.code === 'throttled';
}

interface Counter {
  limiter: RateLimiterAbstract;
  rate: Rate;
}

/** Counters and their keys, in order; a counter that is off is null and takes nothing. */
type Counted = readonly (readonly [Counter | null, string])[];

/**
 * Takes one point from each counter before the check runs, so that checks
 * started at the same moment cannot all slip under the limit; refuses (and
 * gives back what it took) when any counter is spent. Says what each counter
 * holds now (null where it is off).
 */
async function reserve(counted: Counted): Promise<(RateLimiterRes | null)[]> {
  const taken = await Promise.allSettled(counted.map(([counter, key]) => (counter ? counter.limiter.consume(key) : null)));
  const refusals = taken.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected').map((outcome) => outcome.reason as unknown);
  if (refusals.length === 0) return taken.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : null));
  await Promise.all(counted.map(([counter, key], index) => (taken[index]?.status === 'fulfilled' ? counter?.limiter.reward(key) : undefined)));
  const waits = refusals.map((refusal) => {
    if (refusal instanceof RateLimiterRes) return refusal.msBeforeNext;
    throw refusal;
  });
  throw throttled(Math.max(...waits));
}

/** Returns the point each counter took for a check that must not count. */
async function giveBack(counted: Counted): Promise<void> {
  await Promise.all(counted.map(([counter, key]) => counter?.limiter.reward(key)));
}

/** The three counters of failed password checks (see LoginThrottle); null: that limit is off. */
export interface LoginCounters {
  /** One account from one address: the tight limit, and the record of which addresses have failed for an account. */
  accountAddress: Counter | null;
  /** One address, whatever accounts it tries. */
  address: Counter | null;
  /** One account, from addresses that have failed for it. */
  account: Counter | null;
}

/**
 * Brute-force protection of every password check, without letting anyone
 * lock an account's owner out (OWASP ASVS V6). Failures count against the
 * account and the client's address together (the tight limit), against the
 * address across accounts, and against the account across addresses (a
 * looser cap on guessing spread over many addresses). That last cap refuses
 * only addresses that have already failed for the account in the pair's
 * window: an address with no failure there is always checked, so the owner
 * signs in from their own machine while the account is attacked from
 * elsewhere; its failure still counts against the account. Accounts count
 * by the name the guard is given (see PasswordGuard), in any letter case,
 * hashed: a name that is no account counts as an account would, so that
 * answers tell nothing about which names are accounts.
 * A point is taken before the check; a failure keeps it, a success clears the
 * pair's count and gives the other points back, an error (the database is
 * down) gives every point back.
 */
export class LoginThrottle {
  constructor(private readonly counters: LoginCounters) {}

  /** The guard of the password checks one request makes. */
  guard(req: Request): PasswordGuard {
    // Worked out at the first check: a remembered HTTP Basic credential makes none.
    let address: string | undefined;
    return async (name, check) => {
      address ??= clientAddress(req);
      const account = digest(name.toLowerCase());
      const keys = { address, pair: `${account}|${address}`, account };
      const local: Counted = [
        [this.counters.address, keys.address],
        [this.counters.accountAddress, keys.pair],
      ];
      const [, pair] = await reserve(local);
      // Without the pair's record every address counts as one that has failed.
      const failedHere = !pair || pair.consumedPoints > 1;
      const accountCap = failedHere ? this.counters.account : null;
      try {
        await reserve([[accountCap, account]]);
      } catch (refusal) {
        await giveBack(local);
        throw refusal;
      }
      let outcome: Outcome = 'error';
      try {
        outcome = (await check()) ? 'valid' : 'invalid';
      } finally {
        await this.settle(outcome, keys, accountCap !== null);
      }
      return outcome === 'valid';
    };
  }

  /** What a check leaves counted; `capTaken`: whether it took a point from the account's cap. */
  private async settle(outcome: Outcome, keys: { address: string; pair: string; account: string }, capTaken: boolean): Promise<void> {
    const { address, accountAddress, account } = this.counters;
    if (outcome === 'invalid') {
      // A first failure from this address was not held back by the account's cap, but counts towards it.
      if (!capTaken) await account?.limiter.penalty(keys.account);
      return;
    }
    // A success clears the pair; a check that failed to run (the database is down) is no failed guess.
    await Promise.all([
      address?.limiter.reward(keys.address),
      outcome === 'valid' ? accountAddress?.limiter.delete(keys.pair) : accountAddress?.limiter.reward(keys.pair),
      capTaken ? account?.limiter.reward(keys.account) : undefined,
    ]);
  }
}

type Outcome = 'valid' | 'invalid' | 'error';

/** Counts no limit: the pair's record when only the account's cap is on. */
const UNLIMITED = 1_000_000_000;

/**
 * The login counters the configuration asks for. With the account's cap on
 * and the pair's limit off, the pair is still counted (without a limit, over
 * the cap's window): the cap needs to know which addresses have failed.
 */
function loginCounters(config: Config, counter: (name: string, rate: Rate | null) => Counter | null): LoginCounters {
  const { loginRateAccountAddress: pair, loginRateAccount: account } = config;
  return {
    accountAddress: counter('login-account-address', pair ?? (account && { limit: UNLIMITED, seconds: account.seconds })),
    address: counter('login-address', config.loginRateAddress),
    account: counter('login-account', account),
  };
}

/**
 * The optional general limit of the API sites (`API_RATE_LIMIT`): every
 * request counts against its user, or its address when anonymous, and the
 * answer says how much is left, as Laravel's `throttle:api` does.
 */
export class RequestThrottle {
  constructor(private readonly counter: Counter) {}

  async allow(req: Request, res: Response, userId: number | null): Promise<void> {
    const key = userId === null ? clientAddress(req) : `user:${userId}`;
    res.setHeader('X-RateLimit-Limit', String(this.counter.rate.limit));
    try {
      const state = await this.counter.limiter.consume(key);
      res.setHeader('X-RateLimit-Remaining', String(state.remainingPoints));
    } catch (refusal) {
      if (!(refusal instanceof RateLimiterRes)) throw refusal;
      res.setHeader('X-RateLimit-Remaining', '0');
      const refused = throttled(refusal.msBeforeNext);
      // When the allowance comes back, as a Unix time (Laravel's X-RateLimit-Reset, set on refusals only).
      res.setHeader('X-RateLimit-Reset', String(Math.floor(Date.now() / 1000) + Number(refused.headers['Retry-After'])));
      throw refused;
    }
  }
}

export interface Throttles {
  login: LoginThrottle;
  /** null unless API_RATE_LIMIT is set. */
  requests: RequestThrottle | null;
  close(): Promise<void>;
}

/** How long a Redis command may take before the in-memory insurance answers instead. */
const REDIS_COMMAND_TIMEOUT_MS = 500;

/** A Redis connection that fails fast, so that a limiter falls back to its in-memory insurance. */
function redisClient(url: string, logger: Logger): Redis {
  // Required only with REDIS_URL set: a process counting in its own memory never loads the client.
  const { Redis: RedisClient } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const client = new RedisClient(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: REDIS_COMMAND_TIMEOUT_MS });
  let reported = false;
  client.on('error', (error: Error) => {
    if (reported) return;
    reported = true;
    logger.warn({ err: error }, 'Redis is unreachable: rate limits are counted in this process until it is back');
  });
  client.on('ready', () => {
    if (reported) logger.info('Redis is back: rate limits are shared again');
    reported = false;
  });
  return client;
}

/** Counters in Redis when REDIS_URL is set (shared by every process), else in this process's memory. */
export function createThrottles(config: Config, logger: Logger): Throttles {
  const redis = config.redisUrl ? redisClient(config.redisUrl, logger) : null;
  const counter = (name: string, rate: Rate | null): Counter | null => {
    if (!rate) return null;
    const options = { keyPrefix: `${config.redisPrefix}:${name}`, points: rate.limit, duration: rate.seconds };
    const memory = new RateLimiterMemory(options);
    const limiter = redis ? new RateLimiterRedis({ ...options, storeClient: redis, insuranceLimiter: memory, rejectIfRedisNotReady: true }) : memory;
    return { limiter, rate };
  };
  const requests = counter('api', config.apiRateLimit);
  return {
    login: new LoginThrottle(loginCounters(config, counter)),
    requests: requests ? new RequestThrottle(requests) : null,
    // Counters need no flushing: a hanging Redis must not hold up a shutdown.
    close: async () => redis?.disconnect(),
  };
}
