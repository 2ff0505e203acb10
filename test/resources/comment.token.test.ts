import { beforeAll, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { apiToken, credentials, describedAnswerProblems, useTestApp } from '../helpers/app.js';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const TOKEN = /^\d+\|[A-Za-z0-9]{40}$/;
const FAILED_LOGIN = { message: ['These credentials do not match our records.'] };

describe('the comment API under /api (token site)', () => {
  let alice: string;
  let taro: string;

  const t = useTestApp(async (t) => {
    await t.createUser('alice', { name: 'Alice Example' });
    await t.createUser('taro', { name: '山田太郎' });
    await t.createUser('staff', { staff: true });
    await t.createUser('sleeper', { active: false });
  });
  beforeAll(async () => {
    alice = await apiToken(t, 'alice');
    taro = await apiToken(t, 'taro');
  });
  beforeEach(async () => {
    await t.services.registry.get('Comment').model.destroy({ where: {} });
  });

  const create = (token: string, fields: Record<string, string>) =>
    t.http.post('/api/comments').auth(token, { type: 'bearer' }).type('form').send(fields);

  describe('POST /api/login', () => {
    test('form fields log in: 201 with the user (no secrets) and a token <id>|<40 characters>', async () => {
      const res = await t.http.post('/api/login').type('form').send({ email: 'alice@example.com', password: 'alice-password' });
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toBe('application/json');
      expect(Object.keys(res.body)).toEqual(['user', 'token']);
      expect(Object.keys(res.body.user)).toEqual(['id', 'name', 'email', 'email_verified_at', 'created_at', 'updated_at']);
      expect(res.body.user).toMatchObject({ name: 'Alice Example', email: 'alice@example.com', email_verified_at: null });
      expect(res.body.user.created_at).toMatch(TIMESTAMP);
      expect(res.body.user.updated_at).toBe(res.body.user.created_at);
      expect(res.body.token).toMatch(TOKEN);
    });

    test('a JSON body and a multipart body log in as well', async () => {
      const json = await t.http.post('/api/login').send({ email: 'taro@example.com', password: 'taro-password' });
      expect(json.status).toBe(201);
      expect(json.body.user.name).toBe('山田太郎');
      const multipart = await t.http.post('/api/login').field('email', 'taro@example.com').field('password', 'taro-password');
      expect(multipart.status).toBe(201);
    });

    test('the email address is compared without regard to letter case', async () => {
      const res = await t.http.post('/api/login').send({ email: ' ALICE@Example.COM ', password: 'alice-password' });
      expect(res.status).toBe(201);
      expect(res.body.user.email).toBe('alice@example.com');
    });

    test.each([
      ['a wrong password', { email: 'alice@example.com', password: 'wrong' }],
      ['an unknown email', { email: 'nobody@example.com', password: 'x' }],
      ['an inactive account', { email: 'sleeper@example.com', password: 'sleeper-password' }],
      ['no fields at all', {}],
      ['no password', { email: 'alice@example.com' }],
      ['fields that are not text', { email: ['alice@example.com'], password: 12 }],
    ])('%s answers 404 with the one credentials message, in JSON even for a browser', async (_case, body) => {
      const res = await t.http.post('/api/login').set('Accept', 'text/html').send(body);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body).toEqual(FAILED_LOGIN);
    });

    test.each([
      ['malformed JSON', 'application/json', '{"email":'],
      ['an unsupported media type', 'text/plain', 'email=alice@example.com&password=alice-password'],
    ])('%s is a failed login too: 404 in JSON', async (_case, type, body) => {
      const res = await t.http.post('/api/login').type(type).send(body);
      expect(res.status).toBe(404);
      expect(res.body).toEqual(FAILED_LOGIN);
    });

    test('a NUL character in the email is an unknown account, not a database error', async () => {
      const res = await t.http.post('/api/login').type('form').send('email=alice%00@example.com&password=alice-password');
      expect(res.status).toBe(404);
      expect(res.body).toEqual(FAILED_LOGIN);
    });

    test('an unknown email or missing fields still cost one password hashing, like a wrong password', async () => {
      const spend = jest.spyOn(t.services.accounts.hasher, 'spendTimeOfOneCheck');
      const check = jest.spyOn(t.services.accounts.hasher, 'check');
      try {
        await t.http.post('/api/login').send({ email: 'nobody@example.com', password: 'x' });
        await t.http.post('/api/login').send({});
        expect(spend).toHaveBeenCalledTimes(2);
        await t.http.post('/api/login').send({ email: 'alice@example.com', password: 'wrong' });
        expect(check).toHaveBeenCalledTimes(1);
      } finally {
        spend.mockRestore();
        check.mockRestore();
      }
    });

    test('the credentials message is Japanese for Accept-Language: ja', async () => {
      const res = await t.http.post('/api/login').set('Accept-Language', 'ja').send({ email: 'x@example.com', password: 'x' });
      expect(res.body).toEqual({ message: ['認証情報が記録と一致しません。'] });
    });

    test('each login issues a new token and the earlier ones keep working', async () => {
      const first = await apiToken(t, 'alice');
      const second = await apiToken(t, 'alice');
      expect(first).not.toBe(second);
      for (const token of [first, second, alice]) {
        expect((await t.http.get('/api/user').auth(token, { type: 'bearer' })).status).toBe(200);
      }
    });

    test('a login records the time of the last login', async () => {
      await apiToken(t, 'staff');
      const row = await t.services.accounts.findByUsername('staff');
      expect(row?.get('last_login')).toBeInstanceOf(Date);
    });

    test('GET /api/login is 405 naming the supported methods', async () => {
      const res = await t.http.get('/api/login').set('Accept', 'application/json');
      expect(res.status).toBe(405);
      expect(res.body).toEqual({ message: 'The GET method is not supported for this route. Supported methods: POST.' });
    });
  });

  describe('comments', () => {
    test('creating answers 201 with {comment: {id, title, body, updated_at}}', async () => {
      const res = await create(alice, { title: 'Hello', body: 'First comment' });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body)).toEqual(['comment']);
      expect(Object.keys(res.body.comment)).toEqual(['id', 'title', 'body', 'updated_at']);
      expect(res.body.comment).toMatchObject({ title: 'Hello', body: 'First comment' });
      expect(res.body.comment.updated_at).toMatch(TIMESTAMP);
    });

    test('Japanese text round-trips through multipart, form and JSON', async () => {
      const multipart = await t.http
        .post('/api/comments')
        .auth(alice, { type: 'bearer' })
        .field('title', '日本語のタイトル')
        .field('body', 'こんにちは、世界');
      expect(multipart.status).toBe(201);
      expect(multipart.body.comment).toMatchObject({ title: '日本語のタイトル', body: 'こんにちは、世界' });
      const json = await t.http.post('/api/comments').auth(alice, { type: 'bearer' }).send({ title: '絵文字😀', body: '本文' });
      const shown = await t.http.get(`/api/comments/${json.body.comment.id}`).auth(alice, { type: 'bearer' });
      expect(shown.body.comment).toMatchObject({ title: '絵文字😀', body: '本文' });
    });

    test('the list is {comments: [...]} in ascending id order, every user\'s comments, without owner', async () => {
      const ids = [];
      ids.push((await create(alice, { title: 'a', body: '1' })).body.comment.id);
      ids.push((await create(taro, { title: 'b', body: '2' })).body.comment.id);
      ids.push((await create(alice, { title: 'c', body: '3' })).body.comment.id);
      await t.http.patch(`/api/comments/${ids[0]}`).auth(alice, { type: 'bearer' }).send({ title: 'newest' });
      const res = await t.http.get('/api/comments').auth(alice, { type: 'bearer' });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['comments']);
      expect(res.body.comments.map((c: { id: number }) => c.id)).toEqual(ids);
      for (const comment of res.body.comments) expect(Object.keys(comment)).toEqual(['id', 'title', 'body', 'updated_at']);
    });

    test('a single comment is {comment: {..., owner}} with the owner\'s name, for any reader', async () => {
      const { id } = (await create(taro, { title: 'Taro', body: 'by taro' })).body.comment;
      for (const path of [`/api/comments/${id}`, `/api/comments/${id}/`]) {
        const res = await t.http.get(path).auth(alice, { type: 'bearer' });
        expect(res.status).toBe(200);
        expect(Object.keys(res.body.comment)).toEqual(['id', 'title', 'body', 'updated_at', 'owner']);
        expect(res.body.comment).toMatchObject({ id, title: 'Taro', body: 'by taro', owner: '山田太郎' });
      }
    });

    test('PUT overwrites title and body and answers 200 without owner', async () => {
      const created = (await create(alice, { title: 'Hello', body: 'First' })).body.comment;
      const res = await t.http
        .put(`/api/comments/${created.id}`)
        .auth(alice, { type: 'bearer' })
        .type('form')
        .send({ title: 'Hello v2', body: 'Edited' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ comment: { id: created.id, title: 'Hello v2', body: 'Edited', updated_at: expect.stringMatching(TIMESTAMP) } });
      expect(res.body.comment.updated_at > created.updated_at).toBe(true);
    });

    test('PUT without body is a 422 naming the missing field', async () => {
      const { id } = (await create(alice, { title: 'Hello', body: 'First' })).body.comment;
      const res = await t.http.put(`/api/comments/${id}`).auth(alice, { type: 'bearer' }).type('form').send({ title: 'only title' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ message: 'The body field is required.', errors: { body: ['The body field is required.'] } });
    });

    test('PATCH changes only the fields sent', async () => {
      const { id } = (await create(alice, { title: 'Hello', body: 'First' })).body.comment;
      const res = await t.http.patch(`/api/comments/${id}/`).auth(alice, { type: 'bearer' }).type('form').send({ title: 'Hello v3' });
      expect(res.status).toBe(200);
      expect(res.body.comment).toMatchObject({ id, title: 'Hello v3', body: 'First' });
    });

    test('DELETE answers 200 with [], after which the comment is gone', async () => {
      const { id } = (await create(alice, { title: 'bye', body: 'x' })).body.comment;
      const res = await t.http.delete(`/api/comments/${id}`).auth(alice, { type: 'bearer' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.text).toBe('[]');
      const list = await t.http.get('/api/comments').auth(alice, { type: 'bearer' });
      expect(list.body.comments).toEqual([]);
      const again = await t.http.delete(`/api/comments/${id}`).auth(alice, { type: 'bearer' }).set('Accept', 'application/json');
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ message: `No query results for model [Comment] ${id}` });
    });

    test.each(['999999', 'abc', '0', '-1', '99999999999'])('comment id %s is a 404 for every method', async (id) => {
      for (const method of ['get', 'put', 'patch', 'delete'] as const) {
        const res = await t.http[method](`/api/comments/${id}`).auth(alice, { type: 'bearer' }).set('Accept', 'application/json').send({ title: 't', body: 'b' });
        expect(res.status).toBe(404);
        expect(res.body).toEqual({ message: `No query results for model [Comment] ${id}` });
      }
    });

    test('the not-found message is Japanese for Accept-Language: ja, with the resource\'s label', async () => {
      const res = await t.http.get('/api/comments/999').auth(alice, { type: 'bearer' }).set('Accept', 'application/json').set('Accept-Language', 'ja');
      expect(res.body).toEqual({ message: 'コメント 999 は見つかりません。' });
    });

    test('an empty title and body are a 422 naming both fields, always in JSON', async () => {
      const res = await create(alice, { title: '', body: ' ' }).set('Accept', 'text/html');
      expect(res.status).toBe(422);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body).toEqual({
        message: 'The title field is required. (and 1 more error)',
        errors: { title: ['The title field is required.'], body: ['The body field is required.'] },
      });
    });

    test("a number for the title or body is a 422, as Laravel's string rule, and nothing is stored", async () => {
      const before = await t.services.registry.get('Comment').model.count();
      const res = await t.http.post('/api/comments').auth(alice, { type: 'bearer' }).type('json').send('{"title": 1, "body": 1.5e400}');
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ title: ['The title field must be a string.'], body: ['The body field must be a string.'] });
      expect(await t.services.registry.get('Comment').model.count()).toBe(before);
    });

    test('title is limited to 255 and body to 65,535 characters, counted as code points', async () => {
      expect((await create(alice, { title: '字'.repeat(255), body: '😀'.repeat(65_535) })).status).toBe(201);
      const res = await create(alice, { title: '字'.repeat(256), body: 'x'.repeat(65_536) });
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({
        title: ['The title field must not be greater than 255 characters.'],
        body: ['The body field must not be greater than 65535 characters.'],
      });
    });

    test('validation messages are Japanese for Accept-Language: ja', async () => {
      const res = await create(alice, { body: 'x' }).set('Accept-Language', 'ja');
      expect(res.body).toEqual({ message: 'タイトルは必ず指定してください。', errors: { title: ['タイトルは必ず指定してください。'] } });
    });

    test('only the owner or staff may change or delete a comment; others get 403', async () => {
      const { id } = (await create(alice, { title: 'mine', body: 'x' })).body.comment;
      for (const [method, body] of [['put', { title: 't', body: 'b' }], ['patch', { title: 't' }], ['delete', {}]] as const) {
        const res = await t.http[method](`/api/comments/${id}`).auth(taro, { type: 'bearer' }).set('Accept', 'application/json').send(body);
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ message: 'This action is unauthorized.' });
      }
      const staff = await apiToken(t, 'staff');
      const res = await t.http.patch(`/api/comments/${id}`).auth(staff, { type: 'bearer' }).send({ body: 'moderated' });
      expect(res.status).toBe(200);
      expect(res.body.comment.body).toBe('moderated');
    });

    test('a request cannot choose the owner, the id or the time', async () => {
      const res = await create(alice, { title: 't', body: 'b', user_id: '2', id: '777', updated_at: '2000-01-01T00:00:00.000000Z' });
      const shown = await t.http.get(`/api/comments/${res.body.comment.id}`).auth(alice, { type: 'bearer' });
      expect(shown.body.comment.owner).toBe('Alice Example');
      expect(shown.body.comment.id).not.toBe(777);
      expect(shown.body.comment.updated_at).not.toMatch(/^2000/);
    });
  });

  describe('GET /api/user', () => {
    test('answers the token\'s user with their own comments, raw, both inside the user and beside it', async () => {
      const first = (await create(alice, { title: 'Hello', body: 'First comment' })).body.comment;
      await create(taro, { title: 'Taro', body: 'by taro' });
      const second = (await create(alice, { title: '日本語', body: 'こんにちは' })).body.comment;
      const res = await t.http.get('/api/user').auth(alice, { type: 'bearer' });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body)).toEqual(['user', 'comments']);
      expect(Object.keys(res.body.user)).toEqual(['id', 'name', 'email', 'email_verified_at', 'created_at', 'updated_at', 'comments']);
      expect(res.body.user).toMatchObject({ name: 'Alice Example', email: 'alice@example.com' });
      expect(res.body.comments).toEqual(res.body.user.comments);
      expect(res.body.comments.map((c: { id: number }) => c.id)).toEqual([first.id, second.id]);
      const [raw] = res.body.comments;
      expect(Object.keys(raw)).toEqual(['id', 'title', 'body', 'user_id', 'created_at', 'updated_at']);
      expect(raw).toMatchObject({ title: 'Hello', body: 'First comment', user_id: res.body.user.id });
      expect(raw.created_at).toMatch(TIMESTAMP);
    });

    test('a user with no comments gets empty lists', async () => {
      const res = await t.http.get('/api/user/').auth(taro, { type: 'bearer' });
      expect(res.body.comments).toEqual([]);
      expect(res.body.user.comments).toEqual([]);
    });
  });

  describe('one service behind both APIs', () => {
    test('a comment made through /api is in /comments/, and the reverse, with its owner', async () => {
      const viaToken = (await create(alice, { title: 'from api', body: 'x' })).body.comment;
      const viaBasic = (await t.http.post('/comments/').auth(...credentials('taro')).send({ title: 'from root', body: 'y' })).body;
      const page = await t.http.get('/comments/?page_size=5').auth(...credentials('alice'));
      expect(page.body.results.map((c: { id: number }) => c.id)).toEqual([viaBasic.id, viaToken.id]);
      const shown = await t.http.get(`/api/comments/${viaBasic.id}`).auth(alice, { type: 'bearer' });
      expect(shown.body.comment).toMatchObject({ title: 'from root', owner: '山田太郎' });
      const root = await t.http.get(`/comments/${viaToken.id}/`).auth(...credentials('alice'));
      expect(root.body).toEqual({ ...viaToken, updated_at: viaToken.updated_at.slice(0, -1) });
    });
  });

  // Last, so that it sees every answer the tests above got.
  test('every answer this suite got is one the OpenAPI description documents, in a body matching its schema', async () => {
    expect(t.responses.length).toBeGreaterThan(50);
    expect(await describedAnswerProblems(t)).toEqual([]);
  });
});
