import { describe, expect, test } from '@jest/globals';
import { ApiError } from '../../../src/errors.js';
import { decodeCursor, encodeCursor } from '../../../src/pagination/keyset.js';
import { pageWindow } from '../../../src/pagination/laravel.js';
import { field } from '../../../src/resource.js';

const fields = { id: field.id(), title: field.string(), updated_at: field.updatedAt(), done: field.boolean() };
const order: [string, 'ASC' | 'DESC'][] = [
  ['updated_at', 'DESC'],
  ['id', 'DESC'],
];

describe('cursors', () => {
  test('carry the ordering values and the direction, and read back the same', () => {
    const cursor = { values: ['2026-01-01 00:00:01.123456+00', 7], forward: false };
    const encoded = encodeCursor(order, cursor);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(JSON.parse(Buffer.from(encoded, 'base64url').toString())).toEqual({ updated_at: '2026-01-01 00:00:01.123456+00', id: 7, _pointsToNextItems: false });
    expect(decodeCursor(encoded, order, fields)).toEqual(cursor);
  });

  test('an empty cursor is the first page', () => {
    expect(decodeCursor('', order, fields)).toBeNull();
  });

  const encode = (payload: unknown): string => Buffer.from(JSON.stringify(payload)).toString('base64url');
  test.each([
    ['not base64', '!!!'],
    ['not JSON', Buffer.from('nope').toString('base64url')],
    ['a list', encode([1, 2])],
    ['without a direction', encode({ updated_at: '2026-01-01 00:00:00', id: 1 })],
    ['another ordering', encode({ id: 1, updated_at: '2026-01-01 00:00:00', _pointsToNextItems: true })],
    ['a field too many', encode({ updated_at: '2026-01-01 00:00:00', id: 1, title: 'x', _pointsToNextItems: true })],
    ['an id as text', encode({ updated_at: '2026-01-01 00:00:00', id: '1', _pointsToNextItems: true })],
    ['an unsafe id', encode({ updated_at: '2026-01-01 00:00:00', id: 2 ** 60, _pointsToNextItems: true })],
    ['a time that is no time', encode({ updated_at: "1' OR '1'='1", id: 1, _pointsToNextItems: true })],
    ['an impossible time', encode({ updated_at: '2026-02-30 25:61:00', id: 1, _pointsToNextItems: true })],
    ['too long', 'A'.repeat(5000)],
  ])('%s is the invalid-cursor error', (_name, encoded) => {
    expect(() => decodeCursor(encoded, order, fields)).toThrow(new ApiError('invalid_cursor'));
  });

  test('a boolean or text ordering carries its own kind', () => {
    const mixed: [string, 'ASC' | 'DESC'][] = [['done', 'ASC'], ['title', 'ASC'], ['id', 'ASC']];
    const cursor = { values: [true, 'a "title"', 3], forward: true };
    expect(decodeCursor(encodeCursor(mixed, cursor), mixed, fields)).toEqual(cursor);
  });
});

describe("Laravel's page links window", () => {
  test('few pages are all linked', () => {
    expect(pageWindow(1, 5)).toEqual([1, 2, 3, 4, 5]);
    expect(pageWindow(3, 13)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
  });

  test('near the start: the first ten, a gap, the last two', () => {
    expect(pageWindow(1, 50)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null, 49, 50]);
    expect(pageWindow(7, 50)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, null, 49, 50]);
  });

  test('in the middle: the first two, the current one with three each side, the last two', () => {
    expect(pageWindow(25, 50)).toEqual([1, 2, null, 22, 23, 24, 25, 26, 27, 28, null, 49, 50]);
  });

  test('near the end, and past it: the first two, a gap, the last ten', () => {
    expect(pageWindow(50, 50)).toEqual([1, 2, null, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50]);
    expect(pageWindow(900, 500_000)).toEqual([1, 2, null, 897, 898, 899, 900, 901, 902, 903, null, 499_999, 500_000]);
    expect(pageWindow(600_000, 500_000)).toHaveLength(13);
  });
});
