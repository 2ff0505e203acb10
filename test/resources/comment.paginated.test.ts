import { beforeEach, describe, expect, test } from '@jest/globals';
import { credentials, describedAnswerProblems, useTestApp } from '../helpers/app.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;

describe('the comment API at the root (paginated site)', () => {
  const alice = credentials('alice');

  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    await t.createUser('bob');
  });
  beforeEach(async () => {
    await t.services.registry.get('Comment').model.destroy({ where: {} });
  });

  const create = (fields: Record<string, string>) =>
    t.http.post('/comments/').auth(...alice).type('form').send(fields);

  describe('endpoints', () => {
    test('an empty table lists as page 1 with no results', async () => {
      const res = await t.http.get('/comments/').auth(...alice);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ count: 0, next: null, previous: null, results: [] });
    });

    test('creating a comment answers 201 with exactly id, title, body and updated_at', async () => {
      const res = await create({ title: 'first', body: 'hello' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['id', 'title', 'body', 'updated_at']);
      expect(res.body).toMatchObject({ title: 'first', body: 'hello' });
      expect(res.body.updated_at).toMatch(TIMESTAMP);
    });

    test('id and updated_at sent by the client are ignored', async () => {
      const res = await create({ id: '999', title: 'ro', body: 'readonly', updated_at: '2000-01-01T00:00:00' });
      expect(res.status).toBe(201);
      expect(res.body.id).not.toBe(999);
      expect(res.body.updated_at).not.toMatch(/^2000/);
    });

    test('a comment is read back by its pk, by its author and by anyone else logged in', async () => {
      const { body: created } = await create({ title: 'first', body: 'hello' });
      for (const who of [alice, credentials('bob')]) {
        const res = await t.http.get(`/comments/${created.id}/`).auth(...who);
        expect(res.status).toBe(200);
        expect(res.body).toEqual(created);
      }
    });

    test('PUT replaces title and body and answers 200', async () => {
      const { body: created } = await create({ title: 'first', body: 'hello' });
      const res = await t.http.put(`/comments/${created.id}/`).auth(...alice).type('form').send({ title: 'edited', body: 'edited body' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: created.id, title: 'edited', body: 'edited body' });
      expect(res.body.updated_at > created.updated_at).toBe(true);
    });

    test('PUT without body is refused: a full update needs every field', async () => {
      const { body: created } = await create({ title: 'first', body: 'hello' });
      const res = await t.http.put(`/comments/${created.id}/`).auth(...alice).type('form').send({ title: 'partial' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ body: ['この項目は必須です。'] });
    });

    test('PATCH changes only the fields sent', async () => {
      const { body: created } = await create({ title: 'first', body: 'hello' });
      const res = await t.http.patch(`/comments/${created.id}/`).auth(...alice).type('form').send({ title: 'patched' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ title: 'patched', body: 'hello' });
    });

    test('PATCH with a JSON body works like a form', async () => {
      const { body: created } = await create({ title: 'second', body: 'x' });
      const res = await t.http.patch(`/comments/${created.id}`).auth(...alice).send({ body: 'json patch' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ title: 'second', body: 'json patch' });
    });

    test('DELETE answers 204 with no body, and the comment is gone', async () => {
      const { body: created } = await create({ title: 'bye', body: 'x' });
      const res = await t.http.delete(`/comments/${created.id}/`).auth(...alice);
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers['content-type']).toBeUndefined();
      expect((await t.http.get(`/comments/${created.id}/`).auth(...alice)).status).toBe(404);
      expect((await t.http.delete(`/comments/${created.id}/`).auth(...alice)).status).toBe(404);
    });

    test('the API root links to the comment list with an absolute URL, first', async () => {
      const res = await t.http.get('/').auth(...alice);
      expect(res.status).toBe(200);
      expect(Object.entries(res.body)[0]).toEqual(['comments', expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/comments\/$/)]);
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    });

    test('a comment made by one user lists for every user', async () => {
      await create({ title: 'mine', body: 'x' });
      const res = await t.http.get('/comments/').auth(...credentials('bob'));
      expect(res.body.results.map((c: { title: string }) => c.title)).toEqual(['mine']);
    });
  });

  describe('the errors table of the document', () => {
    test('no credentials: 401 with a Basic challenge and the Japanese text', async () => {
      const res = await t.http.get('/comments/');
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="api"');
      expect(res.body).toEqual({ detail: '認証情報が含まれていません。' });
    });

    test('wrong password: 401 with the wrong-credentials text', async () => {
      const res = await t.http.get('/comments/').auth('alice', 'wrong');
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Basic realm="api"');
      expect(res.body).toEqual({ detail: 'ユーザ名かパスワードが違います。' });
    });

    test('a page out of range: 404 with the invalid-page text', async () => {
      const res = await t.http.get('/comments/?page=999').auth(...alice);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: '不正なページです。' });
    });

    test.each(['9999', 'abc', '0', '-1', '99999999999999999999', '1.5'])('pk %s: 404 with the not-found text', async (pk) => {
      const res = await t.http.get(`/comments/${pk}/`).auth(...alice);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: '見つかりませんでした。' });
    });

    test('PUT, PATCH and DELETE of a missing pk are 404 too', async () => {
      for (const method of ['put', 'patch', 'delete'] as const) {
        const res = await t.http[method]('/comments/9999/').auth(...alice).type('form').send({ title: 'x', body: 'y' });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ detail: '見つかりませんでした。' });
      }
    });

    test('a title longer than 10 characters: 400 with only the title key', async () => {
      const res = await create({ title: 'a'.repeat(11), body: 'eleven' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ title: ['タイトルの最大文字数は10文字です'] });
    });

    test('a body longer than 15 characters: 400 with only the body key', async () => {
      const res = await create({ title: 'sixteen', body: 'b'.repeat(16) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ body: ['本文の最大文字数は15文字です'] });
    });

    test('both too long: both keys in one body', async () => {
      const res = await create({ title: 'a'.repeat(11), body: 'b'.repeat(16) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ title: ['タイトルの最大文字数は10文字です'], body: ['本文の最大文字数は15文字です'] });
    });

    test('nothing invalid is stored', async () => {
      await create({ title: 'a'.repeat(11), body: 'b'.repeat(16) });
      const res = await t.http.get('/comments/').auth(...alice);
      expect(res.body.count).toBe(0);
    });
  });

  describe('the limits table: 10 and 15 characters, counted as code points', () => {
    const cases: [kind: string, titleChar: string, bodyChar: string][] = [
      ['ASCII', 'a', 'b'],
      ['kanji', '漢', '字'],
      ['emoji', '😀', '🎉'],
    ];

    test.each(cases)('%s: a 10-character title and a 15-character body are accepted', async (_kind, t1, b1) => {
      const res = await create({ title: t1.repeat(10), body: b1.repeat(15) });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ title: t1.repeat(10), body: b1.repeat(15) });
    });

    test.each(cases)('%s: an 11-character title is rejected', async (_kind, t1, _b1) => {
      const res = await create({ title: t1.repeat(11), body: 'ok' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ title: ['タイトルの最大文字数は10文字です'] });
    });

    test.each(cases)('%s: a 16-character body is rejected', async (_kind, _t1, b1) => {
      const res = await create({ title: 'ok', body: b1.repeat(16) });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ body: ['本文の最大文字数は15文字です'] });
    });

    test('the limits apply to PUT and PATCH as to create', async () => {
      const { body: created } = await create({ title: 'first', body: 'hello' });
      const put = await t.http.put(`/comments/${created.id}/`).auth(...alice).type('form').send({ title: 'a'.repeat(11), body: 'x' });
      expect(put.status).toBe(400);
      expect(put.body).toEqual({ title: ['タイトルの最大文字数は10文字です'] });
      const patch = await t.http.patch(`/comments/${created.id}/`).auth(...alice).type('form').send({ body: 'b'.repeat(16) });
      expect(patch.status).toBe(400);
      expect(patch.body).toEqual({ body: ['本文の最大文字数は15文字です'] });
    });
  });

  describe('required and blank fields', () => {
    test('an empty form names both missing fields', async () => {
      const res = await t.http.post('/comments/').auth(...alice).type('form').send('');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ title: ['この項目は必須です。'], body: ['この項目は必須です。'] });
    });

    test('blank or whitespace-only values are refused', async () => {
      const res = await create({ title: '', body: '   ' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ title: ['この項目は空にできません。'], body: ['この項目は空にできません。'] });
    });

    test('a blank title and a too-long body each report their own error', async () => {
      const res = await create({ title: '', body: 'b'.repeat(16) });
      expect(res.body).toEqual({ title: ['この項目は空にできません。'], body: ['本文の最大文字数は15文字です'] });
    });

    test('surrounding white space is trimmed before counting and storing', async () => {
      const res = await create({ title: `  ${'a'.repeat(10)}  `, body: ' hi ' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ title: 'a'.repeat(10), body: 'hi' });
    });

    test("a number for a text is taken as its text, as DRF's CharField; one too large for a number is refused", async () => {
      const res = await t.http.post('/comments/').auth(...alice).send({ title: 42, body: 1.5 });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ title: '42', body: '1.5' });
      const infinite = await t.http.post('/comments/').auth(...alice).type('json').send('{"title": 1.5e400, "body": "b"}');
      expect(infinite.status).toBe(400);
      expect(infinite.body).toEqual({ title: ['有効な文字列ではありません。'] });
    });

    test('PATCH with a blank title is refused', async () => {
      const { body: created } = await create({ title: 'first', body: 'hello' });
      const res = await t.http.patch(`/comments/${created.id}/`).auth(...alice).send({ title: ' ' });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ title: ['この項目は空にできません。'] });
    });
  });

  describe('English through Accept-Language', () => {
    test('errors and validation messages are English when asked for', async () => {
      const none = await t.http.get('/comments/').set('Accept-Language', 'en');
      expect(none.body).toEqual({ detail: 'Authentication credentials were not provided.' });
      const wrong = await t.http.get('/comments/').auth('alice', 'x').set('Accept-Language', 'en-US,en;q=0.9');
      expect(wrong.body).toEqual({ detail: 'Invalid username/password.' });
      const invalid = await t.http
        .post('/comments/')
        .auth(...alice)
        .set('Accept-Language', 'en')
        .type('form')
        .send({ title: 'a'.repeat(11), body: '' });
      expect(invalid.body).toEqual({
        title: ['Title may be at most 10 characters long.'],
        body: ['This field may not be blank.'],
      });
    });

    test('Accept-Language: * and unknown languages keep Japanese', async () => {
      for (const header of ['*', 'fr', 'de-DE, fr;q=0.5']) {
        const res = await t.http.get('/comments/').set('Accept-Language', header);
        expect(res.body).toEqual({ detail: '認証情報が含まれていません。' });
      }
    });

    test('q-values decide between Japanese and English', async () => {
      const res = await t.http.get('/comments/').set('Accept-Language', 'en;q=0.4, ja;q=0.8');
      expect(res.body).toEqual({ detail: '認証情報が含まれていません。' });
      const en = await t.http.get('/comments/').set('Accept-Language', 'ja;q=0.1, en');
      expect(en.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    });
  });

  // Last, so that it sees every answer the tests above got.
  test('every answer this suite got is one the OpenAPI description documents, in a body matching its schema', async () => {
    expect(t.responses.length).toBeGreaterThan(50);
    expect(await describedAnswerProblems(t)).toEqual([]);
  });
});
