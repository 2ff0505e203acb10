import { describe, expect, jest, test } from '@jest/globals';
import type { Request } from 'express';
import { expectsJson } from '../../../src/sites/token.js';
import { apiToken, useTestApp, type TestApp } from '../../helpers/app.js';

const UNAUTHENTICATED = { message: 'Unauthenticated.' };

function fakeRequest(headers: Record<string, string>, query: Record<string, string> = {}): Request {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  const search = new URLSearchParams(query).toString();
  const url = search ? `/api/user?${search}` : '/api/user';
  return { headers: lower, url, originalUrl: url, get: (name: string) => lower[name.toLowerCase()] } as unknown as Request;
}

type Headers = Record<string, string>;

/** Every kind of failure the token site can answer, each as a request (with extra headers) that provokes it. */
function failures(t: TestApp, token: () => string) {
  const bearer = (headers: Headers): Headers => ({ Authorization: `Bearer ${token()}`, ...headers });
  return [
    ['401 no token', 401, (headers: Headers) => t.http.get('/api/user').set(headers)],
    ['403 not the owner', 403, async (headers: Headers) => {
      const owner = await apiToken(t, 'other');
      const created = await t.http.post('/api/comments').auth(owner, { type: 'bearer' }).send({ title: 't', body: 'b' });
      return t.http.delete(`/api/comments/${created.body.comment.id}`).set(bearer(headers));
    }],
    ['404 missing comment', 404, (headers: Headers) => t.http.get('/api/comments/424242').set(bearer(headers))],
    ['404 unknown route', 404, (headers: Headers) => t.http.get('/api/nowhere').set(bearer(headers))],
    ['405 wrong method', 405, (headers: Headers) => t.http.post('/api/user').set(bearer(headers))],
    ['400 malformed JSON', 400, (headers: Headers) =>
      t.http.post('/api/comments').set(bearer(headers)).type('json').send('{"title":')],
    ['415 unsupported media type', 415, (headers: Headers) =>
      t.http.post('/api/comments').set(bearer(headers)).type('text/plain').send('x')],
  ] as const;
}

describe('the token site decides between JSON and an HTML error page as Laravel does', () => {
  test.each([
    [{ Accept: 'application/json' }, true],
    [{ Accept: 'application/vnd.api+json' }, true],
    [{ Accept: 'text/plain, application/json' }, true],
    [{ Accept: 'application/json;q=0.5, text/html' }, false],
    [{ Accept: 'application/json;q=0' }, false],
    [{ Accept: '*/*' }, false],
    [{}, false],
    [{ Accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' }, false],
    [{ 'X-Requested-With': 'XMLHttpRequest' }, true],
    [{ 'X-Requested-With': 'XMLHttpRequest', Accept: 'text/html' }, true],
  ])('headers %p expect JSON: %p', (headers, expected) => {
    expect(expectsJson(fakeRequest(headers))).toBe(expected);
  });

  test('?format=json asks for JSON', () => {
    expect(expectsJson(fakeRequest({}, { format: 'json' }))).toBe(true);
  });
});

describe('errors on the token site', () => {
  let token = '';
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    await t.createUser('other');
    token = await apiToken(t, 'alice');
  });

  describe.each(failures(t, () => token))('%s', (_name, status, send) => {
    test('is JSON {"message": …} for a client whose Accept names JSON', async () => {
      const res = await send({ Accept: 'application/json' });
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toBe('application/json');
      expect(Object.keys(res.body)).toEqual(['message']);
      expect(typeof res.body.message).toBe('string');
      expect(res.body.message).not.toBe('');
    });

    test('is JSON for an XMLHttpRequest', async () => {
      const res = await send({ 'X-Requested-With': 'XMLHttpRequest' });
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toBe('application/json');
    });

    test('is an HTML page with the same status for a plain client, without details', async () => {
      const res = await send({});
      expect(res.status).toBe(status);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.text).toContain(`<h1>${status} | `);
      expect(res.text).not.toContain('ApiError');
      expect(res.text).not.toMatch(/at .*\.(ts|js):\d+/);
    });
  });

  test('a missing token says Unauthenticated. with a Bearer challenge', async () => {
    const res = await t.http.get('/api/comments').set('Accept', 'application/json');
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer');
    expect(res.body).toEqual(UNAUTHENTICATED);
  });

  test('the HTML page names the status and the message', async () => {
    const res = await t.http.get('/api/user');
    expect(res.text).toContain('<title>Unauthorized – Comment service</title>');
    expect(res.text).toContain('Unauthenticated.');
  });

  test('messages and pages are Japanese for Accept-Language: ja', async () => {
    const json = await t.http.get('/api/user').set('Accept', 'application/json').set('Accept-Language', 'ja');
    expect(json.body).toEqual({ message: '認証されていません。' });
    const page = await t.http.get('/api/user').set('Accept-Language', 'ja');
    expect(page.text).toContain('<html lang="ja">');
    expect(page.text).toContain('認証されていません。');
  });

  test('the wrong-method message lists what the route supports', async () => {
    const res = await t.http.post('/sanctum/csrf-cookie').set('Accept', 'application/json');
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ message: 'The POST method is not supported for this route. Supported methods: GET, HEAD.' });
  });

  test('an unexpected failure is a 500 whose cause stays out of the answer', async () => {
    const model = t.services.registry.get('Comment').model;
    const spy = jest.spyOn(model, 'findAll').mockRejectedValueOnce(new Error('database on fire'));
    try {
      const res = await t.http.get('/api/comments').auth(token, { type: 'bearer' }).set('Accept', 'application/json');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ message: 'Server Error' });
    } finally {
      spy.mockRestore();
    }
  });
});

