import { describe, expect, test } from '@jest/globals';
import { ApiError } from '../../../src/errors.js';
import { CursorCodec } from '../../../src/pagination/cursor-codec.js';
import { pageWindow } from '../../../src/pagination/laravel.js';
import { field } from '../../../src/resource.js';

const fields = { id: field.id(), title: field.string(), updated_at: field.updatedAt(), done: field.boolean() };
const order: [string, 'ASC' | 'DESC'][] = [
  ['updated_at', 'DESC'],
  ['id', 'DESC'],
];

describe('cursors', () => {
  const codec = new CursorCodec('a secret of this test', 'paginated');
  const cursor = { values: ['2026-01-01 00:00:01.123456+00', 7], forward: false };

  test('read back the values and the direction they were sealed with', () => {
    const encoded = codec.encode('Comment', order, cursor);
    expect(encoded).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(codec.decode('Comment', encoded, order, fields)).toEqual(cursor);
    const inclusive = { ...cursor, inclusive: true };
    expect(codec.decode('Comment', codec.encode('Comment', order, inclusive), order, fields)).toEqual(inclusive);
  });

  test('show nothing of what they hold', () => {
    const encoded = codec.encode('Comment', order, cursor);
    expect(Buffer.from(encoded, 'base64url').toString('latin1')).not.toContain('2026');
    expect(encoded).not.toBe(codec.encode('Comment', order, cursor));
  });

  test('an empty cursor is the first page', () => {
    expect(codec.decode('Comment', '', order, fields)).toBeNull();
  });

  const sealed = codec.encode('Comment', order, cursor);
  const flipped = Buffer.from(sealed, 'base64url');
  flipped[20] = (flipped[20] ?? 0) ^ 1;
  test.each([
    ['not base64', '!!!'],
    ['too short', 'AAAA'],
    ['too long', 'A'.repeat(5000)],
    ['edited', flipped.toString('base64url')],
    ['of another list', new CursorCodec('a secret of this test', 'paginated').encode('Tag', order, cursor)],
    ['of another order', codec.encode('Comment', [['id', 'ASC']], { values: [7], forward: true })],
    ['of another site', new CursorCodec('a secret of this test', 'token').encode('Comment', order, cursor)],
    ['under another secret', new CursorCodec('another secret', 'paginated').encode('Comment', order, cursor)],
    ['holding values of the wrong kinds', codec.encode('Comment', order, { values: ["1' OR '1'='1", '7'], forward: true })],
    ['holding an impossible time', codec.encode('Comment', order, { values: ['2026-02-30 25:61:00', 7], forward: true })],
    ['holding too few values', codec.encode('Comment', order, { values: [7], forward: true })],
  ])('%s is the invalid-cursor error', (_name, encoded) => {
    expect(() => codec.decode('Comment', encoded, order, fields)).toThrow(new ApiError('invalid_cursor'));
  });

  test('a boolean or text ordering carries its own kind', () => {
    const mixed: [string, 'ASC' | 'DESC'][] = [['done', 'ASC'], ['title', 'ASC'], ['id', 'ASC']];
    const place = { values: [true, 'a "title"', 3], forward: true };
    expect(codec.decode('Comment', codec.encode('Comment', mixed, place), mixed, fields)).toEqual(place);
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
