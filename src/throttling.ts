import { isIPv6 } from 'node:net';
import type { Request, Response } from 'express';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config, Rate } from './config.js';
import { ApiError } from './errors.js';
import type { Logger } from './logger.js';

/**
 * Runs one password check for `account` (a key naming the account tried)
 * and says whether it succeeded; a throttle may refuse to run it.
 */
export type PasswordGuard = (account: string, check: () => Promise<boolean>) => Promise<boolean>;

export const unguarded: PasswordGuard = (_account, check) => check();

/** A client's address as limits count it: IPv6 by its /64 network, which one host commonly holds whole. */
export function clientAddress(req: Request): string {
  const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
  if (!isIPv6(address) || address.startsWith('::ffff:')) return address;
  const [head = '', tail = ''] = address.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === '' ? [] : tail.split(':');
  const groups = address.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups.slice(0, 4).map((group) => group.toLowerCase().replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** The 429 a refusal becomes: `Retry-After` in whole seconds, at least one. */
function throttled(msBeforeNext: number): ApiError {
  const wait = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new ApiError('throttled', { wait }, { 'Retry-After': String(wait) });
}

interface Counter {
  limiter: RateLimiterAbstract;
  rate: Rate;
}

/**
 * Brute-force protection of every password check (DRF's and Laravel's
 * throttles count requests; this counts failures). Each failure counts
 * against the account tried and the client's address; when either has
 * used its allowance, checks are refused with 429 until its window ends,
 * before any password is hashed. A success clears the account's count.
 */
export class LoginThrottle {
  constructor(
    private readonly perAccount: Counter | null,
    private readonly perAddress: Counter | null,
  ) {}

  /** The guard of the password checks one request makes. */
  guard(req: Request): PasswordGuard {
    const address = clientAddress(req);
    return async (account, check) => {
      const counted: [Counter, string][] = [];
      if (this.perAddress) counted.push([this.perAddress, address]);
      if (this.perAccount) counted.push([this.perAccount, account]);
      await refuseIfExhausted(counted);
      const valid = await check();
      if (valid && this.perAccount) await this.perAccount.limiter.delete(account);
      if (!valid) await Promise.all(counted.map(([{ limiter }, key]) => limiter.penalty(key)));
      return valid;
    };
  }
}

async function refuseIfExhausted(counted: readonly [Counter, string][]): Promise<void> {
  const states = await Promise.all(counted.map(([{ limiter }, key]) => limiter.get(key)));
  let wait = 0;
  states.forEach((state, index) => {
    const [{ rate }] = counted[index]!;
    if (state && state.consumedPoints >= rate.limit) wait = Math.max(wait, state.msBeforeNext);
  });
  if (wait > 0) throw throttled(wait);
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

/** A Redis connection that fails fast: a limiter then falls back to its in-memory insurance. */
function redisClient(url: string, logger: Logger): Redis {
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
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
    login: new LoginThrottle(counter('login-account', config.loginRateAccount), counter('login-address', config.loginRateAddress)),
    requests: requests ? new RequestThrottle(requests) : null,
    close: async () => {
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
