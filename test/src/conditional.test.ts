import { describe, expect, test } from '@jest/globals';
import { useTestApp, type TestApp } from '../helpers/app.js';
import { browserLogin } from '../helpers/pages.js';
import { recordingHandler } from '../helpers/contract.js';

const JSON_TYPE = 'application/json';
const STRONG_TAG = /^"[A-Za-z0-9_-]{27}"$/;

/** One Host for every request: supertest's port changes per request, and a list's links name the host. */
const HOST = { Host: '127.0.0.1' };
const basic = (username: string) => ({ Authorization: `Basic ${Buffer.from(`${username}:${username}-password`).toString('base64')}`, Accept: JSON_TYPE, ...HOST });

/** The ETag an answer carries (every answer these tests take it from has one). */
function tagOf(res: { headers: Record<string, string | undefined> }): string {
  const tag = res.headers.etag;
  if (tag === undefined) throw new Error('no ETag in the answer');
  return tag;
}

async function loginToken(t: Pick<TestApp, 'http'>, username: string): Promise<string> {
  const res = await t.http.post('/api/login').send({ email: `${username}@example.com`, password: `${username}-password` });
  if (res.status !== 201) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.body.token as string;
}

/** The two sites: where a row lives, how to authenticate, and the key of their error message. */
interface SiteCase {
  site: string;
  list: string;
  row: (id: number) => string;
  headers: (t: TestApp) => Promise<Record<string, string>>;
  message: 'detail' | 'message';
  /** What a delete answers: DRF's 204, Laravel's 200 with a message. */
  deleted: number;
  itemOf: (body: Record<string, unknown>) => Record<string, unknown>;
}

const SITES: SiteCase[] = [
  {
    site: 'the paginated site (HTTP Basic)',
    list: '/comments/',
    row: (id) => `/comments/${id}/`,
    headers: async () => basic('alice'),
    message: 'detail',
    deleted: 204,
    itemOf: (body) => body,
  },
  {
    site: 'the token site (bearer)',
    list: '/api/comments?page=1',
    row: (id) => `/api/comments/${id}`,
    headers: async (t) => ({ Authorization: `Bearer ${await loginToken(t, 'alice')}`, Accept: JSON_TYPE, ...HOST }),
    message: 'message',
    deleted: 200,
    itemOf: (body) => body.comment as Record<string, unknown>,
  },
];

describe.each(SITES)('conditional requests on $site', ({ list, row, headers, message, deleted, itemOf }) => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  });

  async function newComment(auth: Record<string, string>, title = 'first'): Promise<number> {
    const res = await t.http.post(list.split('?')[0] ?? list).set(auth).send({ title, body: 'a body' });
    expect(res.status).toBe(201);
    return itemOf(res.body).id as number;
  }

  test('a row answers with a strong ETag, and 304 without a body when If-None-Match names it', async () => {
    const auth = await headers(t);
    const id = await newComment(auth);
    const first = await t.http.get(row(id)).set(auth);
    expect(first.status).toBe(200);
    expect(first.headers.etag).toMatch(STRONG_TAG);
    const again = await t.http.get(row(id)).set(auth).set('If-None-Match', tagOf(first));
    expect(again.status).toBe(304);
    expect(again.text ?? '').toBe('');
    expect(again.headers.etag).toBe(first.headers.etag);
    const head = await t.http.head(row(id)).set(auth).set('If-None-Match', tagOf(first));
    expect(head.status).toBe(304);
  });

  test('If-None-Match compares weakly: W/ on the same tag, a list of tags and * all give 304; another tag gives the row', async () => {
    const auth = await headers(t);
    const id = await newComment(auth);
    const etag = tagOf(await t.http.get(row(id)).set(auth));
    for (const header of [`W/${etag}`, `"other", ${etag}`, '*']) {
      expect((await t.http.get(row(id)).set(auth).set('If-None-Match', header)).status).toBe(304);
    }
    const other = await t.http.get(row(id)).set(auth).set('If-None-Match', '"another-version"');
    expect(other.status).toBe(200);
    expect(itemOf(other.body).id).toBe(id);
  });

  test('a row changed or deleted since gets a new tag or 404, never the old 304', async () => {
    const auth = await headers(t);
    const id = await newComment(auth);
    const etag = tagOf(await t.http.get(row(id)).set(auth));
    const changed = await t.http.patch(row(id)).set(auth).send({ title: 'changed' });
    expect(changed.status).toBe(200);
    expect(changed.headers.etag).toMatch(STRONG_TAG);
    expect(changed.headers.etag).not.toBe(etag);
    const read = await t.http.get(row(id)).set(auth).set('If-None-Match', etag);
    expect(read.status).toBe(200);
    expect(itemOf(read.body).title).toBe('changed');
    // The tag a write answers with is the one the next read has.
    expect(read.headers.etag).toBe(changed.headers.etag);
    expect((await t.http.delete(row(id)).set(auth)).status).toBe(deleted);
    expect((await t.http.get(row(id)).set(auth).set('If-None-Match', etag)).status).toBe(404);
  });

  test('a list answers with an ETag that changes when a row of it changes, and 304 while it does not', async () => {
    const auth = await headers(t);
    const id = await newComment(auth, 'listed');
    const first = await t.http.get(list).set(auth);
    expect(first.status).toBe(200);
    // Weak: made from the versions of the list's tables before the page is read (page-tags.ts).
    expect(first.headers.etag).toMatch(/^W\/"[A-Za-z0-9_-]{27}"$/);
    expect((await t.http.get(list).set(auth).set('If-None-Match', tagOf(first))).status).toBe(304);
    await t.http.patch(row(id)).set(auth).send({ body: 'edited' });
    const after = await t.http.get(list).set(auth).set('If-None-Match', tagOf(first));
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(first.headers.etag);
  });

  test('If-Match with the current tag lets PUT, PATCH and DELETE through', async () => {
    const auth = await headers(t);
    const id = await newComment(auth);
    let etag = tagOf(await t.http.get(row(id)).set(auth));
    const put = await t.http.put(row(id)).set(auth).set('If-Match', etag).send({ title: 'put', body: 'put body' });
    expect(put.status).toBe(200);
    etag = tagOf(put);
    const patch = await t.http.patch(row(id)).set(auth).set('If-Match', etag).send({ title: 'patched' });
    expect(patch.status).toBe(200);
    expect((await t.http.delete(row(id)).set(auth).set('If-Match', tagOf(patch))).status).toBe(deleted);
  });

  test('If-Match with an old tag is 412 in the site\'s error shape and changes nothing (lost-update protection)', async () => {
    const auth = await headers(t);
    const id = await newComment(auth, 'original');
    const stale = tagOf(await t.http.get(row(id)).set(auth));
    // Someone else changes the row meanwhile.
    await t.http.patch(row(id)).set(auth).send({ body: 'theirs' });
    for (const attempt of [
      t.http.put(row(id)).set(auth).set('If-Match', stale).send({ title: 'mine', body: 'mine' }),
      t.http.patch(row(id)).set(auth).set('If-Match', stale).send({ title: 'mine' }),
      t.http.delete(row(id)).set(auth).set('If-Match', stale),
    ]) {
      const res = await attempt;
      expect(res.status).toBe(412);
      expect(Object.keys(res.body)).toEqual([message]);
      expect(res.body[message]).toContain('If-Match');
    }
    const kept = await t.http.get(row(id)).set(auth);
    expect(itemOf(kept.body)).toMatchObject({ title: 'original', body: 'theirs' });
  });

  test('If-Match compares strongly: a weak tag is 412 even when its value is current; * needs only the row', async () => {
    const auth = await headers(t);
    const id = await newComment(auth);
    const etag = tagOf(await t.http.get(row(id)).set(auth));
    expect((await t.http.patch(row(id)).set(auth).set('If-Match', `W/${etag}`).send({ title: 'weak' })).status).toBe(412);
    expect((await t.http.patch(row(id)).set(auth).set('If-Match', '*').send({ title: 'any' })).status).toBe(200);
    expect((await t.http.delete(row(id)).set(auth)).status).toBe(deleted);
    expect((await t.http.patch(row(id)).set(auth).set('If-Match', '*').send({ title: 'gone' })).status).toBe(404);
  });

  test('If-Match does not let a user change a row that is not theirs: 404 or 403 come first', async () => {
    const auth = await headers(t);
    const id = await newComment(auth);
    await t.createUser('mallory');
    const res = await t.http.patch(row(id)).set(basic('mallory')).set('If-Match', '*').send({ title: 'not mine' });
    expect([403, 401]).toContain(res.status);
  });
});

