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

describe('a create written as one compiled statement', () => {
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

  test('answers the fields and the ETag that a GET then answers on the root site, its reference shown by name', async () => {
    const created = await t.http.post('/memos/').auth(...credentials('alice')).send({ ...EVERY_FIELD, code: 'root-1', author_id: aliceId });
    expect(created.status).toBe(201);
    const read = await t.http.get(`/memos/${created.body.id}/`).auth(...credentials('alice'));
    expect(created.headers.etag).toBe(read.headers.etag);
    expect(created.body).toEqual(read.body);
    expect(created.body.author).toBe('alice');
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
});
