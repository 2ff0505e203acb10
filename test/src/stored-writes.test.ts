import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Sequelize } from 'sequelize';
import { loadDeclarations } from '../../src/registry.js';
import { migrationsDir, projectRoot } from '../../src/paths.js';
import { manualClock } from '../helpers/clock.js';
import { apiToken, credentials, useTestApp } from '../helpers/app.js';

/**
 * A create of a resource without hooks or links is one compiled INSERT that
 * answers the row as the retrieve reads it: what it answers, its ETag and
 * what it stores must be what the Sequelize write and the GET give.
 */
const FIXTURE_DIR = path.join(projectRoot, 'test', 'fixtures', 'memo');
const fixtures = await loadDeclarations(FIXTURE_DIR);
const projectDeclarations = await loadDeclarations();

const EVERY_FIELD = {
  title: 'every kind',
  done: true,
  price: '12.5',
  due_on: '2026-03-01',
  details: { tags: ['a', 'b'], n: 1 },
  remind_at: '2026-05-01T10:00:00.123Z',
};

function storedRow(sequelize: Sequelize, id: unknown): Promise<Record<string, unknown>> {
  return sequelize.query('SELECT * FROM memos WHERE id = :id', { replacements: { id }, plain: true, type: 'SELECT' }) as Promise<Record<string, unknown>>;
}

