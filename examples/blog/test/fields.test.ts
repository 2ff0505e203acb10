/** Each field kind of the blog's posts and replies, read and written on both sites, and refused in each site's shape. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestClient } from 'declarest/testing';
import { author, blogClient, type Author } from './support.js';

let client: TestClient;
let alice: Author;
let bob: Author;
/** Staff: tags are theirs to make and delete. */
let editor: Author;
let tagIds: number[];

beforeAll(async () => {
  client = await blogClient();
  alice = await author(client, 'alice');
  bob = await author(client, 'bob');
  editor = await author(client, 'editor', { staff: true });
  tagIds = [];
  for (const name of ['typescript', 'databases', 'notes']) {
    const made = await editor.root.post('/tags/').send({ name }).expect(201);
    tagIds.push(made.body.id as number);
  }
});

afterAll(async () => {
  // Every answer the tests got is one the blog's own /openapi.json documents.
  const undocumented = await client.undocumentedAnswers();
  await client.close();
  expect(undocumented).toEqual([]);
});

const FULL = {
  title: 'Every kind',
  body: 'A post with a value in each field.',
  reading_minutes: 3,
  price: '4.5',
  metadata: { lang: 'en', featured: true, scores: [1, 2] },
  publish_on: '2025-01-31',
};

/** Every field error is a list of messages, as DRF and Laravel both give them. */
function expectFieldErrors(errors: Record<string, unknown>, fields: readonly string[]): void {
  expect(Object.keys(errors).sort()).toEqual([...fields].sort());
  for (const messages of Object.values(errors)) {
    expect(Array.isArray(messages)).toBe(true);
    for (const message of messages as unknown[]) expect(typeof message).toBe('string');
  }
}

