/** Relations shown with posts (`?expand=` at the root, `include=` under /api), their cost in queries, and computed fields. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestClient } from 'declarest/testing';
import { author, blogClient, countQueries, type Author } from './support.js';

let client: TestClient;
let alice: Author;
let bob: Author;
let tagIds: number[];
let postId: number;
let replyIds: number[];

beforeAll(async () => {
  client = await blogClient();
  alice = await author(client, 'alice');
  bob = await author(client, 'bob');
  // Tags are staff's to make.
  const editor = await author(client, 'editor', { staff: true });
  tagIds = [];
  for (const name of ['first', 'second']) tagIds.push((await editor.root.post('/tags/').send({ name }).expect(201)).body.id);
  const post = await alice.root.post('/posts/').send({ title: 'Expanded', body: 'A body longer than forty characters, to be cut short.', tags: tagIds }).expect(201);
  postId = post.body.id;
  const top = await bob.root.post('/replies/').send({ post_id: postId, body: 'Top reply' }).expect(201);
  const child = await alice.root.post('/replies/').send({ post_id: postId, parent_id: top.body.id, body: 'Nested reply' }).expect(201);
  replyIds = [top.body.id, child.body.id];
});

afterAll(async () => {
  // Every answer the tests got is one the blog's own /openapi.json documents.
  const undocumented = await client.undocumentedAnswers();
  await client.close();
  expect(undocumented).toEqual([]);
});

describe('expand on the root site', () => {
  it('shows the author, the tags, the replies and each reply’s author as nested objects', async () => {
    const read = await alice.root.get(`/posts/${postId}/?expand=author,tags,replies,replies.author`).expect(200);
    expect(read.body.author).toEqual({ id: alice.user.id, username: 'alice', name: 'alice' });
    expect(read.body.tags.map((tag: { id: number; name: string }) => [tag.id, tag.name])).toEqual([
      [tagIds[0], 'first'],
      [tagIds[1], 'second'],
    ]);
    expect(read.body.replies.map((reply: { id: number }) => reply.id)).toEqual(replyIds);
    expect(read.body.replies[0]).toMatchObject({ body: 'Top reply', parent_id: null, author: { id: bob.user.id, username: 'bob', name: 'bob' } });
    expect(read.body.replies[1]).toMatchObject({ body: 'Nested reply', parent_id: replyIds[0], author: { id: alice.user.id, username: 'alice' } });
  });

  it('shows the same in lists', async () => {
    const list = await alice.root.get('/posts/?expand=tags,replies.author').expect(200);
    const post = list.body.results.find((row: { id: number }) => row.id === postId);
    expect(post.tags).toHaveLength(2);
    expect(post.replies[1].author.username).toBe('alice');
  });

  it('shows tags as ids and the author by name when not expanded', async () => {
    const read = await alice.root.get(`/posts/${postId}/`).expect(200);
    expect(read.body.tags).toEqual(tagIds);
    expect(read.body.author).toBe('alice');
    expect(read.body).not.toHaveProperty('replies');
  });

  it('expands a reply’s post, parent and author', async () => {
    const read = await alice.root.get(`/replies/${replyIds[1]}/?expand=post,parent,author`).expect(200);
    expect(read.body.post).toMatchObject({ id: postId, title: 'Expanded' });
    expect(read.body.parent).toMatchObject({ id: replyIds[0], body: 'Top reply' });
    expect(read.body.author).toMatchObject({ username: 'alice' });
  });

  it('ignores a relation not declared expandable, as drf-flex-fields does; /api refuses it, as spatie does', async () => {
    const read = await alice.root.get(`/posts/${postId}/?expand=tokens,author`).expect(200);
    expect(read.body).not.toHaveProperty('tokens');
    expect(read.body.author).toMatchObject({ username: 'alice' });
    await alice.api.get(`/api/posts?include=tokens`).expect(400);
  });
});

describe('include on the token site', () => {
  it('shows the tags, the replies and each reply’s author', async () => {
    const read = await alice.api.get(`/api/posts/${postId}?include=author,tags,replies,replies.author`).expect(200);
    const post = read.body.post;
    expect(post.tags.map((tag: { name: string }) => tag.name)).toEqual(['first', 'second']);
    expect(post.replies.map((reply: { id: number }) => reply.id)).toEqual(replyIds);
    // The token site shows users at /api/user only: an author is shown by name there.
    expect(post.author).toBe('alice');
    expect(post.replies[0].author).toBe('bob');
  });

  it('shows the logged-in author’s posts at /api/user, with their computed fields', async () => {
    const read = await alice.api.get('/api/user').expect(200);
    expect(read.body.user).toMatchObject({ id: alice.user.id, username: 'alice' });
    const mine = read.body.user.posts.find((post: { id: number }) => post.id === postId);
    expect(mine).toMatchObject({ title: 'Expanded', author_id: alice.user.id });
    expect(mine.tags).toEqual(tagIds);
    expect(mine.reply_count).toBe(2);
    expect(mine.excerpt).toBe('A body longer than forty characters, to ');
  });
});

describe('the cost of a list', () => {
  async function postsBy(someone: Author, count: number): Promise<void> {
    for (let index = 0; index < count; index += 1) {
      const post = await someone.root.post('/posts/').send({ title: `Post ${index}`, body: 'text', tags: tagIds }).expect(201);
      await someone.root.post('/replies/').send({ post_id: post.body.id, body: 'one' }).expect(201);
      await someone.root.post('/replies/').send({ post_id: post.body.id, body: 'two' }).expect(201);
    }
  }

  it('takes as many queries for 20 posts as for 2, with their tags and replies expanded', async () => {
    const few = await author(client, 'few');
    const many = await author(client, 'many');
    await postsBy(few, 2);
    await postsBy(many, 20);
    const rootList = (someone: Author) => async () => {
      const list = await someone.root.get(`/posts/?author_id=${someone.user.id}&expand=tags,replies,replies.author&page_size=50`).expect(200);
      expect(list.body.results[0].replies).toHaveLength(2);
    };
    const apiList = (someone: Author) => async () => {
      const list = await someone.api.get(`/api/posts?filter[author_id]=${someone.user.id}&include=tags,replies,replies.author`).expect(200);
      expect(list.body.posts[0].tags).toHaveLength(2);
    };
    const rootFew = await countQueries(client, rootList(few));
    const rootMany = await countQueries(client, rootList(many));
    expect(rootFew).toBeGreaterThan(0);
    expect(rootMany).toBe(rootFew);
    const apiFew = await countQueries(client, apiList(few));
    const apiMany = await countQueries(client, apiList(many));
    expect(apiMany).toBe(apiFew);
  });
});

describe('computed fields', () => {
  it('count the replies and cut the body to an excerpt, on both sites', async () => {
    const root = await alice.root.get(`/posts/${postId}/`).expect(200);
    expect(root.body.reply_count).toBe(2);
    expect(root.body.excerpt).toBe('A body longer than forty characters, to ');
    const api = await alice.api.get(`/api/posts/${postId}`).expect(200);
    expect(api.body.post).toMatchObject({ reply_count: 2, excerpt: 'A body longer than forty characters, to ' });
  });

  it('follow the rows: a new reply counts, a new body makes a new excerpt', async () => {
    const post = await alice.root.post('/posts/').send({ title: 'Counted', body: 'short' }).expect(201);
    expect(post.body).toMatchObject({ reply_count: 0, excerpt: 'short' });
    await bob.api.post('/api/replies').send({ post_id: post.body.id, body: 'hi' }).expect(201);
    const patched = await alice.root.patch(`/posts/${post.body.id}/`).send({ body: 'changed' }).expect(200);
    expect(patched.body).toMatchObject({ reply_count: 1, excerpt: 'changed' });
    const list = await alice.root.get(`/posts/?author_id=${alice.user.id}&ordering=id`).expect(200);
    expect(list.body.results.map((row: { reply_count: number }) => row.reply_count)).toEqual([2, 1]);
  });

  it('cannot be ordered by: the root site ignores the name (as DRF), /api refuses it (as spatie)', async () => {
    const root = await alice.root.get('/posts/?ordering=reply_count').expect(200);
    const plain = await alice.root.get('/posts/').expect(200);
    expect(root.body.results.map((post: { id: number }) => post.id)).toEqual(plain.body.results.map((post: { id: number }) => post.id));
    await alice.api.get('/api/posts?sort=reply_count').expect(400);
  });
});

describe('list queries', () => {
  it('search title and body, filter by status, order, and page by page, limit/offset or cursor', async () => {
    const searched = await alice.root.get('/posts/?search=forty').expect(200);
    expect(searched.body.results.map((post: { id: number }) => post.id)).toEqual([postId]);
    const drafts = await alice.api.get(`/api/posts?filter[status]=draft&filter[author_id]=${alice.user.id}`).expect(200);
    expect(drafts.body.posts.length).toBeGreaterThan(0);
    const limited = await alice.root.get('/posts/?limit=1&offset=0&ordering=title').expect(200);
    expect(limited.body.results).toHaveLength(1);
    const first = await alice.root.get('/posts/?cursor=&ordering=-created_at').expect(200);
    expect(first.body).toHaveProperty('next');
    const sparse = await alice.root.get(`/posts/${postId}/?fields=id,title`).expect(200);
    expect(sparse.body).toEqual({ id: postId, title: 'Expanded' });
    const byPublication = await alice.api.get('/api/posts?sort=-published_at').expect(200);
    expect(Array.isArray(byPublication.body.posts)).toBe(true);
  });
});
