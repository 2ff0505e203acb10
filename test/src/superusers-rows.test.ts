import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { apiToken, credentials, useTestApp } from '../helpers/app.js';
import { staffAgents, submit, type Agent } from '../helpers/admin.js';
import { createTestClient, type TestClient } from '../../src/testing/index.js';
import type { AuthUser } from '../../src/types/auth.js';

const LOAD_TIMEOUT = 60_000;
const html = { Accept: 'text/html', 'Accept-Language': 'en' };
/** What a Laravel client sends to get its errors as JSON. */
const json = { Accept: 'application/json' };
const DRF_REFUSAL = { detail: 'この操作を行う権限がありません。' };
const LARAVEL_REFUSAL = { message: 'This action is unauthorized.' };
const ADMIN_REFUSAL = 'Only a superuser may change or delete what belongs to a superuser.';

// One rule on every site: a staff member who is not a superuser may not change or delete what a superuser owns.
describe("staff against a superuser's rows", () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
    await app.createUser('staffer', { staff: true });
    await app.createUser('root', { staff: true, superuser: true });
    await app.createUser('boss', { staff: true, superuser: true });
  });

  const comments = () => t.services.registry.get('Comment').model;

  /** A comment owned by `username`, made directly in the table. */
  async function commentOf(username: string, title = 'Mine'): Promise<number> {
    const owner = await t.services.accounts.findByUsername(username);
    return (await comments().create({ title, body: 'As written', user_id: owner?.get('id') })).get('id') as number;
  }

  async function titleOf(id: number): Promise<unknown> {
    return (await comments().findByPk(id))?.get('title');
  }

  test.each([
    ['PUT', { title: 'taken', body: 'over' }],
    ['PATCH', { title: 'taken' }],
    ['DELETE', {}],
  ])("at the root, a staff member's %s of a superuser's comment with HTTP Basic is 403 in DRF's shape and changes nothing", async (method, payload) => {
    const id = await commentOf('root');
    const res = await t.http[method.toLowerCase() as 'put'](`/comments/${id}/`).auth(...credentials('staffer')).send(payload);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(DRF_REFUSAL);
    expect(await titleOf(id)).toBe('Mine');
  });

  test.each([
    ['PUT', { title: 'taken', body: 'over' }],
    ['PATCH', { title: 'taken' }],
    ['DELETE', {}],
  ])("under /api, a staff member's %s of a superuser's comment with a bearer token is 403 in Laravel's shape and changes nothing", async (method, payload) => {
    const id = await commentOf('root');
    const token = await apiToken(t, 'staffer');
    const res = await t.http[method.toLowerCase() as 'put'](`/api/comments/${id}`).auth(token, { type: 'bearer' }).set(json).send(payload);
    expect(res.status).toBe(403);
    expect(res.body).toEqual(LARAVEL_REFUSAL);
    expect(await titleOf(id)).toBe('Mine');
  });

  test("staff still change an ordinary user's comment, and a superuser another superuser's, on both sites", async () => {
    const alices = await commentOf('alice');
    expect((await t.http.patch(`/comments/${alices}/`).auth(...credentials('staffer')).send({ title: 'moderated' })).status).toBe(200);
    const staffToken = await apiToken(t, 'staffer');
    expect((await t.http.delete(`/api/comments/${alices}`).auth(staffToken, { type: 'bearer' })).status).toBe(200);

    const bosses = await commentOf('boss');
    expect((await t.http.patch(`/comments/${bosses}/`).auth(...credentials('root')).send({ title: 'by root' })).status).toBe(200);
    expect(await titleOf(bosses)).toBe('by root');
    const rootToken = await apiToken(t, 'root');
    expect((await t.http.delete(`/api/comments/${bosses}`).auth(rootToken, { type: 'bearer' })).status).toBe(200);
  });

  test("the HTML page of a superuser's comment offers a staff member no edit or delete form, and what those forms send is refused with the site's 403", async () => {
    const roots = await commentOf('root');
    const alices = await commentOf('alice');
    const own = await t.http.get(`/comments/${alices}/`).auth(...credentials('staffer')).set(html);
    expect(own.text).toContain('class="api-form delete"');
    expect(own.text).toContain('data-method="PUT"');

    const page = await t.http.get(`/comments/${roots}/`).auth(...credentials('staffer')).set(html);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain('class="api-form');
    const options = await t.http.options(`/comments/${roots}/`).auth(...credentials('staffer'));
    expect(options.body.actions).toBeUndefined();

    const put = await t.http.put(`/comments/${roots}/`).auth(...credentials('staffer')).set(html).type('form').send({ title: 'taken', body: 'over' });
    expect(put.status).toBe(403);
    expect(put.text).toContain('You do not have permission to perform this action.');
    const removed = await t.http.delete(`/comments/${roots}/`).auth(...credentials('staffer')).set(html);
    expect(removed.status).toBe(403);
    expect(await titleOf(roots)).toBe('Mine');
  });

  describe('in the admin', () => {
    let staffer: Agent;
    let root: Agent;
    beforeAll(async () => {
      ({ staffer, root } = await staffAgents(t));
    }, LOAD_TIMEOUT);

    test("a staff member's edit and delete of a superuser's comment are refused with the admin's reason, a superuser's are not", async () => {
      const id = await commentOf('boss');
      const edit = await submit(staffer, `comments/records/${id}/edit`, { title: 'taken' });
      expect(edit.body.record.baseError).toEqual({ message: ADMIN_REFUSAL, type: 'forbidden' });
      const removed = await staffer.post(`/admin/api/resources/comments/records/${id}/delete`).set('Accept-Language', 'en');
      expect(removed.body.notice).toEqual({ message: ADMIN_REFUSAL, type: 'error' });
      expect(await titleOf(id)).toBe('Mine');
      expect((await submit(root, `comments/records/${id}/edit`, { title: 'by root' })).body.record.errors).toEqual({});
      expect(await titleOf(id)).toBe('by root');
    });

    test("a staff member can neither edit nor delete a superuser's account", async () => {
      const boss = String((await t.services.accounts.findByUsername('boss'))?.get('id'));
      const edit = await submit(staffer, `users/records/${boss}/edit`, { name: 'Renamed' });
      expect(edit.body.record.baseError).toBeTruthy();
      const removed = await staffer.post(`/admin/api/resources/users/records/${boss}/delete`).set('Accept-Language', 'en');
      expect(removed.body.notice.type).toBe('error');
      const account = await t.services.accounts.findByUsername('boss');
      expect(account?.get('name')).not.toBe('Renamed');
    });
  });
});

