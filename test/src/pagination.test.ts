import { describe, expect, test } from '@jest/globals';
import { createTestApp, credentials, useTestApp } from '../helpers/app.js';

interface Listed {
  count: number;
  next: string | null;
  previous: string | null;
  results: { id: number; title: string }[];
}

describe('pagination of the comment list', () => {
  const alice = credentials('alice');
  const ids: number[] = [];

  const list = async (query = ''): Promise<{ status: number; body: Listed }> => {
    const res = await t.http.get(`/comments/${query}`).auth(...alice);
    return { status: res.status, body: res.body as Listed };
  };
  /** Links are absolute; compare what follows the host. */
  const local = (url: string | null) => (url === null ? null : url.replace(/^http:\/\/127\.0\.0\.1:\d+/, ''));

  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    for (let i = 1; i <= 8; i += 1) {
      const res = await t.http.post('/comments/').auth(...alice).send({ title: `c${i}`, body: 'x' });
      ids.push(res.body.id);
    }
    // The test of links naming the client's host sends one that is allowed besides supertest's own.
  }, { ALLOWED_HOSTS: '127.0.0.1, api.example.test' });

  test('the default page has 2 comments, newest first, and a link to page 2', async () => {
    const { body } = await list();
    expect(body.count).toBe(8);
    expect(body.results.map((c) => c.title)).toEqual(['c8', 'c7']);
    expect(local(body.next)).toBe('/comments/?page=2');
    expect(body.previous).toBeNull();
  });

  test('next and previous are absolute URLs of the host the client used', async () => {
    const res = await t.http.get('/comments/?page=2').auth(...alice).set('Host', 'api.example.test:8080');
    expect(res.body.next).toBe('http://api.example.test:8080/comments/?page=3');
    expect(res.body.previous).toBe('http://api.example.test:8080/comments/');
  });

  test('the previous link of page 2 has no page parameter', async () => {
    const { body } = await list('?page=2');
    expect(local(body.previous)).toBe('/comments/');
    expect(local(body.next)).toBe('/comments/?page=3');
  });

  test('page=last is the last page, whose next is null', async () => {
    const { status, body } = await list('?page=last');
    expect(status).toBe(200);
    expect(body.results.map((c) => c.title)).toEqual(['c2', 'c1']);
    expect(body.next).toBeNull();
    expect(local(body.previous)).toBe('/comments/?page=3');
  });

  test.each(['0', '-1', 'abc', '', '5', '999', '1.0', '99999999999999999999999'])(
    'page=%s is the invalid-page error',
    async (page) => {
      const { status, body } = await list(`?page=${page}`);
      expect(status).toBe(404);
      expect(body).toEqual({ detail: '不正なページです。' });
    },
  );

  test.each([
    ['1', 1],
    ['5', 5],
    ['6', 5],
    ['100', 5],
    ['0', 2],
    ['-1', 2],
    ['abc', 2],
    ['', 2],
  ])('page_size=%s gives pages of %i', async (size, expected) => {
    const { status, body } = await list(`?page_size=${size}`);
    expect(status).toBe(200);
    expect(body.results).toHaveLength(expected);
  });

  test('links keep page_size and every other parameter, sorted by name', async () => {
    const { body } = await list('?page=2&page_size=3&foo=bar');
    expect(local(body.next)).toBe('/comments/?foo=bar&page=3&page_size=3');
    expect(local(body.previous)).toBe('/comments/?foo=bar&page_size=3');
  });

  test('a clamped page_size applies to paging too', async () => {
    const { body } = await list('?page=2&page_size=6');
    expect(body.results).toHaveLength(3);
    expect(body.next).toBeNull();
    expect(local(body.previous)).toBe('/comments/?page_size=6');
  });

  test('repeated parameters use their last value, and the links keep them all', async () => {
    const { body } = await list('?page=1&page=2&tag=a&tag=b');
    expect(body.results.map((c) => c.title)).toEqual(['c6', 'c5']);
    expect(local(body.next)).toBe('/comments/?page=3&tag=a&tag=b');
  });

  test('encoded parameters stay encoded in the links', async () => {
    const { body } = await list('?q=a%26b%20c');
    expect(local(body.next)).toBe('/comments/?page=2&q=a%26b+c');
  });

  test('paging without the trailing slash keeps the path as sent', async () => {
    const res = await t.http.get('/comments?page_size=4').auth(...alice);
    expect(res.status).toBe(200);
    expect(local(res.body.next)).toBe('/comments?page=2&page_size=4');
  });

  test('an updated comment moves to the top of the list', async () => {
    const oldest = ids[0];
    await t.http.patch(`/comments/${oldest}/`).auth(...alice).send({ body: 'bumped' });
    const { body } = await list();
    expect(body.results[0]?.id).toBe(oldest);
    expect(body.results[1]?.title).toBe('c8');
  });

  test('comments updated in the same millisecond still order by id, newest first', async () => {
    const model = t.services.registry.get('Comment').model;
    const same = new Date('2030-01-01T00:00:00.000Z');
    // Sequelize skips an update that would set only the timestamp, so the body is rewritten too.
    await model.update({ updated_at: same, body: 'x' }, { where: { id: [ids[3], ids[4]] }, silent: true });
    const { body } = await list();
    expect(body.results.map((c) => c.id)).toEqual([ids[4], ids[3]]);
  });

  test('page 1 of an empty table exists; page 2 does not', async () => {
    const empty = await createTestApp();
    try {
      await empty.createUser('alice');
      const first = await empty.http.get('/comments/?page=last').auth(...alice);
      expect(first.body).toEqual({ count: 0, next: null, previous: null, results: [] });
      const second = await empty.http.get('/comments/?page=2').auth(...alice);
      expect(second.status).toBe(404);
    } finally {
      await empty.close();
    }
  });
});
