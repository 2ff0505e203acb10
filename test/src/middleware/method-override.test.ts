import { beforeAll, describe, expect, test } from '@jest/globals';
import { apiToken, credentials, useTestApp } from '../../helpers/app.js';

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

  test("the root site, Django REST Framework's, does not spoof", async () => {
    const res = await t.http.post('/comments/1/').auth(...credentials('alice')).set(json).type('form').send({ _method: 'PUT', title: 'no', body: 'no' });
    expect(res.status).toBe(405);
  });
});
