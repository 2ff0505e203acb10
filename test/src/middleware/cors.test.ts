import { describe, expect, test } from '@jest/globals';
import { apiToken, useTestApp } from '../../helpers/app.js';

const ORIGIN = 'http://localhost:5173';
const preflight = { Origin: ORIGIN, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization,content-type' };

describe("cross-origin calls to the token site, as Laravel's skeleton allows them", () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  });

  test('a preflight is answered 204 before any authentication, allowing any origin, the method and the headers asked', async () => {
    const res = await t.http.options('/api/comments').set(preflight);
    expect(res.status).toBe(204);
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'authorization,content-type',
    });
    expect(res.headers['access-control-allow-methods']).toContain('POST');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect((await t.http.options('/sanctum/csrf-cookie').set({ ...preflight, 'Access-Control-Request-Method': 'GET' })).status).toBe(204);
  });

  test("an answer to another origin's script says it may read it, and which headers (its ETag)", async () => {
    const res = await t.http.get('/api/comments').auth(await apiToken(t, 'alice'), { type: 'bearer' }).set({ Origin: ORIGIN, Accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-expose-headers']).toBe('ETag,Retry-After');
    // What a cache keeps for one origin, or for none, is not served to another.
    expect(res.headers.vary).toBe('Accept, Accept-Language, Cookie, X-Requested-With, Origin');
    const without = await t.http.get('/api/comments').auth(await apiToken(t, 'alice'), { type: 'bearer' });
    expect(without.headers.vary).toBe('Accept, Accept-Language, Cookie, X-Requested-With, Origin');
  });

  test('an OPTIONS that is no preflight is still the API\u2019s own answer, with the headers', async () => {
    const res = await t.http.options('/api/comments').auth(await apiToken(t, 'alice'), { type: 'bearer' }).set({ Origin: ORIGIN, Accept: 'application/json' });
    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('name');
    expect(res.headers['access-control-allow-origin']).toBe('*');
  });

  test('a request that names no origin, and the root site, get no CORS header: their answers are as they were', async () => {
    const same = await t.http.get('/api/comments').auth(await apiToken(t, 'alice'), { type: 'bearer' });
    expect(Object.keys(same.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const root = await t.http.options('/comments/').set(preflight);
    expect(Object.keys(root.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });
});

describe('CORS_ALLOWED_ORIGINS', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  }, { CORS_ALLOWED_ORIGINS: `${ORIGIN}, https://app.example.com` });

  test('listed origins may call with their cookies; any other origin is told nothing', async () => {
    const listed = await t.http.options('/api/comments').set(preflight);
    expect(listed.headers).toMatchObject({ 'access-control-allow-origin': ORIGIN, 'access-control-allow-credentials': 'true' });
    const other = await t.http.options('/api/comments').set({ ...preflight, Origin: 'https://evil.example' });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('CORS_ALLOWED_ORIGINS=off', () => {
  const t = useTestApp(undefined, { CORS_ALLOWED_ORIGINS: 'off' });

  test('no answer tells another origin it may read it', async () => {
    const res = await t.http.options('/api/comments').set(preflight);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});
