import { describe, expect, test } from '@jest/globals';
import { createMigrator } from '../../src/db/migrator.js';
import { KeptPages } from '../../src/page-tags.js';
import { useTestApp, type TestApp } from '../helpers/app.js';

const JSON_TYPE = 'application/json';
const WEAK_TAG = /^W\/"[A-Za-z0-9_-]{27}"$/;
const STRONG_TAG = /^"[A-Za-z0-9_-]{27}"$/;

/** One Host for every request: supertest's port changes per request, and a list's links name the host. */
const HOST = { Host: '127.0.0.1' };
const basic = (username: string) => ({ Authorization: `Basic ${Buffer.from(`${username}:${username}-password`).toString('base64')}`, Accept: JSON_TYPE, ...HOST });

async function loginToken(t: Pick<TestApp, 'http'>, username: string): Promise<string> {
  const res = await t.http.post('/api/login').send({ email: `${username}@example.com`, password: `${username}-password` });
  if (res.status !== 201) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.body.token as string;
}

function tagOf(res: { headers: Record<string, string | undefined> }): string {
  const tag = res.headers.etag;
  if (tag === undefined) throw new Error('no ETag in the answer');
  return tag;
}

interface SiteCase {
  site: string;
  /** Where rows are created; a page of the list, and the same page with its rows' owners named. */
  create: string;
  list: string;
  named: string;
  row: (id: number) => string;
  headers: (t: TestApp, username: string) => Promise<Record<string, string>>;
  itemOf: (body: Record<string, unknown>) => Record<string, unknown>;
}

const SITES: SiteCase[] = [
  {
    site: 'the paginated site (HTTP Basic)',
    create: '/comments/',
    list: '/comments/',
    named: '/comments/?expand=owner',
    row: (id) => `/comments/${id}/`,
    headers: async (_t, username) => basic(username),
    itemOf: (body) => body,
  },
  {
    site: 'the token site (bearer)',
    create: '/api/comments',
    list: '/api/comments?page=1',
    named: '/api/comments?page=1&include=owner',
    row: (id) => `/api/comments/${id}`,
    headers: async (t, username) => ({ Authorization: `Bearer ${await loginToken(t, username)}`, Accept: JSON_TYPE, ...HOST }),
    itemOf: (body) => body.comment as Record<string, unknown>,
  },
  {
    site: 'the token site’s whole list, written as it is read (bearer)',
    create: '/api/comments',
    list: '/api/comments',
    named: '/api/comments?include=owner',
    row: (id) => `/api/comments/${id}`,
    headers: async (t, username) => ({ Authorization: `Bearer ${await loginToken(t, username)}`, Accept: JSON_TYPE, ...HOST }),
    itemOf: (body) => body.comment as Record<string, unknown>,
  },
];

