/**
 * The time source for every timestamp the framework writes.
 *
 * Timestamps are strictly increasing within a process: two writes in the
 * same millisecond still get distinct times, microseconds apart (the six
 * fractional digits the sites show and both databases keep), so "newest
 * first" stays the order in which the writes really happened. Only a write
 * takes a timestamp: reading the time to compare or measure (a token's
 * expiry, a throttle, a cache's age) takes a reading, which moves nothing,
 * so that timestamps stay within a millisecond of real time at any load (a
 * thousand writes in one millisecond would be needed to push them past it).
 */
import { instantAt, type Instant } from './instant.js';

export interface Clock {
  /** The time of a write: later than every timestamp this process gave before. */
  now(): Instant;
  /** The time in milliseconds, to compare or measure: unlike now(), it never moves the next timestamp on. */
  reading(): number;
}

export function monotonicClock(source: () => number = Date.now): Clock {
  /** The last timestamp given, in microseconds since the epoch. */
  let last = 0;
  return {
    now(): Instant {
      const reading = Math.floor(source() * 1000);
      last = reading > last ? reading : last + 1;
      return instantAt(last);
    },
    reading: source,
  };
}

let current: Clock = monotonicClock();

export function clock(): Clock {
  return current;
}

/** Replaces the process's clock (tests move time this way instead of sleeping); returns the one it replaced. */
export function setClock(next: Clock): Clock {
  const previous = current;
  current = next;
  return previous;
}
