import { describe, expect, test } from '@jest/globals';
import { utcTimestamp, zonedTimestampFormatter } from '../../src/timestamps.js';

describe('timestamps', () => {
  const instant = new Date(Date.UTC(2026, 10, 21, 16, 33, 16, 194));

  test('UTC timestamps have six fractional digits and a Z', () => {
    expect(utcTimestamp(instant)).toBe('2026-11-21T16:33:16.194000Z');
  });

  test('the paginated site shows UTC without a zone by default', () => {
    expect(zonedTimestampFormatter('UTC')(instant)).toBe('2026-11-21T16:33:16.194000');
  });

  test('a configured time zone shifts the wall-clock time and still shows no zone', () => {
    expect(zonedTimestampFormatter('Asia/Tokyo')(instant)).toBe('2026-11-22T01:33:16.194000');
  });

  test('midnight is written as hour 00, not 24', () => {
    const midnight = new Date(Date.UTC(2026, 0, 1, 15, 0, 0, 5));
    expect(zonedTimestampFormatter('Asia/Tokyo')(midnight)).toBe('2026-01-02T00:00:00.005000');
  });
});
