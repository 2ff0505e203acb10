import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { manualClock } from '../helpers/clock.js';
import { credentials, useTestApp } from '../helpers/app.js';
import { RowChanged } from '../../src/db/row-version.js';
import { RowWriter } from '../../src/writes.js';
import type { Row } from '../../src/types/rows.js';

/** Django's auto_now: every accepted update moves the update time, whatever it changes. */
describe('an accepted update', () => {
  const clock = manualClock();
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  });
  beforeAll(() => clock.install());
  afterAll(() => clock.restore());

  test('moves updated_at even when it changes no value, by PATCH and by PUT', async () => {
    const created = await t.http.post('/comments/').auth(...credentials('alice')).send({ title: 'same', body: 'same' });
    expect(created.status).toBe(201);
    clock.advance(60_000);
    const root = await t.http.patch(`/comments/${created.body.id}/`).auth(...credentials('alice')).send({ title: 'same' });
    expect(root.status).toBe(200);
    expect(root.body.updated_at).not.toBe(created.body.updated_at);
    clock.advance(60_000);
    const replaced = await t.http.put(`/comments/${created.body.id}/`).auth(...credentials('alice')).send({ title: 'same', body: 'same' });
    expect(replaced.status).toBe(200);
    expect(replaced.body.updated_at).not.toBe(root.body.updated_at);
  });
});

describe('a write to a row another request deleted after it was read', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  });
  const writer = () => new RowWriter(t.services.registry.get('Comment'), (name) => t.services.registry.get(name).model);

  async function readThenDeleted(): Promise<Row> {
    const created = await t.http.post('/comments/').auth(...credentials('alice')).send({ title: 'doomed', body: 'row' });
    const comments = t.services.registry.get('Comment').model;
    const row = await comments.findByPk(created.body.id as number);
    if (!row) throw new Error('not created');
    await comments.destroy({ where: { id: created.body.id as number } });
    return row;
  }

  test('is refused as changed (the sites then answer 404), not taken as an update that wrote nothing', async () => {
    await expect(writer().update(await readThenDeleted(), { title: 'too late' }, { user: null })).rejects.toBeInstanceOf(RowChanged);
  });

  test('is refused for a delete too, not counted as deleted a second time', async () => {
    await expect(writer().destroy(await readThenDeleted(), { user: null })).rejects.toBeInstanceOf(RowChanged);
  });
});
