/**
 * The time source for every timestamp the framework writes.
 *
 * Readings are strictly increasing within a process: two writes in the same
 * millisecond still get distinct `updated_at` values, so "newest first" stays
 * the order in which the writes really happened.
 */
export interface Clock {
  now(): Date;
  /** The time in milliseconds, for measuring: unlike now(), it never moves the next timestamp on. */
  reading(): number;
}

export function monotonicClock(source: () => number = Date.now): Clock {
  let last = 0;
  return {
    now(): Date {
      const reading = source();
      last = reading > last ? reading : last + 1;
      return new Date(last);
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
