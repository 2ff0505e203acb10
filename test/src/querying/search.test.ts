import { describe, expect, test } from '@jest/globals';
import { QueryTypes, type Sequelize } from 'sequelize';
import { listWhere } from '../../../src/querying/conditions.js';
import { querySpec, NO_REQUEST } from '../../../src/querying/spec.js';
import { apiToken, credentials, useTestApp } from '../../helpers/app.js';
import { seedComments, type SeededComment } from '../../helpers/querying.js';

/** Titles and bodies that test what "contains, ignoring case" means: scripts, symbols, LIKE's wildcards. */
const ROWS: readonly SeededComment[] = [
  { title: 'Hello World', body: 'first post', owner: 'alice' },
  { title: 'HELLO again', body: 'shouting', owner: 'alice' },
  { title: '桜の季節', body: '春が来た', owner: 'alice' },
  { title: '東京タワー', body: '夜景がきれい', owner: 'alice' },
  { title: '👍 great', body: 'thumbs 👍👍 up', owner: 'alice' },
  { title: '100% sure', body: 'no doubt', owner: 'alice' },
  { title: 'snake_case', body: 'under_score', owner: 'alice' },
  { title: 'back\\slash', body: 'a "quote" here', owner: 'alice' },
  { title: "it's", body: 'apostrophe', owner: 'alice' },
  { title: 'ÉCOLE', body: 'Straße', owner: 'alice' },
];

/** The oracle: what "every term is in the title or the body, ignoring ASCII case" gives, in list order (newest first). */
function expected(terms: readonly string[]): string[] {
  const lower = (text: string): string => text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
  return ROWS.filter((row) => terms.every((term) => [row.title, row.body].some((field) => lower(field).includes(lower(term)))))
    .map((row) => row.title)
    .reverse();
}

describe('search over a trigram index, the same on SQLite and PostgreSQL', () => {
  const alice = credentials('alice');
  let token = '';
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    await seedComments(t, ROWS);
    token = await apiToken(t, 'alice');
  });

  const titles = async (search: string): Promise<string[]> => {
    const res = await t.http.get(`/comments/?page_size=5&search=${encodeURIComponent(search)}`).auth(...alice);
    expect(res.status).toBe(200);
    return (res.body.results as { title: string }[]).map((item) => item.title);
  };

  test.each([
    ['hello'],
    ['HeLLo'],
    ['wor'],
    ['llo wor'],
    ['桜'],
    ['季節'],
    ['の季節'],
    ['タワー'],
    ['夜景が'],
    ['👍'],
    ['👍👍'],
    ['great 👍'],
    ['%'],
    ['0%'],
    ['100%'],
    ['_'],
    ['e_c'],
    ['r_s'],
    ['\\'],
    ['k\\s'],
    ['"quote"'.replaceAll('"', '')],
    ["'"],
    ["t's"],
    ['nothing here'],
  ])('%s', async (search) => {
    expect(await titles(search)).toEqual(expected(search.split(' ')).slice(0, 5));
    const counted = await t.http.get(`/comments/?search=${encodeURIComponent(search)}`).auth(...alice);
    expect(counted.body.count).toBe(expected(search.split(' ')).length);
  });

  test('a term of three characters or more ignores the case of every script it has', async () => {
    expect(await titles('école')).toEqual(['ÉCOLE']);
    expect(await titles('straße')).toEqual(['ÉCOLE']);
  });

  test('a quoted phrase keeps its space; the token site searches the same way', async () => {
    const res = await t.http.get(`/api/comments?filter[search]=${encodeURIComponent('"first post"')}`).auth(token, { type: 'bearer' });
    expect(res.body.comments.map((item: { title: string }) => item.title)).toEqual(['Hello World']);
    expect(await titles('"llo wor"')).toEqual(['Hello World']);
  });

  test('the index follows every write: a new title is found, an old one no longer, a deleted row never', async () => {
    const created = await t.http.post('/comments/').auth(...alice).send({ title: 'zeppelin', body: 'airship' });
    expect(await titles('zeppelin')).toEqual(['zeppelin']);
    await t.http.patch(`/comments/${created.body.id}/`).auth(...alice).send({ title: 'blimp' });
    expect((await t.http.get('/comments/?search=zeppelin').auth(...alice)).body.count).toBe(0);
    expect((await t.http.get('/comments/?search=blimp').auth(...alice)).body.count).toBe(1);
    expect((await t.http.get('/comments/?search=airship').auth(...alice)).body.count).toBe(1);
    await t.http.delete(`/comments/${created.body.id}/`).auth(...alice);
    expect((await t.http.get('/comments/?search=airship').auth(...alice)).body.count).toBe(0);
  });

  /** The plan the database makes for a search of `term`, with sequential scans forbidden where a planner can be told. */
  async function plan(sequelize: Sequelize, term: string): Promise<string> {
    const model = t.services.registry.get('Comment').model;
    const spec = querySpec(t.services.registry.get('Comment'), { path: 'comments', actions: ['list'], fields: ['id', 'title', 'body'], query: { search: ['title', 'body'] } }, ['id']);
    const where = await listWhere(spec, { ...NO_REQUEST, search: [term] });
    let sql = '';
    await model.findAll({ where, attributes: ['id'], logging: (text: string) => (sql = text.replace(/^Executing \([^)]*\): /, '')) });
    if (sequelize.getDialect() === 'postgres') {
      return sequelize.transaction(async (transaction) => {
        await sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
        const rows = await sequelize.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, { type: QueryTypes.SELECT, transaction });
        return rows.map((row) => row['QUERY PLAN']).join('\n');
      });
    }
    const rows = await sequelize.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, { type: QueryTypes.SELECT });
    return rows.map((row) => row.detail).join('\n');
  }

  test('a term of three characters or more is found through the trigram index, a shorter one by a scan', async () => {
    const { sequelize } = t.services;
    const indexed = await plan(sequelize, 'hello');
    const short = await plan(sequelize, 'he');
    if (sequelize.getDialect() === 'postgres') {
      expect(indexed).toMatch(/Bitmap Index Scan on comments_title_trgm/);
      expect(indexed).toMatch(/Bitmap Index Scan on comments_body_trgm/);
    } else {
      expect(indexed).toMatch(/VIRTUAL TABLE INDEX/);
      expect(short).not.toMatch(/VIRTUAL TABLE/);
    }
  });
});