describe('the root site (DRF)', () => {
  it('writes and reads each kind: string, text, enum, integer, decimal, json, date, many-to-many', async () => {
    const created = await alice.root.post('/posts/').send({ ...FULL, tags: [tagIds[0], tagIds[1]] }).expect(201);
    expect(created.body).toMatchObject({
      title: 'Every kind',
      body: FULL.body,
      status: 'draft',
      published_at: null,
      reading_minutes: 3,
      price: '4.50',
      metadata: { lang: 'en', featured: true, scores: [1, 2] },
      publish_on: '2025-01-31',
      author_id: alice.user.id,
      tags: [tagIds[0], tagIds[1]],
      reply_count: 0,
    });
    const read = await alice.root.get(`/posts/${created.body.id}/`).expect(200);
    expect(read.body).toEqual(created.body);
  });

  it('takes nulls where fields are nullable, and leaves them null when left out', async () => {
    const created = await alice.root.post('/posts/').send({ title: 'Bare', reading_minutes: null, price: null, metadata: null, publish_on: null }).expect(201);
    expect(created.body).toMatchObject({ body: '', status: 'draft', reading_minutes: null, price: null, metadata: null, publish_on: null, tags: [] });
    const bare = await alice.root.post('/posts/').send({ title: 'Barer' }).expect(201);
    expect(bare.body).toMatchObject({ reading_minutes: null, price: null, metadata: null, publish_on: null, tags: [] });
  });

  it('keeps JSON arrays, numbers, booleans and nested objects', async () => {
    for (const metadata of [[1, 'two', { three: 3 }], 42, true, { a: { b: { c: [true, null] } } }]) {
      const created = await alice.root.post('/posts/').send({ title: 'Json', metadata }).expect(201);
      expect(created.body.metadata).toEqual(metadata);
      const read = await alice.root.get(`/posts/${created.body.id}/`).expect(200);
      expect(read.body.metadata).toEqual(metadata);
    }
  });

  // A JSON string is a JSON value as any other (DRF's JSONField, a Laravel `array` cast keep it).
  it('keeps a JSON string', async () => {
    const created = await alice.root.post('/posts/').send({ title: 'Json text', metadata: 'text' }).expect(201);
    expect(created.body.metadata).toBe('text');
    const read = await alice.api.get(`/api/posts/${created.body.id}`).expect(200);
    expect(read.body.post.metadata).toBe('text');
  });

  it('reads a form as a browser sends it: JSON as its text, an empty number or date as null, tags by commas', async () => {
    const form = { title: 'From a form', metadata: '{"lang": "ja"}', reading_minutes: '', publish_on: '', price: '', tags: tagIds.slice(0, 2).join(',') };
    const created = await alice.root.post('/posts/').type('form').send(form).expect(201);
    expect(created.body).toMatchObject({ metadata: { lang: 'ja' }, reading_minutes: null, publish_on: null, price: null, tags: tagIds.slice(0, 2) });
    const refused = await alice.root.post('/posts/').type('form').send({ ...form, metadata: '{not json' }).expect(400);
    expectFieldErrors(refused.body, ['metadata']);
  });

  it.each([
    ['repeated, as a multiple select sends them', (ids: number[]) => ids.map((id) => `tags=${id}`).join('&')],
    ['in brackets, as a Laravel client sends them', (ids: number[]) => ids.map((id) => `tags%5B%5D=${id}`).join('&')],
    ['indexed, as qs and PHP write them, in their indexes\' order', (ids: number[]) => ids.map((id, index) => `tags%5B${index}%5D=${id}`).reverse().join('&')],
    ['as one list by commas', (ids: number[]) => `tags=${ids.join(',')}`],
  ])('takes every tag a form sends %s, on both sites', async (_case, tags) => {
    const body = `title=Tagged+by+a+form&${tags(tagIds.slice(0, 2))}`;
    const root = await alice.root.post('/posts/').type('form').send(body).expect(201);
    expect(root.body.tags).toEqual(tagIds.slice(0, 2));
    const api = await alice.api.post('/api/posts').type('form').send(body).expect(201);
    expect(api.body.post.tags).toEqual(tagIds.slice(0, 2));
  });

  it('refuses a value of the wrong kind in each field with a 400 naming the field', async () => {
    const refused = await alice.root
      .post('/posts/')
      .send({ title: 'x'.repeat(201), status: 'archived', reading_minutes: 0, price: '1.234', publish_on: '2025-13-01', tags: 'typescript' })
      .expect(400);
    expectFieldErrors(refused.body, ['title', 'status', 'reading_minutes', 'price', 'publish_on', 'tags']);
  });

  it('refuses integers that are no whole numbers, decimals with too many digits, dates that are no dates', async () => {
    const refused = await alice.root.post('/posts/').send({ title: 'x', reading_minutes: '2.5', price: '1234567.89', publish_on: 'yesterday' }).expect(400);
    expectFieldErrors(refused.body, ['reading_minutes', 'price', 'publish_on']);
    const notNumbers = await alice.root.post('/posts/').send({ title: 'x', reading_minutes: true, price: 'abc' }).expect(400);
    expectFieldErrors(notNumbers.body, ['reading_minutes', 'price']);
  });

  it('requires the title, and writes nothing refused', async () => {
    const before = await client.services.registry.get('Post').model.count();
    const refused = await alice.root.post('/posts/').send({ body: 'no title' }).expect(400);
    expectFieldErrors(refused.body, ['title']);
    expect(await client.services.registry.get('Post').model.count()).toBe(before);
  });

  it('ignores the read-only fields: the author is the writer, the publication time the server’s', async () => {
    const created = await alice.root.post('/posts/').send({ title: 'Mine', author_id: bob.user.id, published_at: '2020-01-01T00:00:00Z', reply_count: 9, excerpt: 'no' }).expect(201);
    expect(created.body).toMatchObject({ author_id: alice.user.id, published_at: null, reply_count: 0, excerpt: '' });
  });

  it('updates each kind with PATCH', async () => {
    const created = await alice.root.post('/posts/').send(FULL).expect(201);
    const patched = await alice.root
      .patch(`/posts/${created.body.id}/`)
      .send({ reading_minutes: 10, price: 12, metadata: ['x'], publish_on: '2026-02-28', title: 'Renamed' })
      .expect(200);
    expect(patched.body).toMatchObject({ reading_minutes: 10, price: '12.00', metadata: ['x'], publish_on: '2026-02-28', title: 'Renamed', body: FULL.body });
  });
});

