/** Simultaneous edits of a post (hooks and many-to-many links: written through Sequelize) under one If-Match. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestClient } from 'declarest/testing';
import { author, blogClient, type Author } from './support.js';

const SIMULTANEOUS = 5;

let client: TestClient;
let alice: Author;
let tagIds: number[];

beforeAll(async () => {
  client = await blogClient();
  alice = await author(client, 'alice');
  // Tags are staff's to make.
  const editor = await author(client, 'editor', { staff: true });
  tagIds = [];
  for (let index = 0; index < SIMULTANEOUS; index += 1) tagIds.push((await editor.root.post('/tags/').send({ name: `tag-${index}` }).expect(201)).body.id);
});

afterAll(async () => {
  // Every answer the tests got is one the blog's own /openapi.json documents.
  const undocumented = await client.undocumentedAnswers();
  await client.close();
  expect(undocumented).toEqual([]);
});

describe('a post edited by several clients holding the same ETag', () => {
  it('takes exactly one edit on the root site: the others answer 412, and the post and its tags are the winner’s', async () => {
    const post = await alice.root.post('/posts/').send({ title: 'Contended', body: 'text', tags: [] }).expect(201);
    const etag = (await alice.root.get(`/posts/${post.body.id}/`).expect(200)).headers.etag as string;
    const answers = await Promise.all(
      tagIds.map((tagId, index) => alice.root.patch(`/posts/${post.body.id}/`).set('If-Match', etag).send({ title: `edit ${index}`, tags: [tagId] })),
    );
    const won = answers.filter((answer) => answer.status === 200);
    expect(won).toHaveLength(1);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      expect(refused.status).toBe(412);
      expect(Object.keys(refused.body)).toEqual(['detail']);
    }
    const read = await alice.root.get(`/posts/${post.body.id}/`).expect(200);
    expect({ title: read.body.title, tags: read.body.tags }).toEqual({ title: won[0]!.body.title, tags: won[0]!.body.tags });
    expect(read.headers.etag).toBe(won[0]!.headers.etag);
  });

  it('takes exactly one of an edit and deletes on the token site: the others answer 412 (or 404 once it is gone) in its shape', async () => {
    const post = await alice.api.post('/api/posts').send({ title: 'Contended', body: 'text', tags: [tagIds[0]] }).expect(201);
    const id = post.body.post.id as number;
    const etag = (await alice.api.get(`/api/posts/${id}`).expect(200)).headers.etag as string;
    const answers = await Promise.all([
      alice.api.patch(`/api/posts/${id}`).set('If-Match', etag).send({ title: 'edited', tags: [] }),
      ...Array.from({ length: SIMULTANEOUS - 1 }, () => alice.api.delete(`/api/posts/${id}`).set('If-Match', etag)),
    ]);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
    for (const refused of answers.filter((answer) => answer.status !== 200)) {
      expect([404, 412]).toContain(refused.status);
      expect(Object.keys(refused.body)).toEqual(['message']);
    }
  });

  it('takes exactly one publication by the action: the others answer 412', async () => {
    const post = await alice.root.post('/posts/').send({ title: 'Draft', body: 'text' }).expect(201);
    const etag = (await alice.root.get(`/posts/${post.body.id}/`).expect(200)).headers.etag as string;
    const answers = await Promise.all(Array.from({ length: SIMULTANEOUS }, () => alice.root.post(`/posts/${post.body.id}/publish/`).set('If-Match', etag)));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, ...Array.from({ length: SIMULTANEOUS - 1 }, () => 412)]);
  });
});
