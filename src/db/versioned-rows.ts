/**
 * Rows a request would read again and again (the account behind a
 * credential, a token with its owner) kept in memory, each with the kept
 * versions of the tables it was read from (src/db/row-counter.ts). Every
 * write to those tables, from any process or tool, bumps a version by
 * trigger in its own transaction; so while a request's snapshot shows the
 * same versions as a kept row's, nothing it was read from has changed, and
 * the kept row stands for the read. A row is only kept with versions read
 * before it: a write in between makes it older than it is, never newer.
 */
import { LRUCache } from 'lru-cache';
import type { Sequelize } from 'sequelize';
import { readTables, type KeyedRead } from './compiled.js';
import { rowCounts } from './row-counter.js';

/** How long tables found without versions are not asked again: a migration may give them versions meanwhile. */
const UNVERSIONED_FOR_MS = 60_000;

interface Kept<V> {
  versions: string;
  value: V;
}

/** How many rows are kept at most, and, for rows of any size, how many bytes (as their JSON counts them). */
export interface KeptBounds {
  maxEntries: number;
  maxBytes?: number;
}

export class VersionedRows<K extends {}, V extends {}> {
  private readonly kept: LRUCache<K, Kept<V>>;
  private unversionedUntil = 0;
  private readonly sequelize: Sequelize;
  /** The tables every row is read from: the read's model's and its joined references'. */
  private readonly tables: readonly string[];

  /** Rows as `read` reads them. */
  constructor(read: KeyedRead, { maxEntries, maxBytes }: KeptBounds) {
    this.sequelize = read.model.sequelize as Sequelize;
    this.tables = readTables(read);
    this.kept = new LRUCache<K, Kept<V>>(
      maxBytes === undefined ? { max: maxEntries } : { max: maxEntries, maxSize: maxBytes, sizeCalculation: ({ value }) => Math.max(1, JSON.stringify(value).length) },
    );
  }

  /**
   * The row `key` names as of `request`'s snapshot: the kept one while its
   * tables' versions are those of the snapshot, else `read()` (null for no
   * row, which is not kept). Without a request, or where the tables keep no
   * versions, always `read()`.
   */
  async get(key: K, request: object | undefined, read: () => Promise<V | null>): Promise<V | null> {
    if (!request || this.unversionedUntil > Date.now()) return read();
    const versions = (await rowCounts(this.sequelize).at(request))?.versions(this.tables)?.versions;
    if (versions === undefined) {
      this.unversionedUntil = Date.now() + UNVERSIONED_FOR_MS;
      return read();
    }
    const found = this.kept.get(key);
    if (found?.versions === versions) return found.value;
    const value = await read();
    if (value === null) this.kept.delete(key);
    else this.kept.set(key, { versions, value });
    return value;
  }
}