describe('the token site (Laravel)', () => {
  it('writes and reads each kind under the post key', async () => {
    const created = await alice.api.post('/api/posts').send({ ...FULL, tags: [tagIds[2]] }).expect(201);
    expect(created.body.post).toMatchObject({
      title: 'Every kind',
      status: 'draft',
      reading_minutes: 3,
      price: '4.50',
      metadata: FULL.metadata,
      publish_on: '2025-01-31',
      author_id: alice.user.id,
      tags: [tagIds[2]],
    });
    const read = await alice.api.get(`/api/posts/${created.body.post.id}`).expect(200);
    expect(read.body.post).toEqual(created.body.post);
    const list = await alice.api.get('/api/posts').expect(200);
    expect(list.body.posts.map((post: { id: number }) => post.id)).toContain(created.body.post.id);
  });

  it('refuses a value of the wrong kind with a 422: a message and the errors by field', async () => {
    const refused = await alice.api
      .post('/api/posts')
      .send({ title: 'x'.repeat(201), status: 'archived', reading_minutes: 'many', price: 'abc', metadata: { ok: true }, publish_on: '31/01/2025', tags: 7 })
      .expect(422);
    expect(typeof refused.body.message).toBe('string');
    expectFieldErrors(refused.body.errors, ['title', 'status', 'reading_minutes', 'price', 'publish_on', 'tags']);
  });

  it('updates each kind with PATCH', async () => {
    const created = await alice.api.post('/api/posts').send(FULL).expect(201);
    const patched = await alice.api.patch(`/api/posts/${created.body.post.id}`).send({ price: '0.5', metadata: null, status: 'draft' }).expect(200);
    expect(patched.body.post).toMatchObject({ price: '0.50', metadata: null, status: 'draft' });
  });
});

