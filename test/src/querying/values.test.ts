import { describe, expect, test } from '@jest/globals';
import { filterValue, searchTerms } from '../../../src/querying/values.js';
import { parseTimestamp, parseZonedTimestamp } from '../../../src/timestamps.js';

describe('search terms, cut as Django REST Framework 3.15 cuts them', () => {
  test.each([
    ['tea green', ['tea', 'green']],
    ['  tea\tgreen\n', ['tea', 'green']],
    ['tea,green', ['tea', 'green']],
    ['"green tea" cup', ['green tea', 'cup']],
    ["'green tea'", ['green tea']],
    ['"say \\"hi\\""', ['say "hi"']],
    ['a"b c"d', ['a"b c"d']],
    [',,tea,,', ['tea']],
    ['"', ['"']],
    ['', []],
    ['tea\u0000pot', ['teapot']],
    ['桜\u3000春', ['桜', '春']],
  ])('%j', (text, terms) => {
    expect(searchTerms(text)).toEqual(terms);
  });

  test('at most ten terms of the first 500 characters are read', () => {
    expect(searchTerms(Array.from({ length: 30 }, (_, i) => `t${i}`).join(' '))).toHaveLength(10);
    expect(searchTerms('x'.repeat(10_000))).toEqual(['x'.repeat(500)]);
  });
});

describe('filter values by the kind of their field', () => {
  const utc = (text: string) => parseTimestamp(text);

  test('ids are whole numbers; past a 32-bit id they compare as the nearest bound', () => {
    expect(filterValue('id', ' 42 ', utc)).toEqual({ value: 42 });
    expect(filterValue('reference', '-7', utc)).toEqual({ value: -7 });
    expect(filterValue('id', '99999999999999999999', utc)).toEqual({ value: 2_147_483_648 });
    expect(filterValue('id', '-99999999999999999999', utc)).toEqual({ value: -2_147_483_649 });
    expect(filterValue('id', '1.5', utc)).toEqual({ error: 'enter_whole_number' });
    expect(filterValue('id', '1e3', utc)).toEqual({ error: 'enter_whole_number' });
    expect(filterValue('id', 'abc', utc)).toEqual({ error: 'enter_number' });
    expect(filterValue('id', '0x10', utc)).toEqual({ error: 'enter_number' });
  });

  test('times in ISO 8601, a date alone at midnight; impossible dates are refused', () => {
    expect(filterValue('datetime', '2026-01-01', utc)).toEqual({ value: new Date('2026-01-01T00:00:00Z') });
    expect(filterValue('datetime', '2026-01-01T09:00:00+09:00', utc)).toEqual({ value: new Date('2026-01-01T00:00:00Z') });
    expect(filterValue('datetime', '2026-02-30', utc)).toEqual({ error: 'enter_datetime' });
    expect(filterValue('datetime', '0000-01-01', utc)).toEqual({ error: 'enter_datetime' });
    // Instants a database cannot store, once their zone is applied.
    expect(filterValue('datetime', '0001-01-01T00:00:00+14:00', utc)).toEqual({ error: 'enter_datetime' });
    expect(filterValue('datetime', '9999-12-31T23:59:59-14:00', utc)).toEqual({ error: 'enter_datetime' });
    expect(filterValue('datetime', '0001-01-01T00:00:00', (text) => parseZonedTimestamp(text, 'Asia/Tokyo'))).toEqual({ error: 'enter_datetime' });
    expect(filterValue('datetime', '0001-01-01T00:00:00Z', utc)).toEqual({ value: new Date('0001-01-01T00:00:00Z') });
  });

  test('text keeps what it is, but no NUL character', () => {
    expect(filterValue('string', "50% o'clock_", utc)).toEqual({ value: "50% o'clock_" });
    expect(filterValue('text', 'a\u0000b', utc)).toEqual({ error: 'null_characters' });
  });

  test('booleans in the spellings Django REST Framework accepts', () => {
    expect(filterValue('boolean', 'True', utc)).toEqual({ value: true });
    expect(filterValue('boolean', '0', utc)).toEqual({ value: false });
    expect(filterValue('boolean', 'maybe', utc)).toEqual({ error: 'invalid_boolean' });
  });
});

describe('times without a zone, read in the site\'s zone', () => {
  test('a wall-clock time in Tokyo is nine hours before the same reading in UTC', () => {
    expect(parseZonedTimestamp('2026-01-01T09:00:00', 'Asia/Tokyo')).toEqual(new Date('2026-01-01T00:00:00Z'));
    expect(parseZonedTimestamp('2026-01-01T09:00:00Z', 'Asia/Tokyo')).toEqual(new Date('2026-01-01T09:00:00Z'));
  });

  test('summer and winter time each get their own offset', () => {
    expect(parseZonedTimestamp('2026-07-01 12:00', 'Europe/Paris')).toEqual(new Date('2026-07-01T10:00:00Z'));
    expect(parseZonedTimestamp('2026-01-01 12:00', 'Europe/Paris')).toEqual(new Date('2026-01-01T11:00:00Z'));
  });
});
