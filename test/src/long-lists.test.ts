import { describe, expect, test } from '@jest/globals';
import { canContinueAfter, readInBatches } from '../../src/batches.js';
import { Serializer } from '../../src/serializers.js';
import { utcTimestamp } from '../../src/timestamps.js';
import type { OrderedQuery } from '../../src/pagination/types.js';
import { apiToken, credentials, useTestApp } from '../helpers/app.js';

/** More rows than a direct OFFSET serves from either end (1,000), and than one batch of a streamed list. */
const COMMENTS = 2_503;
/** Timestamps repeat every 7 rows, so that the id decides the order within each group of equal times. */
const TIED = 7;

interface Shown {
  id: number;
  updated_at: string;
}

describe('lists longer than one query reads at once', () => {
  let token: string;
  const t = useTestApp(async (t) => {
    const alice = await t.createUser('alice');
    const start = Date.UTC(2026, 0, 1);
    const rows = Array.from({ length: COMMENTS }, (_, i) => {
      const time = new Date(start + Math.floor(i / TIED) * 60_000);
      return { title: `t${i}`, body: `b${i}`, user_id: alice.id, created_at: time, updated_at: time };
    });
    await t.services.registry.get('Comment').model.bulkCreate(rows);
    token = await apiToken(t, 'alice');
  });

  /** The paginated site's order, newest update first and the higher id first among equal times, as the database sees it. */
  async function expectedOrder(): Promise<number[]> {
    const rows = await t.services.registry.get('Comment').model.findAll({ attributes: ['id', 'updated_at'], raw: true });
    const keyed = rows as unknown as { id: number; updated_at: Date | string }[];
    const time = (row: { updated_at: Date | string }): number => new Date(row.updated_at).getTime();
    return keyed.sort((a, b) => time(b) - time(a) || b.id - a.id).map((row) => row.id);
  }

  const page = (query: string) => t.http.get(`/comments/?${query}`).auth(...credentials('alice'));

  test.each([1, 2, 100, 201, 250, 251, 300, 401, 500, 501])(
    'page %i of five shows the same rows as slicing the whole ordered list',
    async (number) => {
      const order = await expectedOrder();
      const res = await page(`page=${number}&page_size=5`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(COMMENTS);
      expect((res.body.results as Shown[]).map((row) => row.id)).toEqual(order.slice((number - 1) * 5, number * 5));
    },
  );

  test('the last page, by number and as page=last, holds the remainder in order', async () => {
    const order = await expectedOrder();
    const last = Math.ceil(COMMENTS / 5);
    const byNumber = await page(`page=${last}&page_size=5`);
    const byName = await page('page=last&page_size=5');
    expect((byNumber.body.results as Shown[]).map((row) => row.id)).toEqual(order.slice((last - 1) * 5));
    // supertest gives each request its own port: compare the links by path.
    expect(byName.body.results).toEqual(byNumber.body.results);
    expect(new URL(byName.body.previous as string).search).toBe(`?page=${last - 1}&page_size=5`);
    expect(byName.body.next).toBeNull();
  });

  test('walking every page visits every comment once', async () => {
    const seen: number[] = [];
    for (let number = 1; number <= Math.ceil(COMMENTS / 5); number += 1) {
      const res = await page(`page=${number}&page_size=5`);
      seen.push(...(res.body.results as Shown[]).map((row) => row.id));
    }
    expect(seen).toEqual(await expectedOrder());
  });

  test('GET /api/comments answers every comment in id order, written in pieces (chunked)', async () => {
    const res = await t.http.get('/api/comments').auth(token, { type: 'bearer' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['transfer-encoding']).toBe('chunked');
    const ids = (res.body.comments as Shown[]).map((row) => row.id);
    expect(ids).toHaveLength(COMMENTS);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(COMMENTS);
    expect(Object.keys(res.body.comments[0] as object)).toEqual(['id', 'title', 'body', 'updated_at']);
  });

  test('a comment in the streamed list reads exactly as the same comment read alone', async () => {
    const list = await t.http.get('/api/comments').auth(token, { type: 'bearer' });
    const shown = list.body.comments as Shown[];
    for (const item of [shown[0], shown[1_234], shown.at(-1)]) {
      const alone = await t.http.get(`/api/comments/${item?.id}`).auth(token, { type: 'bearer' });
      const { owner, ...fields } = alone.body.comment as Record<string, unknown>;
      expect(owner).toBe('alice');
      expect(item).toEqual(fields);
    }
  });

  test('HEAD /api/comments answers the headers of the list without a body', async () => {
    const res = await t.http.head('/api/comments').auth(token, { type: 'bearer' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.text).toBeUndefined();
  });

  test.each([
    ['by id', [['id', 'ASC']], true],
    ['by id, newest first', [['id', 'DESC']], true],
    ['newest first with ties', [['updated_at', 'DESC'], ['id', 'DESC']], true],
    ['oldest first with ties', [['updated_at', 'ASC'], ['id', 'ASC']], true],
    ['mixed directions', [['updated_at', 'DESC'], ['id', 'ASC']], true],
    ['by title, then newest', [['title', 'ASC'], ['id', 'DESC']], true],
    ['by a nullable column', [['user_id', 'ASC'], ['id', 'ASC']], false],
  ] as const)('reading in batches (%s) gives what one query gives', async (_case, order, keyset) => {
    const comments = t.services.registry.get('Comment');
    const query: OrderedQuery = { order: order.map(([name, direction]) => [name, direction]) };
    expect(canContinueAfter(comments.declaration.fields, query.order)).toBe(keyset);
    const whole = (await comments.model.findAll(query)).map((row) => row.get('id'));
    const batched: unknown[] = [];
    for await (const rows of readInBatches({ model: comments.model, fields: comments.declaration.fields, query, keyset, size: 10 })) batched.push(...rows.map((row) => row.id));
    expect(batched).toEqual(whole);
  });
});

describe('rows read as plain values', () => {
  const t = useTestApp();

  test('show the same as model instances: times from text, booleans from numbers, a missing owner as null', async () => {
    const serializer = new Serializer(t.services.registry.get('Comment'), { fields: ['id', 'title', 'updated_at', 'owner'], formatTimestamp: utcTimestamp, readOnly: true });
    const stored = { id: 7, title: 'x', updated_at: '2026-01-02 03:04:05.678 +00:00' };
    expect(serializer.representPlain({ ...stored, owner: { id: 3, name: 'Alice', username: 'alice' } })).toEqual({
      id: 7,
      title: 'x',
      updated_at: utcTimestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678))),
      owner: 'Alice',
    });
    expect(serializer.representPlain({ ...stored, updated_at: '2026-01-02 03:04:05.678', owner: { id: null, name: null, username: null } })).toMatchObject({
      updated_at: utcTimestamp(new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678))),
      owner: null,
    });
    // An owner whose names are all empty is still an owner: '' as the model instance shows it, not null.
    expect(serializer.representPlain({ ...stored, owner: { id: 3, name: null, username: null } })).toMatchObject({ owner: '' });
    const users = new Serializer(t.services.registry.users(), { fields: ['is_staff'], formatTimestamp: utcTimestamp, readOnly: true });
    expect(users.representPlain({ is_staff: 1 })).toEqual({ is_staff: true });
    expect(users.representPlain({ is_staff: 0 })).toEqual({ is_staff: false });
  });
});

