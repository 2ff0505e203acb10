/**
 * Where the cold cases of bench/scale.ts send their requests: places spread
 * evenly over a range, in a fixed shuffled order, so that the warm-up and the
 * timed requests each cover the whole range, and no two requests of one
 * server's cold cases ask the same URL.
 */
import type { SqlClient } from '../lib/database.js';

/** What every case builder of one database works from. */
export interface CaseSource {
  client: SqlClient;
  comments: number;
  pageSize: number;
  /** Requests a cold case wants: its warm-up and its timed ones, each a different URL. */
  wanted: number;
  /** The URLs the cold cases have taken so far: none takes another's. */
  taken: Set<string>;
}

/** A well-mixed 32-bit hash of `n`: a fixed order that is not the range's. */
function scramble(n: number): number {
  let h = Math.imul(n ^ 0x5bd1e995, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** `items` in a fixed order unrelated to theirs, the same every run. */
export function shuffled<T>(items: readonly T[]): T[] {
  return items
    .map((item, index) => ({ item, key: scramble(index) }))
    .sort((a, b) => a.key - b.key)
    .map(({ item }) => item);
}

/** `wanted` distinct integers spread evenly over `from` … `to` (all of them when there are fewer), shuffled. */
export function spreadOver(from: number, to: number, wanted: number): number[] {
  const size = to - from + 1;
  if (size <= 0) return [];
  const count = Math.min(wanted, size);
  return shuffled(Array.from({ length: count }, (_, j) => from + Math.floor(((j + 0.5) * size) / count)));
}

/** `wanted` distinct integers `from`, `from`+1, … (fewer when `to` comes first), shuffled. */
export function runFrom(from: number, to: number, wanted: number): number[] {
  return shuffled(Array.from({ length: Math.max(0, Math.min(wanted, to - from + 1)) }, (_, j) => from + j));
}

/**
 * The first `wanted` of `candidates` that no other case has taken, now taken:
 * the cold cases of one server share no URL, whatever the sizes.
 */
export function claim<T>(taken: Set<string>, candidates: readonly T[], key: (value: T) => string, wanted: number): T[] {
  const claimed: T[] = [];
  for (const value of candidates) {
    if (claimed.length >= wanted) break;
    if (taken.has(key(value))) continue;
    taken.add(key(value));
    claimed.push(value);
  }
  return claimed;
}
