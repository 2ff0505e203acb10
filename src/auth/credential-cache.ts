import { hash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { clock } from '../clock.js';
import { isDatabaseUnavailable } from '../db/unavailable.js';
import type { StoredRecord } from '../registry.js';
import type { PasswordGuard } from '../throttling.js';
import type { Accounts, AuthUser } from './accounts.js';

export interface CredentialCacheOptions {
  /** How long a checked password is trusted without hashing again; 0 turns the cache off. */
  ttlSeconds: number;
  /** Most credentials remembered at once; the least recently used go first. */
  maxEntries: number;
}

/** What a username and password that opened an account stand for, and what the account was like then. */
interface Remembered {
  userId: number;
  username: string;
  /** The stored password hash as it was: any new password (or rehash) changes it. Not a secret the client sent. */
  storedHash: string;
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
 * check.
 */
export class CachedPasswordCheck implements PasswordCheck {
  /** Fixed length, so that the key and the credentials after it cannot be split otherwise. */
  private readonly key = randomBytes(32).toString('base64');
  private readonly remembered: LRUCache<string, Remembered>;
  /** Checks under way, by credential key. */
  private readonly checking = new Map<string, Promise<AuthUser | null>>();

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
        if (this.stillOpens(row, user, entry)) return user;
      }
      this.remembered.delete(key);
    }
    // Simultaneous first requests with the same credentials (a client opening several connections) share one check.
    const shared = this.checking.get(key);
    if (shared) {
      try {
        return await shared;
      } catch (error) {
        // A database that did not answer the first caller's check would make this one wait a second time.
        if (isDatabaseUnavailable(error)) throw error;
        // The first caller's throttle (its address) refused: this client is checked on its own.
        return this.check(key, username, password, guard);
      }
    }
    const check = this.check(key, username, password, guard).finally(() => this.checking.delete(key));
    this.checking.set(key, check);
    return check;
  }

  private async check(key: string, username: string, password: string, guard: PasswordGuard): Promise<AuthUser | null> {
    const row = await this.accounts.checkCredentials(username, password, { by: ['username'], guard });
    if (!row) return null;
    const user = this.accounts.toAuthUser(row);
    this.remembered.set(key, { userId: user.id, username: user.username, storedHash: String(row.get('password')) });
    return user;
  }

  private stillOpens(row: StoredRecord, user: AuthUser, entry: Remembered): boolean {
    // Both hashes are the database's, never the client's: a plain comparison tells a client nothing.
    return Boolean(row.get('is_active')) && user.username === entry.username && String(row.get('password')) === entry.storedHash;
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