describe('the browsable page', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  });

  /** The versions a page's forms send as If-Match. */
  const formTags = (html: string): string[] => [...html.matchAll(/data-if-match="([^"]*)"/g)].map(([, value]) => (value ?? '').replaceAll('&quot;', '"').replaceAll('&#34;', '"'));

  test('the edit and delete forms of a row carry its ETag for If-Match, and a page has no ETag header of its own', async () => {
    const created = await t.http.post('/comments/').set(basic('alice')).send({ title: 'paged', body: 'a body' });
    const id = created.body.id as number;
    const etag = tagOf(await t.http.get(`/comments/${id}/`).set(basic('alice')));
    const { agent } = await browserLogin(recordingHandler(t.app, t.responses), 'alice');
    const page = await agent.get(`/comments/${id}/`).set('Accept', 'text/html');
    expect(page.status).toBe(200);
    expect(page.headers.etag).toBeUndefined();
    const tags = formTags(page.text);
    expect(tags.length).toBeGreaterThanOrEqual(2);
    for (const tag of tags) expect(tag).toBe(etag);
  });

  test('a refused save shows its forms again with the version it was sent with, so the next save is checked, never taken unchecked', async () => {
    const created = await t.http.post('/comments/').set(basic('alice')).send({ title: 'paged', body: 'a body' });
    const id = created.body.id as number;
    const etag = tagOf(await t.http.get(`/comments/${id}/`).set(basic('alice')));
    const invalid = await t.http.put(`/comments/${id}/`).set(basic('alice')).set('Accept', 'text/html').set('If-Match', etag).send({ title: '', body: 'b' });
    expect(invalid.status).toBe(400);
    expect(formTags(invalid.text).length).toBeGreaterThanOrEqual(2);
    for (const tag of formTags(invalid.text)) expect(tag).toBe(etag);
    await t.http.patch(`/comments/${id}/`).set(basic('alice')).send({ title: 'elsewhere' });
    const stale = await t.http.put(`/comments/${id}/`).set(basic('alice')).set('Accept', 'text/html').set('If-Match', etag).send({ title: 'mine', body: 'b' });
    expect(stale.status).toBe(412);
    expect(stale.text).toContain('HTTP 412 前提条件を満たしていません');
    for (const tag of formTags(stale.text)) expect(tag).toBe(etag);
    const again = await t.http.put(`/comments/${id}/`).set(basic('alice')).set('If-Match', formTags(stale.text)[0] ?? '').send({ title: 'mine', body: 'b' });
    expect(again.status).toBe(412);
  });
});