describe('a writable reference', () => {
  it('is written by id under its own name, on both sites', async () => {
    const post = await alice.root.post('/posts/').send({ title: 'Replied', body: 'text' }).expect(201);
    const reply = await bob.root.post('/replies/').send({ post_id: post.body.id, body: 'First!' }).expect(201);
    expect(reply.body).toMatchObject({ post_id: post.body.id, parent_id: null, author_id: bob.user.id });
    const child = await alice.api.post('/api/replies').send({ post_id: post.body.id, parent_id: reply.body.id, body: 'Thanks' }).expect(201);
    expect(child.body.reply).toMatchObject({ post_id: post.body.id, parent_id: reply.body.id, author_id: alice.user.id });
  });

  it('refuses an unknown id as a field error, not a 500', async () => {
    const root = await bob.root.post('/replies/').send({ post_id: 999_999, body: 'Lost' }).expect(400);
    expectFieldErrors(root.body, ['post_id']);
    const api = await bob.api.post('/api/replies').send({ post_id: 999_999, parent_id: 888_888, body: 'Lost' }).expect(422);
    expectFieldErrors(api.body.errors, ['post_id', 'parent_id']);
    const notAnId = await bob.root.post('/replies/').send({ post_id: 'first', body: 'Lost' }).expect(400);
    expectFieldErrors(notAnId.body, ['post_id']);
  });

  it('refuses a reference that is no id as DRF does (incorrect type), and one of no row (does not exist), on both sites', async () => {
    const word = await bob.root.post('/replies/').send({ post_id: 'abc', body: 'to what?' }).expect(400);
    expect(word.body).toEqual({ post_id: ['Incorrect type. Expected pk value, received string.'] });
    for (const fraction of ['1.5', '1.0']) {
      const refused = await bob.root.post('/replies/').send({ post_id: fraction, body: 'to what?' }).expect(400);
      expect(refused.body).toEqual({ post_id: ['Incorrect type. Expected pk value, received string.'] });
    }
    const none = await bob.root.post('/replies/').send({ post_id: 999_999, body: 'to what?' }).expect(400);
    expect(none.body).toEqual({ post_id: ['Invalid pk "999999" - object does not exist.'] });
    const api = await bob.api.post('/api/replies').send({ post_id: 'abc', body: 'to what?' }).expect(422);
    expect(api.body.errors).toEqual({ post_id: ['The post id field must be an integer.'] });
  });

  it('filters by the reference, and by a nullable one being null', async () => {
    const post = await alice.root.post('/posts/').send({ title: 'Thread', body: 'text' }).expect(201);
    const top = await bob.root.post('/replies/').send({ post_id: post.body.id, body: 'top' }).expect(201);
    await alice.root.post('/replies/').send({ post_id: post.body.id, parent_id: top.body.id, body: 'under' }).expect(201);
    const all = await bob.root.get(`/replies/?post_id=${post.body.id}`).expect(200);
    expect(all.body.count).toBe(2);
    const tops = await bob.root.get(`/replies/?post_id=${post.body.id}&parent_id__isnull=true`).expect(200);
    expect(tops.body.results.map((reply: { id: number }) => reply.id)).toEqual([top.body.id]);
    const under = await bob.api.get(`/api/replies?filter[parent_id]=${top.body.id}`).expect(200);
    expect(under.body.replies.map((reply: { body: string }) => reply.body)).toEqual(['under']);
  });

  it('goes with its post: deleting the post deletes its replies (CASCADE)', async () => {
    const post = await alice.root.post('/posts/').send({ title: 'Short-lived', body: 'text' }).expect(201);
    await bob.root.post('/replies/').send({ post_id: post.body.id, body: 'gone soon' }).expect(201);
    await alice.root.delete(`/posts/${post.body.id}/`).expect(204);
    expect(await client.services.registry.get('Reply').model.count({ where: { post_id: post.body.id } })).toBe(0);
  });
});

