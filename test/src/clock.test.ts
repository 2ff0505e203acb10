import { describe, expect, test } from '@jest/globals';
import { monotonicClock } from '../../src/clock.js';

describe('the clock', () => {
  test('readings within one millisecond still increase', () => {
    const clock = monotonicClock(() => 1000);
    expect([clock.now(), clock.now(), clock.now()].map((date) => date.getTime())).toEqual([1000, 1001, 1002]);
  });

  test('it follows the source again once the source is ahead', () => {
    let source = 1000;
    const clock = monotonicClock(() => source);
    clock.now();
    clock.now();
    source = 5000;
    expect(clock.now().getTime()).toBe(5000);
  });

  test('a source that steps back never makes time go backwards', () => {
    let source = 5000;
    const clock = monotonicClock(() => source);
    clock.now();
    source = 4000;
    expect(clock.now().getTime()).toBe(5001);
  });

  test('taking a reading to measure time does not move the next timestamp on', () => {
    const clock = monotonicClock(() => 1000);
    expect([clock.reading(), clock.reading(), clock.reading()]).toEqual([1000, 1000, 1000]);
    expect(clock.now().getTime()).toBe(1000);
  });
});
