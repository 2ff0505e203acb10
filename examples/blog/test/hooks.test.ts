/** The post's hooks (publication time, no empty published post) and the writes they stand or fall with. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { clock, type Clock, type HookContext, monotonicClock, setClock } from 'declarest';
import type { TestClient } from 'declarest/testing';
import accessToken from '../resources/access_token.js';
import post from '../resources/post.js';
import reply from '../resources/reply.js';
import tag from '../resources/tag.js';
import user from '../resources/user.js';
import { author, blogClient, type Author } from './support.js';

let client: TestClient;
let alice: Author;

beforeAll(async () => {
  client = await blogClient();
  alice = await author(client, 'alice');
});

afterAll(async () => {
  // Every answer the tests got is one the blog's own /openapi.json documents.
  const undocumented = await client.undocumentedAnswers();
  await client.close();
  expect(undocumented).toEqual([]);
});

/** Runs `work` with the clock stopped at `at` (each timestamp a microsecond later, as the clock stays monotonic). */
async function at<T>(time: string, work: () => Promise<T>): Promise<T> {
  const stopped: Clock = monotonicClock(() => Date.parse(time));
  const previous = setClock(stopped);
  try {
    return await work();
  } finally {
    setClock(previous);
  }
}

describe('published_at', () => {
  it('is set by the server when a post is created published', async () => {
    const created = await at('2030-05-01T12:00:00Z', () => alice.root.post('/posts/').send({ title: 'Live', body: 'text', status: 'published' }).expect(201));
    // The clock stopped at that time: the stamps the write took before this one are microseconds apart.
    expect(created.body.published_at).toMatch(/^2030-05-01T12:00:00\.000\d{3}$/);
  });

  it('stays null for a draft, and is set when an update publishes it', async () => {
    const draft = await alice.api.post('/api/posts').send({ title: 'Later', body: 'text' }).expect(201);
    expect(draft.body.post.published_at).toBeNull();
    const published = await at('2030-06-01T08:30:00Z', () => alice.api.patch(`/api/posts/${draft.body.post.id}`).send({ status: 'published' }).expect(200));
    expect(published.body.post.status).toBe('published');
    expect(published.body.post.published_at).toMatch(/^2030-06-01T08:30:00\.000\d{3}Z$/);
  });

  it('is kept by later updates, and when a post goes back to draft and is published again', async () => {
    const created = await at('2030-07-01T00:00:00Z', () => alice.root.post('/posts/').send({ title: 'Once', body: 'text', status: 'published' }).expect(201));
    const edited = await alice.root.patch(`/posts/${created.body.id}/`).send({ title: 'Once, edited' }).expect(200);
    expect(edited.body.published_at).toBe(created.body.published_at);
    await alice.root.patch(`/posts/${created.body.id}/`).send({ status: 'draft' }).expect(200);
    const again = await alice.root.patch(`/posts/${created.body.id}/`).send({ status: 'published' }).expect(200);
    expect(again.body.published_at).toBe(created.body.published_at);
  });

  it('uses the framework’s clock', () => {
    expect(clock().now()).toBeInstanceOf(Date);
  });
});

describe('an empty body', () => {
  const count = (): Promise<number> => client.services.registry.get('Post').model.count();

  it('is refused when publishing, in each site’s shape, on the status field, and nothing is written', async () => {
    const before = await count();
    const root = await alice.root.post('/posts/').send({ title: 'Empty', body: '   ', status: 'published', tags: [] }).expect(400);
    expect(root.body).toEqual({ status: ['A post with an empty body cannot be published.'] });
    const ja = await client.actingAs(alice.user).post('/posts/').set('Accept-Language', 'ja').send({ title: 'Empty', status: 'published' }).expect(400);
    expect(ja.body).toEqual({ status: ['本文が空の記事は公開できません。'] });
    const api = await alice.api.post('/api/posts').send({ title: 'Empty', status: 'published' }).expect(422);
    expect(api.body).toEqual({
      message: 'A post with an empty body cannot be published.',
      errors: { status: ['A post with an empty body cannot be published.'] },
    });
    expect(await count()).toBe(before);
  });

  it('is fine in a draft; publishing the draft, or emptying a published body, is refused and changes nothing', async () => {
    const draft = await alice.root.post('/posts/').send({ title: 'Draft' }).expect(201);
    expect(draft.body).toMatchObject({ body: '', status: 'draft' });
    await alice.root.patch(`/posts/${draft.body.id}/`).send({ status: 'published' }).expect(400);
    const still = await alice.root.get(`/posts/${draft.body.id}/`).expect(200);
    expect(still.body).toMatchObject({ status: 'draft', published_at: null, updated_at: draft.body.updated_at });
    const live = await alice.root.post('/posts/').send({ title: 'Live', body: 'text', status: 'published' }).expect(201);
    await alice.api.patch(`/api/posts/${live.body.id}`).send({ body: '' }).expect(422);
    expect((await alice.root.get(`/posts/${live.body.id}/`).expect(200)).body.body).toBe('text');
  });
});

describe('a hook that throws', () => {
  it('takes the whole write back with it: the post and its tags', async () => {
    let tagsSeen = -1;
    const failing = {
      ...post,
      hooks: {
        ...post.hooks,
        async afterCreate(ctx: HookContext) {
          const join = ctx.model('Post').sequelize!;
          const [rows] = await join.query('SELECT count(*) AS n FROM post_tags', { transaction: ctx.transaction });
          tagsSeen = Number((rows as { n: number | string }[])[0]?.n);
          throw new Error('the hook failed after the tags were written');
        },
      },
    };
    const broken = await blogClient({ declarations: [user, accessToken, tag, reply, failing] });
    try {
      const bob = await author(broken, 'bob');
      const editor = await author(broken, 'editor', { staff: true });
      const tagIds = [];
      for (const name of ['one', 'two']) tagIds.push((await editor.root.post('/tags/').send({ name }).expect(201)).body.id);
      await bob.root.post('/posts/').send({ title: 'Doomed', body: 'text', tags: tagIds }).expect(500);
      expect(tagsSeen).toBe(2);
      expect(await broken.services.registry.get('Post').model.count()).toBe(0);
      const [rows] = await broken.services.sequelize.query('SELECT count(*) AS n FROM post_tags');
      expect(Number((rows as { n: number | string }[])[0]?.n)).toBe(0);
      await bob.api.post('/api/posts').send({ title: 'Doomed too', body: 'text', tags: tagIds }).expect(500);
      expect(await broken.services.registry.get('Post').model.count()).toBe(0);
    } finally {
      await broken.close();
    }
  });
});
