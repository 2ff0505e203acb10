import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { field } from '../../../src/resource.js';
import { loadDeclarations } from '../../../src/registry.js';
import { migrationsDir, projectRoot } from '../../../src/paths.js';
import { isAuthenticated, isOwnerOrStaff } from '../../../src/permissions.js';
import { createTestClient, type TestClient } from '../../../src/testing/index.js';
import type { AuthUser } from '../../../src/types/auth.js';
import type { ResourceDeclaration, Permission } from '../../../src/types/resource.js';

/**
 * Custom actions and hooks declared on a throwaway copy of the Tag fixture:
 * a list action with a body of its own, a detail action with input fields,
 * one that a permission refuses by its name, and hooks that change and
 * refuse writes.
 */
const FIXTURE_DIR = path.join(projectRoot, 'test', 'fixtures', 'tag');
const [tag] = await loadDeclarations(FIXTURE_DIR);
const projectDeclarations = await loadDeclarations();

/** Only superusers archive, though staff change tags otherwise. */
const superusersArchive: Permission = {
  hasPermission: (ctx, action) => action !== 'archive' || Boolean(ctx.user?.isSuperuser),
};

const withBehaviour = {
  ...(tag as ResourceDeclaration),
  permissions: [isAuthenticated, isOwnerOrStaff, superusersArchive],
  hooks: {
    beforeCreate: (ctx) => {
      if (typeof ctx.data.name === 'string') ctx.data.name = ctx.data.name.toLowerCase();
      if (ctx.data.name === 'forbidden') ctx.refuse('name', 'forbidden');
    },
    afterUpdate: async (ctx) => {
      if (ctx.data.description === 'explode') throw new Error('a hook failed after the write');
    },
  },
  actions: {
    names: {
      detail: false,
      methods: ['GET'],
      response: { status: 200, schema: { type: 'object', properties: { names: { type: 'array', items: { type: 'string' } } }, required: ['names'] } },
      run: async (ctx) => {
        const rows = await ctx.model('Tag').findAll({ order: [['name', 'ASC']] });
        return { body: { names: rows.map((row) => row.get('name')) } };
      },
    },
    rename: {
      detail: true,
      input: { name: field.string({ maxLength: 12 }) },
      run: async (ctx) => {
        await ctx.update({ name: ctx.data.name });
      },
    },
    relabel: {
      detail: true,
      run: async (ctx) => {
        // An update inside the action's own transaction, with a read of another resource in it.
        await ctx.transaction(async (transaction) => {
          const others = await ctx.model('Tag').count({ transaction });
          await ctx.update({ description: `one of ${others}` }, transaction);
        });
      },
    },
    archive: {
      detail: true,
      methods: ['POST', 'DELETE'],
      run: async (ctx) => {
        await ctx.update({ description: 'archived' });
      },
    },
  },
} satisfies ResourceDeclaration;