describe('errors on the token site with DEBUG on', () => {
  const t = useTestApp(async () => undefined, { DEBUG: '1' });

  test('the HTML page shows the exception class and its stack', async () => {
    const res = await t.http.get('/api/user');
    expect(res.status).toBe(401);
    expect(res.text).toContain('ApiError(not_authenticated)');
    expect(res.text).toMatch(/at .*permissions\.(ts|js)/);
  });

  test('JSON carries the exception and the trace beside the message', async () => {
    const res = await t.http.get('/api/user').set('Accept', 'application/json');
    expect(res.body).toMatchObject({ message: 'Unauthenticated.', exception: 'ApiError(not_authenticated)' });
    expect(Array.isArray(res.body.trace)).toBe(true);
    expect(res.body.trace.length).toBeGreaterThan(0);
  });

  test('an unexpected failure shows its own class and message', async () => {
    await t.createUser('dev');
    const token = await apiToken(t, 'dev');
    const model = t.services.registry.get('Comment').model;
    const spy = jest.spyOn(model, 'findAll').mockRejectedValueOnce(new TypeError('database on fire'));
    try {
      const res = await t.http.get('/api/comments').auth(token, { type: 'bearer' });
      expect(res.status).toBe(500);
      expect(res.text).toContain('TypeError');
      expect(res.text).toContain('database on fire');
    } finally {
      spy.mockRestore();
    }
  });
});

describe('errors on the token site with API_FORCE_JSON on', () => {
  const t = useTestApp(async () => undefined, { API_FORCE_JSON: '1' });

  test('a plain client and a browser get JSON too', async () => {
    for (const accept of ['*/*', 'text/html']) {
      const res = await t.http.get('/api/user').set('Accept', accept);
      expect(res.status).toBe(401);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body).toEqual(UNAUTHENTICATED);
    }
  });
});

describe('the CSRF cookie route', () => {
  const t = useTestApp();

  test.each(['/api/sanctum/csrf-cookie', '/sanctum/csrf-cookie', '/sanctum/csrf-cookie/'])(
    'GET %s answers 204 and sets an XSRF-TOKEN cookie that scripts can read',
    async (path) => {
      const res = await t.http.get(path);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      const cookies = res.headers['set-cookie'] as unknown as string[];
      const cookie = cookies.find((value) => value.startsWith('XSRF-TOKEN='));
      // The session's token, readable by scripts, as long-lived as the session it belongs to.
      expect(cookie).toMatch(/^XSRF-TOKEN=[0-9a-f]{64}; Max-Age=1209600; Path=\/; Expires=.+; SameSite=Lax$/);
      expect(cookie).not.toContain('HttpOnly');
      // An anonymous visitor's token is the signed csrftoken cookie's: no session is stored for it.
      expect(cookies.find((value) => value.startsWith('csrftoken='))).toMatch(/; HttpOnly; SameSite=Lax$/);
      expect(cookies.find((value) => value.startsWith('sessionid='))).toBeUndefined();
    },
  );

  test('HEAD answers 204 as well, and each call gives a new value', async () => {
    const first = await t.http.head('/sanctum/csrf-cookie');
    const second = await t.http.head('/api/sanctum/csrf-cookie');
    expect(first.status).toBe(204);
    expect(second.status).toBe(204);
    const value = (res: typeof first) => (res.headers['set-cookie'] as unknown as string[])[0]?.split(';')[0];
    expect(value(first)).not.toBe(value(second));
  });
});
