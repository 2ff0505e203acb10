import { describe, expect, test } from '@jest/globals';
import { credentials, useTestApp } from '../helpers/app.js';

const LIST_ALLOW = 'GET, POST, HEAD, OPTIONS';
const DETAIL_ALLOW = 'GET, PUT, PATCH, DELETE, HEAD, OPTIONS';

describe('routing of the paginated site', () => {
  const alice = credentials('alice');
  let id: number;

  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    id = (await t.http.post('/comments/').auth(...alice).send({ title: 'x', body: 'y' })).body.id;
  });

  describe('the trailing slash is optional for every method, without a redirect', () => {
    test.each(['/comments', '/comments/'])('GET and POST %s', async (path) => {
      expect((await t.http.get(path).auth(...alice)).status).toBe(200);
      const created = await t.http.post(path).auth(...alice).type('form').send({ title: 'noslash', body: 'x' });
      expect(created.status).toBe(201);
      expect(created.body.title).toBe('noslash');
    });

    test.each(['', '/'])('GET, PUT, PATCH and DELETE on the detail path with "%s"', async (slash) => {
      const own = (await t.http.post('/comments/').auth(...alice).send({ title: 'a', body: 'b' })).body.id as number;
      const path = `/comments/${own}${slash}`;
      expect((await t.http.get(path).auth(...alice)).status).toBe(200);
      expect((await t.http.put(path).auth(...alice).send({ title: 'put', body: 'b' })).body.title).toBe('put');
      expect((await t.http.patch(path).auth(...alice).send({ title: 'patch' })).body.title).toBe('patch');
      expect((await t.http.delete(path).auth(...alice)).status).toBe(204);
    });

    test('paths are case-sensitive and do not match extra segments', async () => {
      expect((await t.http.get('/COMMENTS/').auth(...alice)).status).toBe(404);
      expect((await t.http.get(`/comments/${id}/extra`).auth(...alice)).status).toBe(404);
      expect((await t.http.get('/comments//').auth(...alice)).status).toBe(404);
    });
  });

  describe('Allow, Vary and Content-Type', () => {
    test.each([
      ['the list', '/comments/', LIST_ALLOW],
      ['a detail', '/comments/1/', DETAIL_ALLOW],
    ])('every answer of %s carries its Allow header, errors included', async (_name, path, allow) => {
      const answers = await Promise.all([
        t.http.get(path).auth(...alice),
        t.http.get(path),
        t.http.get(path).auth('alice', 'wrong'),
        t.http.post(path).auth(...alice).type('text/plain').send('x'),
        t.http.get(`${path}?page=99`).auth(...alice),
      ]);
      for (const res of answers) expect(res.headers.allow).toBe(allow);
    });

    test('JSON answers have exactly Content-Type application/json and vary by Accept and Cookie', async () => {
      for (const res of [await t.http.get('/comments/').auth(...alice), await t.http.get('/comments/')]) {
        expect(res.headers['content-type']).toBe('application/json');
        expect(res.headers.vary).toBe('Accept, Accept-Language, Cookie');
      }
    });

    test('no X-Powered-By header is sent', async () => {
      expect((await t.http.get('/comments/').auth(...alice)).headers['x-powered-by']).toBeUndefined();
    });
  });

  describe('wrong methods', () => {
    test.each([
      ['DELETE', '/comments/', LIST_ALLOW],
      ['PUT', '/comments/', LIST_ALLOW],
      ['PATCH', '/comments', LIST_ALLOW],
      ['POST', '/comments/1/', DETAIL_ALLOW],
    ])('%s %s is 405 with the method named and the Allow header', async (method, path, allow) => {
      const res = await t.http[method.toLowerCase() as 'delete'](path).auth(...alice);
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe(allow);
      expect(res.body).toEqual({ detail: `メソッド "${method}" は許されていません。` });
    });

    test('an unknown method is 405 too', async () => {
      const res = await t.http.trace('/comments/').auth(...alice);
      expect(res.status).toBe(405);
    });

    test('a wrong method without credentials asks for credentials first', async () => {
      const res = await t.http.delete('/comments/');
      expect(res.status).toBe(401);
    });
  });

  describe('HEAD and OPTIONS', () => {
    test('HEAD answers like GET without a body', async () => {
      const get = await t.http.get('/comments/').auth(...alice);
      const head = await t.http.head('/comments/').auth(...alice);
      expect(head.status).toBe(200);
      expect(head.text ?? '').toBe('');
      expect(head.headers['content-type']).toBe('application/json');
      expect(head.headers['content-length']).toBe(get.headers['content-length']);
      expect(head.headers.allow).toBe(LIST_ALLOW);
    });

    test('HEAD without credentials is 401 without a body', async () => {
      const res = await t.http.head('/comments/');
      expect(res.status).toBe(401);
      expect(res.text ?? '').toBe('');
    });

    test('OPTIONS on the list describes the endpoint and the fields a POST takes', async () => {
      const res = await t.http.options('/comments/').auth(...alice).set('Accept-Language', 'en');
      expect(res.status).toBe(200);
      expect(res.headers.allow).toBe(LIST_ALLOW);
      expect(res.body).toEqual({
        name: 'Comment List',
        description: '',
        renders: ['application/json', 'text/html'],
        parses: ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
        actions: {
          POST: {
            id: { type: 'integer', required: false, read_only: true, label: 'ID' },
            title: { type: 'string', required: true, read_only: false, label: 'Title', max_length: 10 },
            body: { type: 'string', required: true, read_only: false, label: 'Body', max_length: 15 },
            updated_at: { type: 'datetime', required: false, read_only: true, label: 'Updated at' },
          },
        },
        // What the list may be asked, in django-filter's and DRF's words (resources/comment.ts, `query`); a reference by its relation's name too.
        filters: [
          'user_id', 'owner', 'user_id__in', 'owner__in', 'user_id__isnull', 'owner__isnull',
          'title', 'title__icontains', 'title__in',
              'updated_at__gt', 'updated_at__gte', 'updated_at__lt', 'updated_at__lte',
        ],
        search_fields: ['title', 'body'],
        ordering_fields: ['id', 'title', 'updated_at'],
        sparse_fields: ['id', 'title', 'body', 'updated_at'],
        expandable_fields: ['owner'],
      });
    });

    test('OPTIONS on a detail lists PUT for the owner and not for others', async () => {
      await t.createUser('bob');
      const owner = await t.http.options(`/comments/${id}/`).auth(...alice);
      expect(owner.body.name).toBe('コメント詳細');
      expect(Object.keys(owner.body.actions)).toEqual(['PUT']);
      const other = await t.http.options(`/comments/${id}/`).auth(...credentials('bob'));
      expect(other.status).toBe(200);
      expect(other.body.actions).toBeUndefined();
    });

    test('OPTIONS needs credentials', async () => {
      const res = await t.http.options('/comments/');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: '認証情報が含まれていません。' });
    });
  });

  describe('unknown paths', () => {
    test('are 404 in the site format, without Allow', async () => {
      const res = await t.http.get('/nope/').auth(...alice);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: '見つかりませんでした。' });
      expect(res.headers.allow).toBeUndefined();
    });

    test('that do not percent-decode are 404, not a server error', async () => {
      for (const path of ['/comments/%zz', '/%E0%A4%A', '/comments/%00']) {
        expect((await t.http.get(path).auth(...alice)).status).toBe(404);
      }
    });

    test('with path traversal are 404', async () => {
      expect((await t.http.get('/comments/..%2F..%2Fetc%2Fpasswd').auth(...alice)).status).toBe(404);
    });
  });
});