describe('custom actions and hooks declared on a resource', () => {
  let client: TestClient;
  let alice: AuthUser;
  let staff: AuthUser;
  let root: AuthUser;

  beforeAll(async () => {
    client = await createTestClient({
      declarations: [...projectDeclarations, withBehaviour],
      migrationDirs: [migrationsDir, path.join(FIXTURE_DIR, 'migrations')],
    });
    alice = await client.createUser('alice');
    staff = await client.createUser('sam', { staff: true });
    root = await client.createUser('root', { staff: true, superuser: true });
  });

  afterAll(async () => {
    const undocumented = await client.undocumentedAnswers();
    await client.close();
    expect(undocumented).toEqual([]);
  });

  const created = async (name: string): Promise<number> => {
    const res = await client.actingAs(alice).post('/tags/').send({ name, description: '' });
    expect(res.status).toBe(201);
    return res.body.id as number;
  };

  test('a before-create hook changes the data that is written', async () => {
    const res = await client.actingAs(alice).post('/tags/').send({ name: 'LOUD', description: '' });
    expect(res.status).toBe(201);
    expect(res.body.name).toBe('loud');
  });

  test("a hook refuses a write with a field error in each site's shape, and nothing is written", async () => {
    const root = await client.actingAs(alice).post('/tags/').send({ name: 'Forbidden', description: '' });
    expect(root.status).toBe(400);
    expect(Object.keys(root.body)).toEqual(['name']);
    const api = await client.actingAs(alice).post('/api/tags').send({ name: 'forbidden', description: '' });
    expect(api.status).toBe(422);
    expect(Object.keys(api.body.errors)).toEqual(['name']);
    expect(await client.services.registry.get('Tag').model.count({ where: { name: 'forbidden' } })).toBe(0);
  });

  test('a hook that throws after the write rolls the write back and answers 500', async () => {
    const id = await created('steady');
    const res = await client.actingAs(staff).patch(`/tags/${id}/`).send({ description: 'explode' });
    expect(res.status).toBe(500);
    const row = await client.services.registry.get('Tag').model.findByPk(id);
    expect(row?.get('description')).toBe('');
  });

  test('a list action answers with its own body, at its own path, on both sites', async () => {
    await created('alpha');
    const root = await client.actingAs(alice).get('/tags/names/');
    expect(root.status).toBe(200);
    expect(root.body.names).toContain('alpha');
    const api = await client.actingAs(alice).get('/api/tags/names');
    expect(api.status).toBe(200);
    expect(root.headers.allow).toBe('GET, HEAD, OPTIONS');
  });

  test('a detail action validates its input and answers the row as the site shows it', async () => {
    const id = await created('before');
    const refused = await client.actingAs(staff).post(`/tags/${id}/rename/`).send({ name: 'x'.repeat(13) });
    expect(refused.status).toBe(400);
    expect(Object.keys(refused.body)).toEqual(['name']);
    const res = await client.actingAs(staff).post(`/api/tags/${id}/rename`).send({ name: 'after' });
    expect(res.status).toBe(200);
    expect(res.body.data.name).toBe('after');
  });

  test("a number for an action's text input is the site's: its text at the root, Laravel's 422 under /api", async () => {
    const id = await created('before');
    const root = await client.actingAs(staff).post(`/tags/${id}/rename/`).send({ name: 42 });
    expect(root.status).toBe(200);
    expect(root.body.name).toBe('42');
    const token = await client.actingAs(staff).post(`/api/tags/${id}/rename`).send({ name: 7 });
    expect(token.status).toBe(422);
    expect(token.body.errors).toEqual({ name: ['The name field must be a string.'] });
  });

  test('a detail action that changes its row honours If-Match: 412 and nothing changed when the row changed since it was read', async () => {
    const id = await created('versioned');
    const read = await client.actingAs(staff).get(`/tags/${id}/`);
    const tag = read.headers.etag ?? '';
    expect(tag).not.toBe('');
    await client.actingAs(staff).patch(`/tags/${id}/`).send({ description: 'changed meanwhile' });
    const stale = await client.actingAs(staff).post(`/tags/${id}/rename/`).set('If-Match', tag).send({ name: 'renamed' });
    expect(stale.status).toBe(412);
    expect(Object.keys(stale.body)).toEqual(['detail']);
    const current = (await client.actingAs(staff).get(`/tags/${id}/`)).headers.etag ?? '';
    const res = await client.actingAs(staff).post(`/tags/${id}/rename/`).set('If-Match', current).send({ name: 'renamed' });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe('renamed');
  });

  test('an action is refused to anonymous clients, to users who may not change the row, and by a permission that names it', async () => {
    const id = await created('guarded');
    expect((await client.anonymous.post(`/tags/${id}/archive/`)).status).toBe(401);
    expect((await client.actingAs(alice).post(`/tags/${id}/archive/`)).status).toBe(403);
    expect((await client.actingAs(staff).post(`/tags/${id}/archive/`)).status).toBe(403);
    const res = await client.actingAs(root).delete(`/tags/${id}/archive/`);
    expect(res.status).toBe(200);
    expect(res.body.description).toBe('archived');
    expect((await client.actingAs(staff).post('/tags/12345/rename/').send({ name: 'n' })).status).toBe(404);
  });

  test("an action's update may run inside the action's transaction", async () => {
    const id = await created('relabelled');
    const res = await client.actingAs(staff).post(`/tags/${id}/relabel/`);
    expect(res.status).toBe(200);
    const count = await client.services.registry.get('Tag').model.count();
    expect(res.body.description).toBe(`one of ${count}`);
  });

  test('OPTIONS on an action lists its input fields, and its methods are in Allow', async () => {
    const id = await created('described');
    const res = await client.actingAs(alice).options(`/tags/${id}/rename/`);
    expect(res.status).toBe(200);
    expect(res.headers.allow).toBe('POST, OPTIONS');
    expect(Object.keys(res.body.actions.POST)).toEqual(['name']);
    expect((await client.actingAs(alice).options(`/tags/${id}/archive/`)).headers.allow).toBe('POST, DELETE, OPTIONS');
  });

  test('every action is in the API description, on both sites', async () => {
    const { body } = await client.anonymous.get('/openapi.json');
    const paths = Object.keys(body.paths as Record<string, unknown>);
    for (const path of ['/tags/names/', '/tags/{pk}/rename/', '/tags/{pk}/archive/', '/api/tags/names', '/api/tags/{pk}/rename', '/api/tags/{pk}/archive']) {
      expect(paths).toContain(path);
    }
    expect(Object.keys(body.paths['/tags/{pk}/archive/'])).toEqual(expect.arrayContaining(['post', 'delete']));
  });

  test('the browsable page of a row offers its actions as buttons', async () => {
    const id = await created('buttons');
    const res = await client.actingAs(alice).get(`/tags/${id}/`).set('Accept', 'text/html');
    expect(res.status).toBe(200);
    expect(res.text).toContain(`action="/tags/${id}/archive/"`);
    // An action with input fields links to its own page, where OPTIONS' form is.
    expect(res.text).toContain(`href="/tags/${id}/rename/"`);
  });
});
