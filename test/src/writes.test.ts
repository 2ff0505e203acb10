import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { manualClock } from '../helpers/clock.js';
import { credentials, useTestApp } from '../helpers/app.js';

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
