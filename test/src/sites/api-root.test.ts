import { describe, expect, test } from '@jest/globals';
import { apiToken, useTestApp } from '../../helpers/app.js';

const ORIGIN = /^http:\/\/127\.0\.0\.1:\d+/;
/** Each link's path: supertest serves every request on a port of its own. */
const paths = (body: Record<string, string>) => Object.fromEntries(Object.entries(body).map(([key, url]) => [key, url.replace(ORIGIN, '')]));

describe('the API roots', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  });

  test('a visitor at / gets a link to every list of both sites, the description and the admin, with no credentials', async () => {
    const res = await t.http.get('/').set('Accept', 'application/json');
    expect(res.status).toBe(200);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(paths(res.body)).toEqual({ comments: '/comments/', 'api/comments': '/api/comments', docs: '/docs', admin: '/admin' });
    // The root site's own lists come first, as Django REST Framework's DefaultRouter lists them.
    expect(Object.keys(res.body)[0]).toBe('comments');
  });

  test('every link of the root leads somewhere that answers', async () => {
    const root = await t.http.get('/');
    for (const url of Object.values(root.body as Record<string, string>)) {
      const path = url.replace(ORIGIN, '');
      const res = await t.http.get(path);
      expect({ path, found: res.status !== 404 && res.status < 500 }).toEqual({ path, found: true });
    }
  });

  test('the same root answers a logged-in client, with the same links', async () => {
    const visitor = await t.http.get('/');
    const alice = await t.http.get('/').auth('alice', 'alice-password');
    expect(alice.status).toBe(200);
    expect(paths(alice.body)).toEqual(paths(visitor.body));
  });

  test('/api answers with the token site own root, with or without its trailing slash', async () => {
    for (const path of ['/api', '/api/']) {
      const res = await t.http.get(path).set('Accept', 'application/json');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ comments: expect.stringMatching(new RegExp(`${ORIGIN.source}/api/comments$`)) });
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    }
  });

  test('a bearer token reads /api too', async () => {
    const token = await apiToken(t, 'alice');
    const res = await t.http.get('/api').auth(token, { type: 'bearer' });
    expect(res.status).toBe(200);
  });

  test('a browser at / sees the links as links, named in its language', async () => {
    const ja = await t.http.get('/').set('Accept', 'text/html');
    expect(ja.status).toBe(200);
    expect(ja.text).toContain('<h1>APIルート</h1>');
    expect(ja.text).toMatch(/&quot;<a href="http:\/\/127\.0\.0\.1:\d+\/api\/comments">/);
    expect(ja.text).toMatch(/&quot;<a href="http:\/\/127\.0\.0\.1:\d+\/docs">/);
    const en = await t.http.get('/api/').set({ Accept: 'text/html', 'Accept-Language': 'en' });
    expect(en.status).toBe(200);
    expect(en.text).toContain('<h1>Api Root</h1>');
  });

  test('writing to a root is refused with 405 in the site shape', async () => {
    const root = await t.http.post('/').auth('alice', 'alice-password').send({});
    expect(root.status).toBe(405);
    expect(root.body).toEqual({ detail: expect.any(String) });
    const api = await t.http.post('/api').set('Accept', 'application/json').send({});
    expect(api.status).toBe(405);
    expect(api.body).toEqual({ message: expect.any(String) });
  });
});
