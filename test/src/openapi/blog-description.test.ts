import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createTestClient, type TestClient } from '../../../src/testing/index.js';

type Json = { content?: Record<string, { example?: unknown }> };
interface Description {
  tags: { name: string }[];
  paths: Record<string, Record<string, { responses?: Record<string, Json> }> & { $ref?: string }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];
const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

/** The second application gets the same description rules as the first: they come from the framework, not from its declarations. */
describe("the blog's OpenAPI description", () => {
  let client: TestClient;
  const described = async (language: string): Promise<Description> =>
    (await client.anonymous.get('/openapi.json').set('Accept-Language', language)).body as Description;

  beforeAll(async () => {
    client = await createTestClient({ app: 'examples/blog' });
  });
  afterAll(() => client.close());

  test('lists the root API first, each operation once, and the other spelling of each path as a reference', async () => {
    const { tags, paths } = await described('en');
    expect(tags.map((tag) => tag.name).slice(0, 2)).toEqual(['Paginated API', 'Token API']);
    expect(Object.keys(paths)[0]).toBe('/');
    const methods = Object.values(paths).flatMap((item) => Object.keys(item).filter((key) => METHODS.includes(key)));
    expect(methods).not.toContain('head');
    expect(methods).not.toContain('options');
    expect(paths['/posts']?.$ref).toBe('#/paths/~1posts~1');
    expect(paths['/api/posts/']?.$ref).toBe('#/paths/~1api~1posts');
  });

  test("describes Laravel Fortify's login, logout and password update, which its token site serves", async () => {
    const { tags, paths } = await described('en');
    expect(tags.map((tag) => tag.name)).toContain('Browser session (Laravel Fortify)');
    expect(Object.keys(paths['/login'] ?? {})).toEqual(['post']);
    expect(Object.keys(paths['/logout'] ?? {})).toEqual(['post']);
    expect(Object.keys(paths['/user/password'] ?? {})).toEqual(['put']);
    const res = await client.anonymous.post('/login').set('Accept', 'application/json').send({ email: 'nobody', password: 'x' });
    expect(res.status).toBe(419);
  });

  test("shows a page of posts as one page of one post, in the reader's language, in JSON only", async () => {
    for (const [language, title] of [['en', 'Hello, blog'], ['ja', 'こんにちは、ブログ']] as const) {
      const document = await described(language);
      const page = document.paths['/posts/']?.get?.responses?.['200']?.content?.['application/json']?.example as { count: number; next: unknown; results: { title: string }[] };
      expect(page).toMatchObject({ count: 1, next: null, previous: null });
      expect(page.results).toHaveLength(page.count);
      expect(page.results[0]?.title).toBe(title);
      expect(JSON.stringify(document)).not.toContain('"text/html":');
    }
    const english = JSON.stringify((await described('en')).paths['/api/posts']);
    expect(english).not.toMatch(JAPANESE);
  });
});
