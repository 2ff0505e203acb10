import { beforeAll, describe, expect, test } from '@jest/globals';
import { compiledReads, storedRecord } from '../../../src/db/compiled.js';
import { credentials, useTestApp } from '../../helpers/app.js';

/** Reads by compiled SQL give what Sequelize's reads give, on both databases. */
describe('compiled reads on the Sequelize connection', () => {
  const alice = credentials('alice');
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
  });
  const comment = () => t.services.registry.get('Comment');
  const reads = () => compiledReads(t.services.sequelize);
  let id = 0;

  beforeAll(async () => {
    const res = await t.http.post('/comments/').auth(...alice).send({ title: 'compiled', body: 'a body' });
    id = res.body.id as number;
  });

  test('a row by its key, with a joined reference nested under its name, seen with the types a model instance gives', async () => {
    const { model } = comment();
    const row = await reads().one({ model, include: [{ association: 'owner', attributes: ['id', 'username'] }] }, 'test-owner', id);
    expect(row).toMatchObject({ id, title: 'compiled', body: 'a body', owner: { username: 'alice' } });
    const record = storedRecord(comment(), row ?? {});
    const instance = await model.findByPk(id);
    expect(record.get('updated_at')).toBeInstanceOf(Date);
    expect((record.get('updated_at') as Date).getTime()).toBe((instance?.get('updated_at') as Date).getTime());
    expect((record.get('owner') as { get(name: string): unknown }).get('username')).toBe('alice');
    expect(await reads().one({ model }, 'test-plain', 987654)).toBeNull();
  });

  test('a page of the whole table in a given order, as Sequelize reads it', async () => {
    const { model } = comment();
    for (const title of ['b', 'c', 'd']) await t.http.post('/comments/').auth(...alice).send({ title, body: 'x' });
    const page = await reads().page({ model }, [['title', 'DESC'], ['id', 'ASC']], 'test-page', 2, 1);
    const expected = await model.findAll({ order: [['title', 'DESC'], ['id', 'ASC']], limit: 2, offset: 1, raw: true });
    expect(page.map((row) => row.id)).toEqual(expected.map((row) => (row as unknown as { id: number }).id));
  });
});

describe('compiled statements past the number kept', () => {
  const t = useTestApp();

  test('still run, each written again when asked (a PATCH may name any set of columns)', async () => {
    const reads = compiledReads(t.services.sequelize);
    const select = (n: number): Promise<unknown[]> => reads.rows(`test-many-${n}`, (_quote, placeholder) => `SELECT ${n} + ${placeholder(1)} AS total`, [1]);
    for (let n = 0; n < 520; n += 1) expect(await select(n)).toEqual([{ total: n + 1 }]);
    expect(await select(519)).toEqual([{ total: 520 }]);
  });
});

describe('a compiled read of a table that does not exist yet', () => {
  // Its own throwaway database: the table it makes goes with it.
  const t = useTestApp();

  test('fails while the table is missing, and works once a migration made it (the failed statement is not kept)', async () => {
    const reads = compiledReads(t.services.sequelize);
    const select = (): Promise<unknown[]> => reads.rows('test-later', (quote, placeholder) => `SELECT ${quote('n')} FROM ${quote('compiled_later')} WHERE ${quote('n')} = ${placeholder(1)}`, [7]);
    await expect(select()).rejects.toThrow();
    await t.services.sequelize.query('CREATE TABLE compiled_later (n INTEGER)');
    await t.services.sequelize.query('INSERT INTO compiled_later (n) VALUES (7)');
    expect(await select()).toEqual([{ n: 7 }]);
  });
});
