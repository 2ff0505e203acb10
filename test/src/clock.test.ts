import { describe, expect, test } from '@jest/globals';
import { monotonicClock } from '../../src/clock.js';
import { epochMicroseconds, microsecondOf } from '../../src/instant.js';

describe('the clock', () => {
  test('timestamps within one millisecond still increase, a microsecond apart', () => {
    const clock = monotonicClock(() => 1000);
    const stamps = [clock.now(), clock.now(), clock.now()];
    expect(stamps.map((date) => date.getTime())).toEqual([1000, 1000, 1000]);
    expect(stamps.map(microsecondOf)).toEqual([0, 1, 2]);
  });

  test('a burst of timestamps at any rate stays within a millisecond of real time, and in order', () => {
    let source = 1_000_000;
    const clock = monotonicClock(() => source);
    let previous = 0;
    let outOfOrder = 0;
    let furthest = 0;
    // A hundred writes in every millisecond for a second: a hundred thousand a second.
    for (let millisecond = 0; millisecond < 1000; millisecond += 1, source += 1) {
      for (let write = 0; write < 100; write += 1) {
        const stamp = epochMicroseconds(clock.now());
        if (stamp <= previous) outOfOrder += 1;
        furthest = Math.max(furthest, Math.abs(stamp - source * 1000));
        previous = stamp;
      }
    }
    expect(outOfOrder).toBe(0);
    expect(furthest).toBeLessThan(1000);
  });

  test('it follows the source again once the source is ahead', () => {
    let source = 1000;
    const clock = monotonicClock(() => source);
    clock.now();
    clock.now();
    source = 5000;
    const stamp = clock.now();
    expect([stamp.getTime(), microsecondOf(stamp)]).toEqual([5000, 0]);
  });

  test('a source that steps back never makes time go backwards', () => {
    let source = 5000;
    const clock = monotonicClock(() => source);
    clock.now();
    source = 4000;
    const stamp = clock.now();
    expect([stamp.getTime(), microsecondOf(stamp)]).toEqual([5000, 1]);
  });

  test('taking a reading to compare or measure time does not move the next timestamp on', () => {
    const clock = monotonicClock(() => 1000);
    for (let i = 0; i < 10_000; i += 1) clock.reading();
    const stamp = clock.now();
    expect([stamp.getTime(), microsecondOf(stamp)]).toEqual([1000, 0]);
  });

  test('a timestamp is a Date to the millisecond that shows its microseconds in JSON', () => {
    const clock = monotonicClock(() => Date.UTC(2026, 10, 28, 13, 19, 25, 123));
    clock.now();
    const stamp = clock.now();
    expect(stamp).toBeInstanceOf(Date);
    expect(stamp.toISOString()).toBe('2026-11-28T13:19:25.123Z');
    expect(JSON.stringify({ at: stamp })).toBe('{"at":"2026-11-28T13:19:25.123001Z"}');
  });
});
