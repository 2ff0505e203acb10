/** The publish action: POST /posts/<pk>/publish/ and POST /api/posts/<pk>/publish. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestClient } from 'declarest/testing';
import { asJson, author, blogClient, type Author } from './support.js';

let client: TestClient;
let alice: Author;
let bob: Author;
let staff: Author;

beforeAll(async () => {
  client = await blogClient();
  alice = await author(client, 'alice');
  bob = await author(client, 'bob');
  staff = await author(client, 'editor', { staff: true });
});

afterAll(async () => {
  // Every answer the tests got is one the blog's own /openapi.json documents.
  const undocumented = await client.undocumentedAnswers();
  await client.close();
  expect(undocumented).toEqual([]);
});

async function draft(body = 'text'): Promise<number> {
  return (await alice.root.post('/posts/').send({ title: 'To publish', body }).expect(201)).body.id;
}

describe('publish', () => {
  it('lets the owner publish a draft on the root site: the post as shown, published, with its time', async () => {
    const id = await draft();
    const published = await alice.root.post(`/posts/${id}/publish/`).expect(200);
    expect(published.body).toMatchObject({ id, status: 'published', title: 'To publish' });
    expect(published.body.published_at).not.toBeNull();
  });

  it('lets the owner publish on the token site, under the post key', async () => {
    const id = await draft();
    const published = await alice.api.post(`/api/posts/${id}/publish`).expect(200);
    expect(published.body.post).toMatchObject({ id, status: 'published' });
  });

  it('lets staff publish anyone’s post', async () => {
    const id = await draft();
    await staff.root.post(`/posts/${id}/publish/`).expect(200);
  });

  it('refuses another user (403) and the anonymous (401), and leaves the post a draft', async () => {
    const id = await draft();
    await bob.root.post(`/posts/${id}/publish/`).expect(403);
    await bob.api.post(`/api/posts/${id}/publish`).expect(403);
    const anonymous = asJson(client.anonymous);
    await anonymous.post(`/posts/${id}/publish/`).expect(401);
    const api = await anonymous.post(`/api/posts/${id}/publish`).expect(401);
    expect(api.body).toEqual({ message: 'Unauthenticated.' });
    expect((await alice.root.get(`/posts/${id}/`).expect(200)).body.status).toBe('draft');
  });

  it('answers 404 for a post that is not there', async () => {
    await alice.root.post('/posts/999999/publish/').expect(404);
    await alice.api.post('/api/posts/999999/publish').expect(404);
  });

  it('runs the hooks: an empty draft is refused', async () => {
    const id = await draft('');
    const refused = await alice.root.post(`/posts/${id}/publish/`).expect(400);
    expect(refused.body).toEqual({ status: ['A post with an empty body cannot be published.'] });
    await alice.api.post(`/api/posts/${id}/publish`).expect(422);
  });

  it('takes POST only, and says so in Allow', async () => {
    const id = await draft();
    const options = await alice.root.options(`/posts/${id}/publish/`).expect(200);
    expect(options.headers.allow).toBe('POST, OPTIONS');
    const refused = await alice.root.get(`/posts/${id}/publish/`).expect(405);
    expect(refused.headers.allow).toBe('POST, OPTIONS');
    const api = await alice.api.get(`/api/posts/${id}/publish`).expect(405);
    expect(api.headers.allow).toBe('POST, OPTIONS');
  });

  it('is in the API description on both sites', async () => {
    const document = await client.anonymous.get('/openapi.json').expect(200);
    const paths = document.body.paths as Record<string, Record<string, unknown>>;
    expect(paths['/posts/{pk}/publish/']).toHaveProperty('post');
    expect(paths['/api/posts/{pk}/publish']).toHaveProperty('post');
    expect(paths['/posts/{pk}/publish/']).not.toHaveProperty('get');
  });
});
