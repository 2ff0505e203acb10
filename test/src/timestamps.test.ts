import { describe, expect, test } from '@jest/globals';
import { parseTimestamp, utcTimestamp, zonedTimestampFormatter } from '../../src/timestamps.js';

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

describe('reading timestamps from user data files', () => {
  test("Django's naive timestamp is taken as UTC, its microseconds cut to milliseconds", () => {
    expect(parseTimestamp('2025-04-01T09:30:00.123456')?.toISOString()).toBe('2025-04-01T09:30:00.123Z');
  });

  test('digits past milliseconds are dropped, not rounded into the next second', () => {
    expect(parseTimestamp('2025-12-31T23:59:59.999999')?.toISOString()).toBe('2025-12-31T23:59:59.999Z');
  });

  test("Laravel's timestamp with a space and no zone is taken as UTC", () => {
    expect(parseTimestamp('2025-05-01 10:00:00')?.toISOString()).toBe('2025-05-01T10:00:00.000Z');
  });

  test.each([
    ['Z', '2025-05-01T10:00:00Z', '2025-05-01T10:00:00.000Z'],
    ['+09:00', '2025-05-01T10:00:00+09:00', '2025-05-01T01:00:00.000Z'],
    ['+0900', '2025-05-01 10:00:00+0900', '2025-05-01T01:00:00.000Z'],
    ['-05', '2025-05-01T10:00:00-05', '2025-05-01T15:00:00.000Z'],
    ['+05:30', '2025-05-01T10:00:00.5+05:30', '2025-05-01T04:30:00.500Z'],
  ])('a zone written as %s shifts the time to UTC', (_zone, text, expected) => {
    expect(parseTimestamp(text)?.toISOString()).toBe(expected);
  });

  test('a date alone is midnight UTC', () => {
    expect(parseTimestamp('2025-04-01')?.toISOString()).toBe('2025-04-01T00:00:00.000Z');
  });

  test('a time without seconds has zero seconds', () => {
    expect(parseTimestamp('2025-04-01 09:30')?.toISOString()).toBe('2025-04-01T09:30:00.000Z');
  });

  test('years before 100 are read as written, not moved into the 1900s', () => {
    expect(parseTimestamp('0001-01-01T00:00:00')?.toISOString()).toBe('0001-01-01T00:00:00.000Z');
  });

  test('a leap day exists in a leap year only', () => {
    expect(parseTimestamp('2024-02-29 12:00:00')?.toISOString()).toBe('2024-02-29T12:00:00.000Z');
    expect(parseTimestamp('2025-02-29 12:00:00')).toBeNull();
  });

  test.each([
    ['a day the month does not have', '2025-02-30 10:00:00'],
    ['a thirteenth month', '2025-13-01'],
    ['a month zero', '2025-00-10'],
    ['hour 25', '2025-04-01 25:00:00'],
    ['hour 24', '2025-04-01T24:00:00'],
    ['minute 60', '2025-04-01T09:60:00'],
    ['a second 60', '2025-04-01T09:30:60'],
    ['a time alone', '25:00'],
    ['a word', 'yesterday'],
    ['an empty string', ''],
    ['trailing text', '2025-04-01T09:30:00.123Z trailing'],
    ['a day-first date', '01/04/2025'],
    ['a zone offset with 99 minutes', '2025-05-01T10:00:00+09:99'],
    ['a zone offset beyond 14 hours', '2025-05-01T10:00:00+24:00'],
  ])('%s is refused', (_case, text) => {
    expect(parseTimestamp(text)).toBeNull();
  });
});
