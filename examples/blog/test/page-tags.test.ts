/** A page of posts is tagged by the versions of every table it shows (posts, their authors, tags and replies): any of them written, a new tag. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestClient } from 'declarest/testing';
import { author, blogClient, type Author } from './support.js';

let client: TestClient;
let alice: Author;
let postId: number;
let tagIds: number[];

beforeAll(async () => {
  client = await blogClient();
  alice = await author(client, 'alice');
  // Tags are staff's to make.
  const editor = await author(client, 'editor', { staff: true });
  tagIds = [];
  for (const name of ['first', 'second']) tagIds.push((await editor.root.post('/tags/').send({ name }).expect(201)).body.id);
  postId = (await alice.root.post('/posts/').send({ title: 'Tagged', body: 'A body.', tags: [tagIds[0]] }).expect(201)).body.id;
});

afterAll(async () => {
  // Every answer the tests got is one the blog's own /openapi.json documents.
  const undocumented = await client.undocumentedAnswers();
  await client.close();
  expect(undocumented).toEqual([]);
});

// The blog's token site lists posts whole, streamed: only its pages (the root site's) carry a tag.
describe('a page of posts', () => {
  const page = '/posts/';
  // One Host for every request: supertest's port changes per request, and a page's links name the host.
  const get = (): ReturnType<Author['root']['get']> => alice.root.get(page).set('Host', '127.0.0.1');

  /** The page's tag now, after checking that sending it back answers 304. */
  async function currentTag(): Promise<string> {
    const res = await get().expect(200);
    const tag = res.headers.etag as string;
    expect(tag).toMatch(/^W\//);
    await get().set('If-None-Match', tag).expect(304);
    return tag;
  }

  async function expectNewTag(before: string): Promise<string> {
    const res = await get().set('If-None-Match', before).expect(200);
    expect(res.headers.etag).not.toBe(before);
    return currentTag();
  }

  it('gets a new tag when a reply is added (its count), a tag linked (its ids) or its author renamed (the name shown)', async () => {
    let tag = await currentTag();
    await alice.root.post('/replies/').send({ post_id: postId, body: 'A reply' }).expect(201);
    tag = await expectNewTag(tag);
    await client.services.sequelize.query(`INSERT INTO post_tags (post_id, tag_id) VALUES (${postId}, ${tagIds[1]})`);
    tag = await expectNewTag(tag);
    await client.services.sequelize.query(`DELETE FROM post_tags WHERE tag_id = ${tagIds[1]}`);
    tag = await expectNewTag(tag);
    await client.services.registry.users().model.update({ name: 'Alice Renamed' }, { where: { id: alice.user.id } });
    await expectNewTag(tag);
  });
});
