/** Tags are shared by every post: any signed-in user reads them, only staff change them. */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestClient } from 'declarest/testing';
import { author, blogClient, type Author } from './support.js';

let client: TestClient;
let alice: Author;
let editor: Author;
let root: Author;

beforeAll(async () => {
  client = await blogClient();
  alice = await author(client, 'alice');
  editor = await author(client, 'editor', { staff: true });
  root = await author(client, 'root', { superuser: true });
});

afterAll(async () => {
  // Every answer the tests got is one the blog's own /openapi.json documents.
  const undocumented = await client.undocumentedAnswers();
  await client.close();
  expect(undocumented).toEqual([]);
});

const tags = () => client.services.registry.get('Tag').model;

describe('a user who is not staff', () => {
  it('reads the tags on both sites', async () => {
    const { id } = (await editor.root.post('/tags/').send({ name: 'readable' }).expect(201)).body;
    expect((await alice.root.get('/tags/').expect(200)).body.results.map((tag: { name: string }) => tag.name)).toContain('readable');
    expect((await alice.root.get(`/tags/${id}/`).expect(200)).body.name).toBe('readable');
    expect((await alice.api.get(`/api/tags/${id}`).expect(200)).body.tag.name).toBe('readable');
  });

  it('may not make, rename or delete a tag on either site, and the tags stay as they were', async () => {
    const { id } = (await editor.root.post('/tags/').send({ name: 'shared' }).expect(201)).body;
    const refusals = [
      await alice.root.post('/tags/').send({ name: 'mine' }),
      await alice.root.put(`/tags/${id}/`).send({ name: 'renamed' }),
      await alice.root.patch(`/tags/${id}/`).send({ name: 'renamed' }),
      await alice.root.delete(`/tags/${id}/`),
    ];
    expect(refusals.map((res) => [res.status, res.body])).toEqual(Array(4).fill([403, { detail: 'You do not have permission to perform this action.' }]));
    const api = [
      await alice.api.post('/api/tags').send({ name: 'mine' }),
      await alice.api.put(`/api/tags/${id}`).send({ name: 'renamed' }),
      await alice.api.patch(`/api/tags/${id}`).send({ name: 'renamed' }),
      await alice.api.delete(`/api/tags/${id}`),
    ];
    expect(api.map((res) => [res.status, res.body])).toEqual(Array(4).fill([403, { message: 'This action is unauthorized.' }]));
    expect((await tags().findAll({ where: { name: ['shared', 'mine', 'renamed'] } })).map((tag) => tag.get('name'))).toEqual(['shared']);
  });
});

describe('the forms and OPTIONS', () => {
  it('offer a user who is not staff no way to make or change a tag, and staff both', async () => {
    const { id } = (await editor.root.post('/tags/').send({ name: 'formless' }).expect(201)).body;
    for (const path of ['/tags/', `/tags/${id}/`]) {
      expect((await alice.root.options(path).expect(200)).body.actions).toBeUndefined();
      expect(Object.keys((await editor.root.options(path).expect(200)).body.actions)).toEqual([path === '/tags/' ? 'POST' : 'PUT']);
      const forms = async (who: Author): Promise<string[]> => [...(await who.root.get(path).set('Accept', 'text/html').expect(200)).text.matchAll(/class="api-form (\w+)"/g)].map((match) => match[1] ?? '');
      expect(await forms(alice)).toEqual([]);
      expect(await forms(editor)).toEqual(path === '/tags/' ? ['html', 'raw'] : ['delete', 'html', 'raw']);
    }
  });
});

describe('staff and superusers', () => {
  it.each([
    ['staff', 'editor'],
    ['superusers', 'root'],
  ])('%s make, rename and delete tags on both sites', async (_who, name) => {
    const staff = name === 'editor' ? editor : root;
    const made = (await staff.root.post('/tags/').send({ name: `${name}-made` }).expect(201)).body;
    await staff.root.patch(`/tags/${made.id}/`).send({ name: `${name}-renamed` }).expect(200);
    const api = (await staff.api.post('/api/tags').send({ name: `${name}-api` }).expect(201)).body.tag;
    await staff.api.put(`/api/tags/${api.id}`).send({ name: `${name}-api-renamed` }).expect(200);
    await staff.api.delete(`/api/tags/${api.id}`).expect(200);
    await staff.root.delete(`/tags/${made.id}/`).expect(204);
    expect(await tags().count({ where: { name: [`${name}-renamed`, `${name}-api-renamed`] } })).toBe(0);
  });
});