/** 5,000 comments, the oldest 100 (2%) holding `vexor`; vacuumed and analysed, as autovacuum would after such a load. */
const MANY = 5000;
const OLD_MATCHES = 100;
const WORDS = ['nice post', 'great idea', 'why not', 'cool', 'same here', 'thanks a lot', 'see above', 'works for me'];
const bodyOf = (i: number): string => `${WORDS[i % WORDS.length] ?? ''} ${i % 89}${i < OLD_MATCHES ? ' vexor' : ''}`;
const titleOf = (i: number): string => `${WORDS[(i * 7) % WORDS.length] ?? ''} ${i % 97}`.slice(0, 10);
/** The bodies of the newest two comments that hold `term`. */
const newestTwo = (term: string): string[] =>
  Array.from({ length: MANY }, (_, i) => MANY - 1 - i)
    .filter((i) => titleOf(i).includes(term) || bodyOf(i).includes(term))
    .slice(0, 2)
    .map(bodyOf);

describe('a search whose few matches are all old reads them through the trigram index, not by walking the list', () => {
  const alice = credentials('alice');
  const t = useTestApp(async (t) => {
    const owner = await t.createUser('alice');
    const rows = Array.from({ length: MANY }, (_, i) => {
      const at = new Date(Date.UTC(2024, 0, 1) + i * 1000);
      return { title: titleOf(i), body: bodyOf(i), user_id: owner.id, created_at: at, updated_at: at };
    });
    await t.services.registry.get('Comment').model.bulkCreate(rows);
    const { sequelize } = t.services;
    await sequelize.query(sequelize.getDialect() === 'postgres' ? 'VACUUM (ANALYZE) comments' : 'ANALYZE');
  });

  /** The SQL of the page of rows `path` read (not its count), as the server sent it. */
  async function pageQuery(path: string): Promise<{ sql: string; bodies: string[] }> {
    // Sequelize's types leave `options` out; each query reads `logging` from it.
    const sequelize = t.services.sequelize as unknown as { options: { logging: unknown } };
    const sent: string[] = [];
    const logging = sequelize.options.logging;
    sequelize.options.logging = (sql: string) => void sent.push(sql.replace(/^Executing \([^)]*\): /, ''));
    let bodies: string[];
    try {
      const res = await t.http.get(path).auth(...alice);
      expect(res.status).toBe(200);
      bodies = (res.body.results as { body: string }[]).map((item) => item.body);
    } finally {
      sequelize.options.logging = logging;
    }
    const pages = sent.filter((sql) => /FROM ["`]comments["`] AS ["`]Comment["`]/.test(sql) && /LIMIT/.test(sql) && !/count\(/i.test(sql));
    expect({ sent, pages: pages.length }).toMatchObject({ pages: 1 });
    return { sql: pages[0] ?? '', bodies };
  }

  /** The plan the database makes for `sql`; on PostgreSQL without sequential scans, which a table this small would get and a large one would not. */
  async function planOf(sql: string): Promise<string> {
    const { sequelize } = t.services;
    if (sequelize.getDialect() !== 'postgres') {
      const rows = await sequelize.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, { type: QueryTypes.SELECT });
      return rows.map((row) => row.detail).join('\n');
    }
    return sequelize.transaction(async (transaction) => {
      await sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
      const rows = await sequelize.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, { type: QueryTypes.SELECT, transaction });
      return rows.map((row) => row['QUERY PLAN']).join('\n');
    });
  }

  test.each([
    ['the first page, newest first', '/comments/?search=vexor', newestTwo('vexor')],
    ['a cursor page', '/comments/?search=vexor&cursor=', newestTwo('vexor')],
    ['a page by title', '/comments/?search=vexor&ordering=title', null],
  ])('%s', async (_, path, expected) => {
    const { sql, bodies } = await pageQuery(path);
    if (expected) expect(bodies).toEqual(expected);
    expect(bodies.filter((body) => body.endsWith(' vexor'))).toHaveLength(2);
    const plan = await planOf(sql);
    if (t.services.sequelize.getDialect() === 'postgres') {
      expect(plan).toMatch(/Bitmap Index Scan on comments_body_trgm/);
      expect(plan).not.toMatch(/Index Scan (Backward )?using comments_(updated_at|title)_id/);
    } else {
      expect(plan).toMatch(/VIRTUAL TABLE INDEX/);
    }
  });

  test('a common term still reads its first page along the list: a few rows, not every match', async () => {
    const { sql, bodies } = await pageQuery('/comments/?search=works');
    expect(bodies).toEqual(newestTwo('works'));
    const plan = await planOf(sql);
    if (t.services.sequelize.getDialect() === 'postgres') expect(plan).toMatch(/Index Scan Backward using comments_updated_at_id/);
    else expect(plan).toMatch(/VIRTUAL TABLE INDEX/);
  });
});