describe('a create or an update written as one compiled statement', () => {
  const clock = manualClock();
  let aliceId = 0;
  let token = '';
  const t = useTestApp(
    async (app) => {
      aliceId = (await app.createUser('alice')).id;
    },
    {},
    { declarations: [...projectDeclarations, ...fixtures], migrationDirs: [migrationsDir, path.join(FIXTURE_DIR, 'migrations')] },
  );
  const bearer = (): string => `Bearer ${token}`;
  beforeAll(async () => {
    clock.install();
    token = await apiToken(t, 'alice');
  });
  afterAll(() => clock.restore());

  test('answers the fields and the ETag that a GET of the row then answers, on the token site', async () => {
    const created = await t.http.post('/api/memos').set('Authorization', bearer()).send({ ...EVERY_FIELD, code: 'token-1', author_id: aliceId });
    expect(created.status).toBe(201);
    const read = await t.http.get(`/api/memos/${created.body.data.id}`).set('Authorization', bearer());
    expect(read.status).toBe(200);
    expect(created.headers.etag).toBe(read.headers.etag);
    const { author, ...shown } = read.body.data as Record<string, unknown>;
    expect(created.body.data).toEqual(shown);
    expect(author).toBe('alice');
    expect(shown).toMatchObject({ done: true, price: '12.50', due_on: '2026-03-01', details: EVERY_FIELD.details, remind_at: '2026-05-01T10:00:00.123000Z' });
  });

  test('answers the ETag of a GET on the root site, and the reference its list shows by name though a single read does not', async () => {
    const created = await t.http.post('/memos/').auth(...credentials('alice')).send({ ...EVERY_FIELD, code: 'root-1', author_id: aliceId });
    expect(created.status).toBe(201);
    const read = await t.http.get(`/memos/${created.body.id}/`).auth(...credentials('alice'));
    expect(created.headers.etag).toBe(read.headers.etag);
    expect(created.body).toEqual({ ...read.body, author: 'alice' });
    const listed = await t.http.get('/memos/').auth(...credentials('alice'));
    expect(listed.body.results).toContainEqual(created.body);
  });

  test('writes the declared defaults and one instant for both times when fields are left out', async () => {
    const created = await t.http.post('/memos/').auth(...credentials('alice')).send({ code: 'defaults', title: 'few fields' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ done: false, price: null, due_on: null, details: null, remind_at: null, author_id: null, author: null });
    expect(created.body.created_at).toBe(created.body.updated_at);
    const read = await t.http.get(`/memos/${created.body.id}/`).auth(...credentials('alice'));
    expect(created.headers.etag).toBe(read.headers.etag);
  });

  test('stores each value as the Sequelize write of the same values stores it', async () => {
    const { registry, sequelize } = t.services;
    const viaApi = await t.http.post('/memos/').auth(...credentials('alice')).send({ ...EVERY_FIELD, code: 'api', author_id: aliceId });
    const viaModel = await registry.get('Memo').model.create({ ...EVERY_FIELD, remind_at: new Date(EVERY_FIELD.remind_at), code: 'model', author_id: aliceId });
    // The clock never answers the same instant twice: the two rows' times differ, written the same way.
    const { id: _apiId, code: _apiCode, created_at: apiCreated, updated_at: apiUpdated, ...apiRow } = await storedRow(sequelize, viaApi.body.id);
    const { id: _modelId, code: _modelCode, created_at: modelCreated, updated_at: modelUpdated, ...modelRow } = await storedRow(sequelize, viaModel.get('id'));
    expect(apiRow).toEqual(modelRow);
    expect(apiUpdated).toEqual(apiCreated);
    expect(modelUpdated).toEqual(modelCreated);
    expect(typeof apiCreated).toBe(typeof modelCreated);
    if (typeof apiCreated === 'string') expect(apiCreated.replace(/\d/g, '0')).toBe(String(modelCreated).replace(/\d/g, '0'));
  });

  test('a duplicate of a unique field still answers the unique error, and writes nothing', async () => {
    const first = await t.http.post('/memos/').auth(...credentials('alice')).send({ code: 'twice', title: 'first' });
    expect(first.status).toBe(201);
    const again = await t.http.post('/memos/').auth(...credentials('alice')).set('Accept-Language', 'en').send({ code: 'twice', title: 'second' });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ code: ['This value is already in use.'] });
    const onToken = await t.http.post('/api/memos').set('Authorization', bearer()).set('Accept-Language', 'en').send({ code: 'twice', title: 'third' });
    expect(onToken.status).toBe(422);
    expect(onToken.body.errors).toEqual({ code: ['The code has already been taken.'] });
    expect(await t.services.registry.get('Memo').model.count({ where: { code: 'twice' } })).toBe(1);
  });

  test('an update answers the fields and the ETag that a GET then answers, by PATCH on the token site and PUT on the root site', async () => {
    const created = await t.http.post('/memos/').auth(...credentials('alice')).send({ code: 'edited', title: 'before' });
    const id = created.body.id as number;
    clock.advance(60_000);
    const patched = await t.http.patch(`/api/memos/${id}`).set('Authorization', bearer()).send({ done: true, price: '3', details: [1, 'two'], author_id: aliceId });
    expect(patched.status).toBe(200);
    const read = await t.http.get(`/api/memos/${id}`).set('Authorization', bearer());
    expect(patched.headers.etag).toBe(read.headers.etag);
    const { author, ...shown } = read.body.data as Record<string, unknown>;
    expect(patched.body.data).toEqual(shown);
    expect(shown).toMatchObject({ title: 'before', done: true, price: '3.00', details: [1, 'two'] });
    expect(author).toBe('alice');
    expect(shown.updated_at).not.toBe(created.body.updated_at);
    const put = await t.http.put(`/memos/${id}/`).auth(...credentials('alice')).send({ code: 'edited', title: 'after', done: false, remind_at: '2027-01-02T03:04:05.678Z' });
    expect(put.status).toBe(200);
    const again = await t.http.get(`/memos/${id}/`).auth(...credentials('alice'));
    expect(put.headers.etag).toBe(again.headers.etag);
    expect(put.body).toEqual({ ...again.body, author: 'alice' });
    expect(put.body).toMatchObject({ title: 'after', done: false, remind_at: '2027-01-02T03:04:05.678000', created_at: created.body.created_at });
  });

  test('an update stores each value as the Sequelize update of the same values stores it', async () => {
    const { registry, sequelize } = t.services;
    const changes = { ...EVERY_FIELD, author_id: aliceId };
    const viaApi = await t.http.post('/memos/').auth(...credentials('alice')).send({ code: 'api-edit', title: 'x' });
    await t.http.patch(`/memos/${viaApi.body.id}/`).auth(...credentials('alice')).send(changes);
    const viaModel = await registry.get('Memo').model.create({ code: 'model-edit', title: 'x' });
    await viaModel.update({ ...changes, remind_at: new Date(EVERY_FIELD.remind_at) });
    const { id: _a, code: _b, created_at: _c, updated_at: apiUpdated, ...apiRow } = await storedRow(sequelize, viaApi.body.id);
    const { id: _d, code: _e, created_at: _f, updated_at: modelUpdated, ...modelRow } = await storedRow(sequelize, viaModel.get('id'));
    expect(apiRow).toEqual(modelRow);
    expect(typeof apiUpdated).toBe(typeof modelUpdated);
    if (typeof apiUpdated === 'string') expect(apiUpdated.replace(/\d/g, '0')).toBe(String(modelUpdated).replace(/\d/g, '0'));
  });

  test('an update under If-Match writes only while the row is the version named', async () => {
    const created = await t.http.post('/memos/').auth(...credentials('alice')).send({ code: 'versioned', title: 'v1' });
    const id = created.body.id as number;
    const current = created.headers.etag as string;
    const first = await t.http.patch(`/memos/${id}/`).auth(...credentials('alice')).set('If-Match', current).send({ title: 'v2' });
    expect(first.status).toBe(200);
    const stale = await t.http.patch(`/memos/${id}/`).auth(...credentials('alice')).set('If-Match', current).send({ title: 'v3' });
    expect(stale.status).toBe(412);
    const read = await t.http.get(`/memos/${id}/`).auth(...credentials('alice'));
    expect(read.body.title).toBe('v2');
    expect(read.headers.etag).toBe(first.headers.etag);
  });

  test("an update keeps its own unique value, refuses another row's, and answers 404 for a row that is not there", async () => {
    await t.http.post('/memos/').auth(...credentials('alice')).send({ code: 'taken', title: 'other' });
    const created = await t.http.post('/memos/').auth(...credentials('alice')).send({ code: 'mine', title: 'own' });
    const own = await t.http.put(`/memos/${created.body.id}/`).auth(...credentials('alice')).send({ code: 'mine', title: 'own again' });
    expect(own.status).toBe(200);
    const other = await t.http.patch(`/memos/${created.body.id}/`).auth(...credentials('alice')).set('Accept-Language', 'en').send({ code: 'taken' });
    expect(other.status).toBe(400);
    expect(other.body).toEqual({ code: ['This value is already in use.'] });
    const missing = await t.http.patch('/memos/987654/').auth(...credentials('alice')).send({ title: 'nobody' });
    expect(missing.status).toBe(404);
  });
  test('answers a unique value taken by a simultaneous write with the field error, never a 500, on both sites', async () => {
    const body = { code: 'race-1', title: 'racing' };
    const [tokenSite, rootSite] = await Promise.all([
      Promise.all(Array.from({ length: 6 }, () => t.http.post('/api/memos').set('Authorization', bearer()).send(body))),
      Promise.all(Array.from({ length: 6 }, () => t.http.post('/memos/').auth(...credentials('alice')).send(body))),
    ]);
    expect([...tokenSite, ...rootSite].filter((answer) => answer.status === 201)).toHaveLength(1);
    for (const refused of tokenSite.filter((answer) => answer.status !== 201)) {
      expect(refused.status).toBe(422);
      expect(refused.body.errors).toEqual({ code: [expect.any(String)] });
    }
    for (const refused of rootSite.filter((answer) => answer.status !== 201)) {
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ code: [expect.any(String)] });
    }
    const updates = await Promise.all(
      ['race-2', 'race-3'].map(async (code) => (await t.http.post('/memos/').auth(...credentials('alice')).send({ code, title: 'to rename' })).body.id as number),
    );
    const renamed = await Promise.all(updates.map((id) => t.http.patch(`/memos/${id}/`).auth(...credentials('alice')).send({ code: 'race-4' })));
    expect(renamed.map((answer) => answer.status).sort()).toEqual([200, 400]);
  });
});