describe('times that do not come back as they were written', () => {
  const t = useTestApp(async (t) => {
    const start = Date.UTC(2026, 0, 1);
    const rows = Array.from({ length: 25 }, (_, i) => ({ title: `t${i}`, body: 'b', created_at: new Date(start), updated_at: new Date(start + Math.floor(i / 3) * 1000) }));
    const comments = t.services.registry.get('Comment').model;
    await comments.bulkCreate(rows);
    // What imports and other writers leave: SQLite text without milliseconds or offset, PostgreSQL microseconds.
    const sql = t.services.sequelize.getDialect() === 'postgres'
      ? "UPDATE comments SET updated_at = updated_at + id * interval '1 microsecond'"
      : 'UPDATE comments SET updated_at = substr(updated_at, 1, 19) WHERE id % 2 = 0';
    await t.services.sequelize.query(sql);
  });

  test.each([
    ['newest first', 'DESC'],
    ['oldest first', 'ASC'],
  ] as const)('a list ordered by time (%s) reads every row once, in batches as in one query', async (_case, direction) => {
    const comments = t.services.registry.get('Comment');
    const query: OrderedQuery = { order: [['updated_at', direction], ['id', direction]] };
    const keyset = canContinueAfter(comments.declaration.fields, query.order);
    expect(keyset).toBe(true);
    const whole = (await comments.model.findAll(query)).map((row) => row.get('id'));
    const batched: unknown[] = [];
    const statements: string[] = [];
    const logged: OrderedQuery = { ...query, logging: (sql: string) => statements.push(sql) };
    for await (const rows of readInBatches({ model: comments.model, fields: comments.declaration.fields, query: logged, keyset, size: 4 })) batched.push(...rows.map((row) => row.id));
    expect(batched).toEqual(whole);
    expect(statements.length).toBeGreaterThan(5);
    // Each batch starts after the last row's time as the database wrote it: no OFFSET walks the rows before.
    expect(statements.filter((sql) => /OFFSET [1-9]/.test(sql))).toEqual([]);
  });
});

describe('an empty list', () => {
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
  });

  test('GET /api/comments streams an empty list as []', async () => {
    const token = await apiToken(t, 'alice');
    const res = await t.http.get('/api/comments').auth(token, { type: 'bearer' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ comments: [] });
  });
});
