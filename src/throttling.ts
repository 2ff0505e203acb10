import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import ipaddr from 'ipaddr.js';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config, Rate } from './config.js';
import { ApiError } from './errors.js';
import type { Logger } from './logger.js';

/**
 * Runs one password check for the account a client named (`identifier`, as
 * typed) and says whether it succeeded; a throttle may refuse to run it.
 */
export type PasswordGuard = (identifier: string, check: () => Promise<boolean>) => Promise<boolean>;

/** For the CLI and tests, which check passwords with no client to throttle. */
export const unguarded: PasswordGuard = (_identifier, check) => check();

/** Short and fixed-size, whatever a client sends: a key never holds a name or grows with it. */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
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

type Counted = readonly (readonly [Counter, string])[];

/**
 * Takes one point from each counter before the check runs, so that checks
 * started at the same moment cannot all slip under the limit; refuses (and
 * gives back what it took) when any counter is spent.
 */
async function reserve(counted: Counted): Promise<void> {
  const taken = await Promise.allSettled(counted.map(([{ limiter }, key]) => limiter.consume(key)));
  const refusals = taken.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected').map((outcome) => outcome.reason as unknown);
  if (refusals.length === 0) return;
  await Promise.all(counted.map(([{ limiter }, key], index) => (taken[index]?.status === 'fulfilled' ? limiter.reward(key) : undefined)));
  const waits = refusals.map((refusal) => {
    if (refusal instanceof RateLimiterRes) return refusal.msBeforeNext;
    throw refusal;
  });
  throw throttled(Math.max(...waits));
}

/**
 * Brute-force protection of every password check. Each check counts against
 * the name tried (whether or not an account has it, so that answers tell
 * nothing about accounts) and the client's address; a failure keeps its
 * point, a success gives the address its point back and clears the name's
 * count. When either is spent, checks are refused with 429 until its window
 * ends, before any password is hashed.
 */
export class LoginThrottle {
  constructor(
    private readonly perName: Counter | null,
    private readonly perAddress: Counter | null,
  ) {}

  /** The guard of the password checks one request makes. */
  guard(req: Request): PasswordGuard {
    const address = clientAddress(req);
    return async (identifier, check) => {
      const name = digest(identifier.toLowerCase());
      const counted: [Counter, string][] = [];
      if (this.perAddress) counted.push([this.perAddress, address]);
      if (this.perName) counted.push([this.perName, name]);
      await reserve(counted);
      let outcome: 'valid' | 'invalid' | 'error' = 'error';
      try {
        outcome = (await check()) ? 'valid' : 'invalid';
      } finally {
        // A check that failed to run (the database is down) is no failed guess.
        if (outcome !== 'invalid') await this.giveBack(address, name, outcome === 'valid');
      }
      return outcome === 'valid';
    };
  }

  private async giveBack(address: string, name: string, clearName: boolean): Promise<void> {
    await Promise.all([
      this.perAddress?.limiter.reward(address),
      clearName ? this.perName?.limiter.delete(name) : this.perName?.limiter.reward(name),
    ]);
  }
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
      throw throttled(refusal.msBeforeNext);
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
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: REDIS_COMMAND_TIMEOUT_MS });
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
    login: new LoginThrottle(counter('login-name', config.loginRateAccount), counter('login-address', config.loginRateAddress)),
    requests: requests ? new RequestThrottle(requests) : null,
    // Counters need no flushing: a hanging Redis must not hold up a shutdown.
    close: async () => redis?.disconnect(),
  };
}