describe.each(SITES)('a page tagged by its tables’ versions on $site', ({ create, list, named, row, headers, itemOf }) => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
    await app.createUser('bob');
  });

  async function newComment(auth: Record<string, string>, title: string): Promise<number> {
    const res = await t.http.post(create).set(auth).send({ title, body: 'a body' });
    expect(res.status).toBe(201);
    return itemOf(res.body).id as number;
  }

  /** The page's tag now, after checking that sending it back answers 304. */
  async function currentTag(url: string, auth: Record<string, string>): Promise<string> {
    const page = await t.http.get(url).set(auth);
    expect(page.status).toBe(200);
    const tag = tagOf(page);
    expect((await t.http.get(url).set(auth).set('If-None-Match', tag)).status).toBe(304);
    return tag;
  }

  test('a page answers with a weak tag, and 304 without a body, with the same tag and Vary, when it is sent back', async () => {
    const auth = await headers(t, 'alice');
    await newComment(auth, 'tagged');
    const page = await t.http.get(list).set(auth);
    expect(page.status).toBe(200);
    expect(page.headers.etag).toMatch(WEAK_TAG);
    const again = await t.http.get(list).set(auth).set('If-None-Match', tagOf(page));
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.etag).toBe(page.headers.etag);
    expect(again.headers.vary).toBe(page.headers.vary);
    // HEAD asks the same.
    expect((await t.http.head(list).set(auth).set('If-None-Match', tagOf(page))).status).toBe(304);
  });

  test('an insert, an update and a delete each give the page a new tag, and the old tag then gets the page', async () => {
    const auth = await headers(t, 'alice');
    const seen = new Set<string>();
    const changed = async (before: string): Promise<string> => {
      const res = await t.http.get(list).set(auth).set('If-None-Match', before);
      expect(res.status).toBe(200);
      expect(seen.has(tagOf(res))).toBe(false);
      seen.add(tagOf(res));
      return currentTag(list, auth);
    };
    let tag = await currentTag(list, auth);
    seen.add(tag);
    const id = await newComment(auth, 'inserted');
    tag = await changed(tag);
    await t.http.patch(row(id)).set(auth).send({ body: 'updated' });
    tag = await changed(tag);
    // A write the site did not make (another process, a console) changes the tag as well.
    await t.services.registry.get('Comment').model.update({ body: 'updated elsewhere' }, { where: { id } });
    tag = await changed(tag);
    await t.http.delete(row(id)).set(auth);
    await changed(tag);
  });

  test('a page naming its rows’ owners gets a new tag when an owner is renamed', async () => {
    const auth = await headers(t, 'alice');
    await newComment(auth, 'owned');
    const tag = await currentTag(named, auth);
    await t.services.registry.users().model.update({ name: 'Alice Renamed' }, { where: { username: 'alice' } });
    const res = await t.http.get(named).set(auth).set('If-None-Match', tag);
    expect(res.status).toBe(200);
    expect(tagOf(res)).not.toBe(tag);
  });

  test('two users, two languages, two query strings never share a tag, and an HTML page has none', async () => {
    const alice = { ...(await headers(t, 'alice')), 'Accept-Language': 'ja' };
    const bob = { ...(await headers(t, 'bob')), 'Accept-Language': 'ja' };
    const tag = await currentTag(list, alice);
    const others = [
      await t.http.get(list).set(bob).set('If-None-Match', tag),
      await t.http.get(list).set({ ...alice, 'Accept-Language': 'en' }).set('If-None-Match', tag),
      await t.http.get(named).set(alice).set('If-None-Match', tag),
    ];
    expect(others.map((res) => res.status)).toEqual(others.map(() => 200));
    expect(new Set([tag, ...others.map(tagOf)]).size).toBe(others.length + 1);
    const html = await t.http.get(list).set({ ...alice, Accept: 'text/html' }).set('If-None-Match', tag);
    expect(html.status).toBe(200);
    expect(html.headers.etag).toBeUndefined();
  });
});

describe('a database not yet migrated to table versions', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
    await createMigrator(app.services.sequelize).down({ to: '0007_table_versions' });
  });
  const alice = basic('alice');

  test('answers pages with the strong tag of their bytes, and 304 to it while they stay the same', async () => {
    expect((await t.http.post('/comments/').set(alice).send({ title: 'old', body: 'a body' })).status).toBe(201);
    const page = await t.http.get('/comments/').set(alice);
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(1);
    expect(page.headers.etag).toMatch(STRONG_TAG);
    expect((await t.http.get('/comments/').set(alice).set('If-None-Match', tagOf(page))).status).toBe(304);
    expect((await t.http.post('/comments/').set(alice).send({ title: 'new', body: 'a body' })).status).toBe(201);
    const after = await t.http.get('/comments/').set(alice).set('If-None-Match', tagOf(page));
    expect(after.status).toBe(200);
    expect(after.body.count).toBe(2);
  });

  test('answers pages when its row_counts has no version column at all', async () => {
    await t.services.sequelize.query('ALTER TABLE row_counts DROP COLUMN version');
    const page = await t.http.get('/comments/').set(alice);
    expect(page.status).toBe(200);
    expect(page.headers.etag).toMatch(STRONG_TAG);
    expect((await t.http.get('/comments/').set(alice).set('If-None-Match', tagOf(page))).status).toBe(304);
  });
});

describe('pages kept under their tags', () => {
  test('a kept page is a frozen copy, not the object its request answered with', () => {
    const pages = new KeptPages();
    const page = { count: 1, results: [{ id: 1, title: 'First' }] };
    pages.keep('W/"a"', page);
    page.results[0]!.title = 'Changed by its own request';
    const kept = pages.get('W/"a"') as typeof page;
    expect(kept.results[0]!.title).toBe('First');
    expect(() => {
      kept.results[0]!.title = 'Changed by a later request';
    }).toThrow(TypeError);
    expect(pages.get('W/"b"')).toBeUndefined();
  });

  test('a page that cannot be copied is not kept', () => {
    const pages = new KeptPages();
    pages.keep('W/"a"', { count: 1, results: [], more: () => 'a function' });
    expect(pages.get('W/"a"')).toBeUndefined();
  });
});
