import { describe, expect, test } from '@jest/globals';
import { rowCounts } from '../../../src/db/row-counter.js';
import { credentials, useTestApp } from '../../helpers/app.js';

/** The comments' count is kept as rows come and go, on both databases, and a list's count stays exact. */
describe("a list's count of the whole table", () => {
  const alice = credentials('alice');
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
  });
  const comments = () => t.services.registry.get('Comment').model;
  const listed = async (): Promise<number> => (await t.http.get('/comments/').auth(...alice)).body.count as number;
  const kept = () => rowCounts(t.services.sequelize).count('comments');
  const counted = async (): Promise<number> => comments().count();

  test('is kept, and equals count(*) after every kind of write', async () => {
    const postgres = t.services.sequelize.getDialect() === 'postgres';
    const check = async (expected: number): Promise<void> => {
      expect(await counted()).toBe(expected);
      expect(await listed()).toBe(expected);
      expect(await kept()).toBe(expected);
    };
    await check(0);
    const created = await t.http.post('/comments/').auth(...alice).send({ title: 'one', body: 'b' });
    await check(1);
    await comments().bulkCreate(Array.from({ length: 5 }, (_, i) => ({ title: `bulk ${i}`, body: 'b' })));
    await check(6);
    // Simultaneous writers each add theirs.
    await Promise.all(Array.from({ length: 12 }, (_, i) => t.http.post('/comments/').auth(...alice).send({ title: `c${i}`, body: 'b' })));
    await check(18);
    await t.http.delete(`/comments/${created.body.id}/`).auth(...alice);
    await check(17);
    await comments().update({ body: 'changed' }, { where: {} });
    await check(17);
    await comments().destroy({ where: { title: ['bulk 0', 'bulk 1'] } });
    await check(15);
    await comments().destroy({ truncate: true, cascade: postgres });
    await check(0);
    await t.http.post('/comments/').auth(...alice).send({ title: 'again', body: 'b' });
    await check(1);
  });

  test('its version changes with every kind of write, and only then', async () => {
    const postgres = t.services.sequelize.getDialect() === 'postgres';
    const version = async (): Promise<string | null> => (await rowCounts(t.services.sequelize).versions(['comments']))?.versions ?? null;
    const seen = new Set<string | null>();
    const changed = async (): Promise<void> => {
      const now = await version();
      expect(now).not.toBeNull();
      expect(seen.has(now)).toBe(false);
      seen.add(now);
      // Reading changes nothing.
      await listed();
      expect(await version()).toBe(now);
    };
    await changed();
    await comments().bulkCreate([{ title: 'v1', body: 'b' }, { title: 'v2', body: 'b' }]);
    await changed();
    await comments().update({ body: 'changed' }, { where: { title: 'v1' } });
    await changed();
    await comments().destroy({ where: { title: 'v2' } });
    await changed();
    await comments().destroy({ truncate: true, cascade: postgres });
    await changed();
  });

  test('a filtered list is counted by its condition, never by the kept count', async () => {
    await comments().destroy({ where: {} });
    await comments().bulkCreate([{ title: 'keep', body: 'b' }, { title: 'other', body: 'b' }, { title: 'keep', body: 'c' }]);
    expect((await t.http.get('/comments/?title=keep').auth(...alice)).body.count).toBe(2);
    expect(await listed()).toBe(3);
  });
});