// A declared custom action is a change as any other: the blog's publish, on both of its sites.
describe("staff against a superuser's rows, through a custom action", () => {
  let client: TestClient;
  let staff: AuthUser;
  let root: AuthUser;
  let alice: AuthUser;
  beforeAll(async () => {
    client = await createTestClient({ app: 'examples/blog' });
    alice = await client.createUser('alice');
    staff = await client.createUser('staffer', { staff: true });
    root = await client.createUser('root', { staff: true, superuser: true });
  });
  afterAll(async () => {
    const undocumented = await client.undocumentedAnswers();
    await client.close();
    expect(undocumented).toEqual([]);
  });

  async function draftOf(author: AuthUser): Promise<number> {
    const res = await client.actingAs(author).post('/posts/').send({ title: 'Draft', body: 'Ready to go' });
    expect(res.status).toBe(201);
    return res.body.id as number;
  }

  const statusOf = async (id: number): Promise<unknown> => (await client.services.registry.get('Post').model.findByPk(id))?.get('status');

  test("a staff member cannot publish a superuser's draft on either site: each answers its own 403", async () => {
    const id = await draftOf(root);
    const drf = await client.actingAs(staff).post(`/posts/${id}/publish/`);
    expect([drf.status, drf.body]).toEqual([403, DRF_REFUSAL]);
    const laravel = await client.withToken(await client.tokenFor(staff)).post(`/api/posts/${id}/publish`).set(json);
    expect([laravel.status, laravel.body]).toEqual([403, LARAVEL_REFUSAL]);
    expect(await statusOf(id)).toBe('draft');
  });

  test("a staff member publishes an ordinary user's draft, and the superuser their own", async () => {
    const alices = await draftOf(alice);
    expect((await client.actingAs(staff).post(`/posts/${alices}/publish/`)).status).toBe(200);
    expect(await statusOf(alices)).toBe('published');
    const roots = await draftOf(root);
    expect((await client.withToken(await client.tokenFor(root)).post(`/api/posts/${roots}/publish`)).status).toBe(200);
    expect(await statusOf(roots)).toBe('published');
  });
});
