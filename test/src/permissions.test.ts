import { describe, expect, test } from '@jest/globals';
import { credentials, useTestApp } from '../helpers/app.js';

describe('who may change a comment', () => {
  const alice = credentials('alice');

  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    await t.createUser('bob');
    await t.createUser('staff', { staff: true });
    await t.createUser('root', { superuser: true });
  });

  const aliceComment = async (): Promise<number> =>
    (await t.http.post('/comments/').auth(...alice).send({ title: 'alice', body: 'mine' })).body.id;

  test.each([
    ['PUT', { title: 'bob edit', body: 'by bob' }],
    ['PATCH', { title: 'bob edit' }],
    ['DELETE', {}],
  ])("another user's %s is 403 and changes nothing", async (method, payload) => {
    const id = await aliceComment();
    const res = await t.http[method.toLowerCase() as 'put'](`/comments/${id}/`).auth(...credentials('bob')).send(payload);
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ detail: 'この操作を行う権限がありません。' });
    const after = await t.http.get(`/comments/${id}/`).auth(...alice);
    expect(after.body).toMatchObject({ title: 'alice', body: 'mine' });
  });

  test.each(['staff', 'root'])('%s may update and delete anyone’s comment', async (who) => {
    const id = await aliceComment();
    const put = await t.http.put(`/comments/${id}/`).auth(...credentials(who)).send({ title: 'moderated', body: 'x' });
    expect(put.status).toBe(200);
    expect((await t.http.delete(`/comments/${id}/`).auth(...credentials(who))).status).toBe(204);
  });

  test('the creator becomes the owner, whatever user_id the request names', async () => {
    const bob = await t.services.accounts.findByUsername('bob');
    const res = await t.http.post('/comments/').auth(...alice).send({ title: 'x', body: 'y', user_id: bob?.get('id') });
    const row = await t.services.registry.get('Comment').model.findByPk(res.body.id);
    const aliceRow = await t.services.accounts.findByUsername('alice');
    expect(row?.get('user_id')).toBe(aliceRow?.get('id'));
  });

  test('a comment without owner (imported) can be changed by staff only', async () => {
    const row = await t.services.registry.get('Comment').model.create({ title: 'imported', body: 'x', user_id: null });
    const id = row.get('id') as number;
    expect((await t.http.patch(`/comments/${id}/`).auth(...alice).send({ title: 'y' })).status).toBe(403);
    expect((await t.http.patch(`/comments/${id}/`).auth(...credentials('staff')).send({ title: 'y' })).status).toBe(200);
  });

  test('a 403 for a missing object is never shown: a missing pk is 404 for everyone', async () => {
    expect((await t.http.delete('/comments/99999/').auth(...credentials('bob'))).status).toBe(404);
  });
});
