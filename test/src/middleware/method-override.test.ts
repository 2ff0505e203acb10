import { beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { apiToken, credentials, useTestApp } from '../../helpers/app.js';
import { browserLogin } from '../../helpers/pages.js';

describe("Laravel's method spoofing on the token site", () => {
  let token = '';
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  });
  beforeAll(async () => {
    token = await apiToken(t, 'alice');
  });
  const json = { Accept: 'application/json' };
  const create = async (): Promise<number> =>
    ((await t.http.post('/api/comments').auth(token, { type: 'bearer' }).set(json).send({ title: 'spoofed', body: 'by a form' })).body as { comment: { id: number } }).comment.id;

  test('a form POST with _method=PUT updates, one with _method=DELETE deletes', async () => {
    const id = await create();
    const put = await t.http.post(`/api/comments/${id}`).auth(token, { type: 'bearer' }).set(json).type('form').send({ _method: 'put', title: 'put by a form', body: 'still' });
    expect([put.status, put.body.comment?.title]).toEqual([200, 'put by a form']);
    const gone = await t.http.post(`/api/comments/${id}`).auth(token, { type: 'bearer' }).set(json).type('form').send({ _method: 'DELETE' });
    expect([gone.status, gone.body]).toEqual([200, []]);
    expect((await t.http.get(`/api/comments/${id}`).auth(token, { type: 'bearer' }).set(json)).status).toBe(404);
  });

  test('X-HTTP-Method-Override makes a POST a PATCH, whatever its body', async () => {
    const id = await create();
    const patched = await t.http.post(`/api/comments/${id}`).auth(token, { type: 'bearer' }).set({ ...json, 'X-HTTP-Method-Override': 'PATCH' }).send({ title: 'patched' });
    expect([patched.status, patched.body.comment?.title, patched.body.comment?.body]).toEqual([200, 'patched', 'by a form']);
  });

  test('a POST that names GET, or no method, stays a POST', async () => {
    const id = await create();
    const res = await t.http.post(`/api/comments/${id}`).auth(token, { type: 'bearer' }).set(json).type('form').send({ _method: 'GET' });
    expect(res.status).toBe(405);
  });

  test('a spoofed form too large to read is answered 413, not as the POST its route does not take', async () => {
    const id = await create();
    // Past the recording of answers: the POST it stays is no operation of the description, and the 413 comes before any.
    const res = await request(t.app).post(`/api/comments/${id}`).auth(token, { type: 'bearer' }).set(json).type('form').send({ _method: 'PUT', title: 'x', body: 'y'.repeat(2_000_000) });
    expect([res.status, res.body.message]).toEqual([413, expect.any(String)]);
  });

  test('a session that spoofs a DELETE still needs its CSRF token (419)', async () => {
    const { agent } = await browserLogin(t.app, 'alice');
    const id = await create();
    const res = await agent.post(`/api/comments/${id}`).set(json).type('form').send({ _method: 'DELETE' });
    expect(res.status).toBe(419);
    expect((await t.http.get(`/api/comments/${id}`).auth(token, { type: 'bearer' }).set(json)).status).toBe(200);
  });

  test("the root site, Django REST Framework's, does not spoof", async () => {
    const res = await t.http.post('/comments/1/').auth(...credentials('alice')).set(json).type('form').send({ _method: 'PUT', title: 'no', body: 'no' });
    expect(res.status).toBe(405);
  });
});
