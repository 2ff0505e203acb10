import path from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { loadDeclarations } from '../../src/registry.js';
import { declaredSchema } from '../../src/schema/declared.js';
import { migrationsDir, projectRoot } from '../../src/paths.js';
import { adminAgent, submit } from '../helpers/admin.js';
import { apiToken, credentials, useTestApp } from '../helpers/app.js';

/**
 * A declaration's unique indexes (test/fixtures/reaction): a write that would
 * repeat one's values is a field error in each site's own words, with the
 * owner the server sets counted, never the index's refusal as a 500.
 */
const FIXTURE_DIR = path.join(projectRoot, 'test', 'fixtures', 'reaction');
const fixtures = await loadDeclarations(FIXTURE_DIR);
const projectDeclarations = await loadDeclarations();

describe('a unique index of a declaration', () => {
  let token = '';
  const comments: number[] = [];
  const t = useTestApp(
    async (app) => {
      await app.createUser('alice');
      await app.createUser('bob');
      await app.createUser('carol');
      await app.createUser('stella', { staff: true, superuser: true });
      for (const title of ['one', 'two', 'three', 'four']) {
        const created = await app.http.post('/comments/').auth(...credentials('alice')).send({ title, body: 'to react to' });
        comments.push((created.body as { id: number }).id);
      }
    },
    {},
    { declarations: [...projectDeclarations, ...fixtures], migrationDirs: [migrationsDir, path.join(FIXTURE_DIR, 'migrations')] },
  );
  beforeAll(async () => {
    token = await apiToken(t, 'alice');
  });
  const json = { Accept: 'application/json', 'Accept-Language': 'en' };

  test("over several fields, counting the owner the server sets: DRF's non_field_errors at the root, the first field the write names under /api", async () => {
    const first = await t.http.post('/reactions/').auth(...credentials('alice')).set(json).send({ comment_id: comments[0], kind: 'like' });
    expect(first.status).toBe(201);

    const again = await t.http.post('/reactions/').auth(...credentials('alice')).set(json).send({ comment_id: comments[0], kind: 'love' });
    expect([again.status, again.body]).toEqual([400, { non_field_errors: ['The fields comment_id, user_id must make a unique set.'] }]);
    const viaApi = await t.http.post('/api/reactions').auth(token, { type: 'bearer' }).set(json).send({ comment_id: comments[0], kind: 'love' });
    expect([viaApi.status, viaApi.body]).toEqual([422, { message: 'The comment id has already been taken.', errors: { comment_id: ['The comment id has already been taken.'] } }]);

    // Another user's reaction to the same comment repeats nothing.
    expect((await t.http.post('/reactions/').auth(...credentials('bob')).set(json).send({ comment_id: comments[0], kind: 'like' })).status).toBe(201);
  });

  test('an update that would repeat another row is refused, one that keeps its own values is not', async () => {
    const other = await t.http.post('/reactions/').auth(...credentials('alice')).set(json).send({ comment_id: comments[1], kind: 'like' });
    const id = (other.body as { id: number }).id;

    const onto = await t.http.patch(`/reactions/${id}/`).auth(...credentials('alice')).set(json).send({ comment_id: comments[0] });
    expect([onto.status, onto.body]).toEqual([400, { non_field_errors: ['The fields comment_id, user_id must make a unique set.'] }]);
    const itself = await t.http.put(`/reactions/${id}/`).auth(...credentials('alice')).set(json).send({ comment_id: comments[1], kind: 'wow' });
    expect(itself.status).toBe(200);
  });

  test('over one number: on that field, and a null repeats nothing', async () => {
    const placed = await t.http.post('/api/reactions').auth(await apiToken(t, 'bob'), { type: 'bearer' }).set(json).send({ comment_id: comments[1], kind: 'up', position: 7 });
    expect(placed.status).toBe(201);
    const taken = await t.http.post('/reactions/').auth(...credentials('alice')).set(json).send({ comment_id: comments[2], kind: 'up', position: 7 });
    expect([taken.status, taken.body]).toEqual([400, { position: ['This value is already in use.'] }]);
    const unplaced = await t.http.post('/reactions/').auth(...credentials('alice')).set(json).send({ comment_id: comments[2], kind: 'up', position: null });
    expect(unplaced.status).toBe(201);
    const alsoUnplaced = await t.http.post('/api/reactions').auth(token, { type: 'bearer' }).set(json).send({ comment_id: comments[3], kind: 'up', position: null });
    expect(alsoUnplaced.status).toBe(201);
  });

  test('over what the write does not name, the owner the server sets or a default, is refused as a set on both sites', async () => {
    const first = await t.http.post('/profiles/').auth(...credentials('alice')).set(json).send({ slug: 'alice' });
    expect([first.status, first.body.plan]).toEqual([201, 'basic']);
    const second = await t.http.post('/profiles/').auth(...credentials('alice')).set(json).send({ slug: 'another' });
    expect([second.status, second.body]).toEqual([400, { non_field_errors: ['The fields user_id must make a unique set.'] }]);
    const viaApi = await t.http.post('/api/profiles').auth(token, { type: 'bearer' }).set(json).send({ slug: 'another' });
    expect([viaApi.status, viaApi.body.errors]).toEqual([422, { non_field_errors: ['The fields user_id must make a unique set.'] }]);
    // Bob's slug, in the default plan alice's already has.
    const slug = await t.http.post('/profiles/').auth(...credentials('bob')).set(json).send({ slug: 'alice' });
    expect(slug.status).toBe(400);
    expect((await t.http.post('/profiles/').auth(...credentials('bob')).set(json).send({ slug: 'alice', plan: 'pro' })).status).toBe(201);
  });

  test("repeated only once a hook changed the values checked, it is refused as the index's error, not the index's 500", async () => {
    // `ALICE` repeats nothing; the hook's `alice` does.
    const root = await t.http.post('/profiles/').auth(...credentials('carol')).set(json).send({ slug: 'ALICE' });
    expect([root.status, root.body]).toEqual([400, { non_field_errors: ['The fields slug, plan must make a unique set.'] }]);
    const viaApi = await t.http.post('/api/profiles').auth(await apiToken(t, 'carol'), { type: 'bearer' }).set(json).send({ slug: 'ALICE' });
    expect([viaApi.status, viaApi.body.errors]).toEqual([422, { slug: ['The slug has already been taken.'] }]);
  });

  test('in the admin, a repeated set is refused on the form, and nothing is saved', async () => {
    await t.app.warm();
    const staff = await adminAgent(t, 'stella', 'stella-password');
    const fields = { comment_id: String(comments[2]), kind: 'admin' };
    expect((await submit(staff, 'reactions/actions/new', fields)).body.notice).toEqual({ message: 'successfullyCreated', type: 'success' });
    const before = await t.services.registry.get('Reaction').model.count();

    const again = await submit(staff, 'reactions/actions/new', fields);

    expect(again.body.notice).toEqual({ message: 'The fields comment_id, user_id must make a unique set.', type: 'error' });
    expect(await t.services.registry.get('Reaction').model.count()).toBe(before);
  }, 60_000);
});

test("makemigrations keeps a declared unique index over a foreign key unique (it was dropped as the key's own index)", () => {
  const indexes = declaredSchema([...projectDeclarations, ...fixtures]).tables.profiles?.indexes ?? {};
  expect(indexes.profiles_user).toEqual({ columns: ['user_id'], unique: true });
  expect(Object.values(indexes).filter((index) => index.columns.join() === 'user_id')).toHaveLength(1);
});
