import { monotonicClock, setClock, type Clock } from '../../src/clock.js';

/** A clock the test moves by hand; install() makes it the process's clock until restore(). */
export function manualClock(start = Date.UTC(2026, 10, 21, 7, 27, 21)) {
  let now = start;
  const clock: Clock = monotonicClock(() => now);
  let previous: Clock | undefined;
  return {
    /** The current reading, in milliseconds since the epoch. */
    now(): number {
      return now;
    },
    advance(ms: number): void {
      now += ms;
    },
    install(): void {
      previous = setClock(clock);
    },
    restore(): void {
      if (previous) setClock(previous);
    },
  };
}