describe('a many-to-many', () => {
  const joinRows = (postId: number): Promise<number> =>
    client.services.sequelize.query(`SELECT count(*) AS n FROM post_tags WHERE post_id = ${postId}`, { type: 'SELECT' }).then((rows) => Number((rows as unknown as { n: number | string }[])[0]?.n));

  it('is read as ids and written as a list of ids; a PATCH with one less removes it', async () => {
    const created = await alice.root.post('/posts/').send({ title: 'Tagged', tags: tagIds }).expect(201);
    expect([...created.body.tags].sort()).toEqual([...tagIds].sort());
    // A moment later than the create, so that the update time can be seen to move.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const fewer = await alice.root.patch(`/posts/${created.body.id}/`).send({ tags: [tagIds[0], tagIds[2]] }).expect(200);
    expect([...fewer.body.tags].sort()).toEqual([tagIds[0], tagIds[2]].sort());
    // Changing only the links is an update of the post.
    expect(fewer.body.updated_at).not.toBe(created.body.updated_at);
    expect(await joinRows(created.body.id)).toBe(2);
    const none = await alice.api.patch(`/api/posts/${created.body.id}`).send({ tags: [] }).expect(200);
    expect(none.body.post.tags).toEqual([]);
    expect(await joinRows(created.body.id)).toBe(0);
  });

  it('is left alone by a PATCH that does not name it', async () => {
    const created = await alice.root.post('/posts/').send({ title: 'Kept', tags: [tagIds[1]] }).expect(201);
    const patched = await alice.root.patch(`/posts/${created.body.id}/`).send({ title: 'Kept still' }).expect(200);
    expect(patched.body.tags).toEqual([tagIds[1]]);
  });

  it('refuses an unknown tag id as a field error and writes nothing', async () => {
    const before = await client.services.registry.get('Post').model.count();
    const root = await alice.root.post('/posts/').send({ title: 'Ghost tag', tags: [tagIds[0], 999_999] }).expect(400);
    expectFieldErrors(root.body, ['tags']);
    const api = await alice.api.post('/api/posts').send({ title: 'Ghost tag', tags: [999_999] }).expect(422);
    expectFieldErrors(api.body.errors, ['tags']);
    const notIds = await alice.root.post('/posts/').send({ title: 'Ghost tag', tags: ['typescript'] }).expect(400);
    expectFieldErrors(notIds.body, ['tags']);
    // Brackets that name no index make no list: refused, never a post without the tags.
    const named = await alice.root.post('/posts/').type('form').send(`title=Ghost+tag&tags%5Bx%5D=${tagIds[0]}`).expect(400);
    expectFieldErrors(named.body, ['tags']);
    expect(await client.services.registry.get('Post').model.count()).toBe(before);
  });

  it('goes with either side: deleting a tag unlinks it from its posts', async () => {
    const tag = await editor.root.post('/tags/').send({ name: 'ephemeral' }).expect(201);
    const post = await alice.root.post('/posts/').send({ title: 'Linked', tags: [tag.body.id, tagIds[0]] }).expect(201);
    await editor.root.delete(`/tags/${tag.body.id}/`).expect(204);
    const read = await alice.root.get(`/posts/${post.body.id}/`).expect(200);
    expect(read.body.tags).toEqual([tagIds[0]]);
  });

  it('filters posts by tag on both sites', async () => {
    const tag = await editor.root.post('/tags/').send({ name: 'filtered' }).expect(201);
    const tagged = await alice.root.post('/posts/').send({ title: 'With the tag', tags: [tag.body.id] }).expect(201);
    await alice.root.post('/posts/').send({ title: 'Without it', tags: [tagIds[0]] }).expect(201);
    const root = await alice.root.get(`/posts/?tags=${tag.body.id}`).expect(200);
    expect(root.body.results.map((post: { id: number }) => post.id)).toEqual([tagged.body.id]);
    const api = await alice.api.get(`/api/posts?filter[tags]=${tag.body.id}`).expect(200);
    expect(api.body.posts.map((post: { id: number }) => post.id)).toEqual([tagged.body.id]);
  });

  it("refuses at the root a status that is none of its choices, as django-filter's ChoiceFilter does; its __in and spatie's filter under /api find nothing", async () => {
    const root = await alice.root.get('/posts/?status=archived').expect(400);
    expect(root.body).toEqual({ status: ['Select a valid choice. archived is not one of the available choices.'] });
    // Its `__in`, a list of text, does not check them.
    expect((await alice.root.get('/posts/?status__in=archived').expect(200)).body.count).toBe(0);
    expect((await alice.root.get('/posts/?status=draft').expect(200)).body.count).toBeGreaterThan(0);
    expect((await alice.api.get('/api/posts?filter[status]=archived').expect(200)).body.posts).toEqual([]);
  });
});

describe('tags', () => {
  it('are unique by name, and searched and filtered by it on both sites', async () => {
    await editor.root.post('/tags/').send({ name: 'search-me' }).expect(201);
    const duplicate = await editor.root.post('/tags/').send({ name: 'search-me' }).expect(400);
    expectFieldErrors(duplicate.body, ['name']);
    const searched = await alice.root.get('/tags/?search=arch-m').expect(200);
    expect(searched.body.results.map((tag: { name: string }) => tag.name)).toEqual(['search-me']);
    const filtered = await alice.api.get('/api/tags?filter[name]=search-me').expect(200);
    expect(filtered.body.tags.map((tag: { name: string }) => tag.name)).toEqual(['search-me']);
  });
});
