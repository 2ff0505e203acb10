import { hash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { clock } from '../clock.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import type { PasswordGuard } from '../throttling.js';
import type { Accounts } from './accounts.js';
import type { StoredRecord } from '../types/rows.js';
import type { AuthUser } from '../types/auth.js';

export interface CredentialCacheOptions {
  /** How long a checked password is trusted without hashing again; 0 turns the cache off. */
  ttlSeconds: number;
  /** Most credentials remembered at once; the least recently used go first. */
  maxEntries: number;
}

/** An account as a password check found it: what must still hold for its answer to stand. */
interface Weighed {
  userId: number;
  username: string;
  /** The stored password hash as it was: any new password (or rehash) changes it. Not a secret the client sent. */
  storedHash: string;
  active: boolean;
}

/** What a username and password that opened an account stand for, and what the account was like then. */
type Remembered = Weighed;

/** A finished check: its answer, and the account it weighed the password against (null: the name named none). */
interface Outcome {
  user: AuthUser | null;
  weighed: Weighed | null;
}

/** The password checks a request's credentials go through (Accounts, or Accounts behind a cache). */
export interface PasswordCheck {
  /** `request`, when given, lets a remembered account stand for its read while unchanged (Accounts.findStoredById). */
  authenticate(username: string, password: string, guard: PasswordGuard, request?: object): Promise<AuthUser | null>;
}

/**
 * HTTP Basic sends the password with every request, and a PBKDF2 check costs
 * about as much CPU as hundreds of requests. A password that opened an account
 * is therefore remembered, for a bounded time and number of entries, as a
 * keyed digest of the credentials (SHA-256 of a random key that never
 * leaves the process and the credentials), never as the password itself.
 * A remembered credential is still checked against the account as stored:
 * it must exist, be active, keep its username and its stored password
 * hash, so that a new password, a deactivation or a deletion counts on the
 * very next request (a read, unless the user table is unchanged since the
 * last one: Accounts.findStoredById). Only successful checks are
 * remembered; simultaneous requests with the same credentials wait for one
 * check, and take its answer only if the account is still as it found it.
 */
export class CachedPasswordCheck implements PasswordCheck {
  /** Fixed length, so that the key and the credentials after it cannot be split otherwise. */
  private readonly key = randomBytes(32).toString('base64');
  private readonly remembered: LRUCache<string, Remembered>;
  /** Checks under way, by credential key. */
  private readonly checking = new Map<string, Promise<Outcome>>();

  constructor(
    private readonly accounts: Accounts,
    options: CredentialCacheOptions,
  ) {
    this.remembered = new LRUCache<string, Remembered>({
      max: options.maxEntries,
      ttl: options.ttlSeconds * 1000,
      // The framework's clock, so that tests can move time.
      perf: { now: () => clock().reading() },
    });
  }

  async authenticate(username: string, password: string, guard: PasswordGuard, request?: object): Promise<AuthUser | null> {
    const key = this.credentialKey(username, password);
    const entry = this.remembered.get(key);
    if (entry) {
      const row = await this.accounts.findStoredById(entry.userId, request);
      if (row) {
        const user = this.accounts.toAuthUser(row);
        if (this.isAsWeighed(row, user, entry)) return user;
      }
      this.remembered.delete(key);
    }
    // Simultaneous first requests with the same credentials (a client opening several connections) share one check.
    const shared = this.checking.get(key);
    if (shared) return this.joined(shared, key, username, password, guard, request);
    const check = this.check(key, username, password, guard).finally(() => this.checking.delete(key));
    this.checking.set(key, check);
    return (await check).user;
  }

  /**
   * A request that came while a check of the same credentials ran takes its
   * answer only if the account is still as that check found it: a password
   * change or a deactivation committed after the check began, and before
   * this request came, must count for this request too. Otherwise, and if
   * the shared check failed for its own client (its address throttled), this
   * request is checked on its own; a database that did not answer that check
   * fails this request too, which would otherwise wait for it a second time.
   */
  private async joined(shared: Promise<Outcome>, key: string, username: string, password: string, guard: PasswordGuard, request?: object): Promise<AuthUser | null> {
    let outcome: Outcome;
    try {
      outcome = await shared;
    } catch (error) {
      if (isDatabaseUnavailable(error)) throw error;
      return (await this.check(key, username, password, guard)).user;
    }
    if (await this.stillAsWeighed(outcome.weighed, username, request)) return outcome.user;
    return (await this.check(key, username, password, guard)).user;
  }

  private async check(key: string, username: string, password: string, guard: PasswordGuard): Promise<Outcome> {
    let weighed: Weighed | null = null;
    const row = await this.accounts.checkCredentials(username, password, {
      by: ['username'],
      guard,
      weighed: (found) => {
        weighed = found && this.weighedOf(found);
      },
    });
    if (!row) return { user: null, weighed };
    // As written, should the check have upgraded an old hash.
    const remembered = this.weighedOf(row);
    this.remembered.set(key, remembered);
    return { user: this.accounts.toAuthUser(row), weighed: remembered };
  }

  private weighedOf(row: StoredRecord): Weighed {
    const user = this.accounts.toAuthUser(row);
    return { userId: user.id, username: user.username, storedHash: String(row.get('password')), active: Boolean(row.get('is_active')) };
  }

  private isAsWeighed(row: StoredRecord, user: AuthUser, weighed: Weighed): boolean {
    // Both hashes are the database's, never the client's: a plain comparison tells a client nothing.
    return user.username === weighed.username && String(row.get('password')) === weighed.storedHash && Boolean(row.get('is_active')) === weighed.active;
  }

  /**
   * Whether the account is, as of this request, what a check found: the
   * same username, stored hash and activity, or still no account by that name.
   */
  private async stillAsWeighed(weighed: Weighed | null, username: string, request?: object): Promise<boolean> {
    if (weighed === null) return (await this.accounts.findByUsername(username)) === null;
    const row = await this.accounts.findStoredById(weighed.userId, request);
    return row !== null && this.isAsWeighed(row, this.accounts.toAuthUser(row), weighed);
  }

  /** The username's length first, so that no other split of the same characters gives the same key. */
  private credentialKey(username: string, password: string): string {
    // One-shot: an HMAC object per request cost more than the rest of a remembered check; the digest never leaves the process.
    return hash('sha256', `${this.key}${username.length}:${username}${password}`, 'base64');
  }
}

/** The password check HTTP Basic uses: behind the cache unless its time is 0. */
export function basicPasswordCheck(accounts: Accounts, options: CredentialCacheOptions): PasswordCheck {
  return options.ttlSeconds > 0 ? new CachedPasswordCheck(accounts, options) : accounts;
}
