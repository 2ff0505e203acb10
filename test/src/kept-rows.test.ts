import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { QueryTypes } from 'sequelize';
import { compiledReads } from '../../src/db/compiled.js';
import { dropRowCounter } from '../../src/db/row-counter.js';
import { apiToken, createTestApp, credentials, type TestApp } from '../helpers/app.js';

/**
 * A GET of one row takes the row a GET read last while the kept versions of
 * every table it is read from (the comment's, its owner's) are unchanged;
 * any write to them, made anywhere, shows on the very next GET.
 */
describe('rows kept for GET while their tables are unchanged', () => {
  let t: TestApp;
  let token: string;
  let reads: jest.SpiedFunction<ReturnType<typeof compiledReads>['one']>;

  beforeEach(async () => {
    t = await createTestApp();
    await t.createUser('alice');
    token = await apiToken(t, 'alice');
    const created = await t.http.post('/api/comments').set('Authorization', `Bearer ${token}`).send({ title: 'First', body: 'Hello' });
    expect(created.status).toBe(201);
    // The token's first use writes its last_used_at: from here on, only the comment's reads are counted.
    reads = jest.spyOn(compiledReads(t.services.sequelize), 'one');
  });
  afterEach(async () => {
    reads.mockRestore();
    await t.close();
  });

  const sql = (statement: string): Promise<unknown> => t.services.sequelize.query(statement, { type: QueryTypes.RAW });
  const rowReads = (): number => reads.mock.calls.filter(([read]) => read.model.name === t.services.registry.get('Comment').model.name && read.by === undefined).length;
  const get = (path = '/api/comments/1') => t.http.get(path).set('Authorization', `Bearer ${token}`);

  test('many GETs of a row read it once, on both sites, and answer the same', async () => {
    const first = await get();
    for (let i = 0; i < 3; i += 1) expect((await get()).body).toEqual(first.body);
    expect(rowReads()).toBe(1);
    const page = await t.http.get('/comments/1/').auth(...credentials('alice'));
    expect(page.status).toBe(200);
    expect(page.body.title).toBe('First');
    await sql("UPDATE comments SET title = 'Second'");
    expect((await t.http.get('/comments/1/').auth(...credentials('alice'))).body.title).toBe('Second');
  });

  test('a change made by plain SQL shows on the very next GET, with a new tag', async () => {
    const before = await get();
    await sql("UPDATE comments SET title = 'Changed elsewhere'");
    const after = await get();
    expect(after.body.comment.title).toBe('Changed elsewhere');
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect((await get().set('If-None-Match', before.headers.etag as string)).status).toBe(200);
  });

  test("a change to the owner's row shows on the very next GET of the comment that names it", async () => {
    const before = (await get()).body.comment.owner as string;
    await sql("UPDATE users SET name = 'Alicia Elsewhere'");
    const after = (await get()).body.comment.owner as string;
    expect(before).not.toBe('Alicia Elsewhere');
    expect(after).toBe('Alicia Elsewhere');
  });

  test('a row deleted by plain SQL is not found on the very next GET', async () => {
    expect((await get()).status).toBe(200);
    await sql('DELETE FROM comments');
    expect((await get()).status).toBe(404);
  });

  test('a 304 of a kept row reads nothing, and one after a change answers the new row', async () => {
    const first = await get();
    const tag = first.headers.etag as string;
    expect((await get().set('If-None-Match', tag)).status).toBe(304);
    expect(rowReads()).toBe(1);
    await sql("UPDATE comments SET body = 'Edited'");
    expect((await get().set('If-None-Match', tag)).status).toBe(200);
  });

  test('without a version kept for its table, a row is read on every GET', async () => {
    await dropRowCounter(t.services.sequelize.getQueryInterface(), 'comments');
    for (let i = 0; i < 3; i += 1) expect((await get()).status).toBe(200);
    expect(rowReads()).toBe(3);
  });
});

/**
 * A page of a list is answered again, without its query, while its tag
 * holds: the same versions of every table it reads, the same URL, media
 * type, language and user. Any write to those tables, made anywhere, shows
 * on the very next page.
 */
describe('pages kept under their tags', () => {
  let t: TestApp;
  let pageReads: jest.SpiedFunction<ReturnType<typeof compiledReads>['page']>;

  beforeEach(async () => {
    t = await createTestApp();
    await t.createUser('alice');
    await t.createUser('bob');
    const token = await apiToken(t, 'alice');
    for (const title of ['First', 'Second', 'Third']) {
      const created = await t.http.post('/api/comments').set('Authorization', `Bearer ${token}`).send({ title, body: 'Hello' });
      expect(created.status).toBe(201);
    }
    pageReads = jest.spyOn(compiledReads(t.services.sequelize), 'page');
  });
  afterEach(async () => {
    pageReads.mockRestore();
    await t.close();
  });

  const sql = (statement: string): Promise<unknown> => t.services.sequelize.query(statement, { type: QueryTypes.RAW });
  // One Host for all: each supertest request has a server of its own, on a port of its own, which its links name.
  const page = (path = '/comments/', user = 'alice') => t.http.get(path).auth(...credentials(user)).set({ Accept: 'application/json', Host: 'localhost' });
  const titles = async (path = '/comments/'): Promise<string[]> => ((await page(path)).body.results as { title: string }[]).map(({ title }) => title);

  test('many GETs of a page read it once and answer the same bytes and tag', async () => {
    const first = await page();
    expect(first.status).toBe(200);
    for (let i = 0; i < 3; i += 1) {
      const again = await page();
      expect(again.text).toBe(first.text);
      expect(again.headers.etag).toBe(first.headers.etag);
    }
    expect(pageReads).toHaveBeenCalledTimes(1);
  });

  test('another page, another user or another language is read for itself', async () => {
    const first = await page();
    const second = await page('/comments/?page=2');
    expect(second.body.results).not.toEqual(first.body.results);
    await page('/comments/', 'bob');
    // The paginated site speaks Japanese unless asked otherwise.
    expect((await page().set('Accept-Language', 'en')).status).toBe(200);
    expect(pageReads).toHaveBeenCalledTimes(4);
    expect((await page('/comments/?page=2')).text).toBe(second.text);
    expect(pageReads).toHaveBeenCalledTimes(4);
  });

  test('a change, an insert and a delete made by plain SQL show on the very next page', async () => {
    expect(await titles()).toEqual(['Third', 'Second']);
    await sql("UPDATE comments SET title = 'Changed elsewhere' WHERE title = 'Third'");
    expect(await titles()).toEqual(['Changed elsewhere', 'Second']);
    await sql("DELETE FROM comments WHERE title = 'Changed elsewhere'");
    expect(await titles()).toEqual(['Second', 'First']);
    const before = await page();
    await sql("INSERT INTO comments (title, body, user_id, created_at, updated_at) SELECT 'Fourth', 'x', user_id, created_at, '2999-01-01 00:00:00.000 +00:00' FROM comments WHERE title = 'First'");
    const after = await page();
    expect(after.body.count).toBe(before.body.count + 1);
    expect(after.body.results[0].title).toBe('Fourth');
  });

  test('the browsable HTML page, which carries no tag, is read on every GET', async () => {
    for (let i = 0; i < 2; i += 1) {
      const html = await page().set('Accept', 'text/html');
      expect(html.status).toBe(200);
      expect(html.text).toContain('Third');
    }
    expect(pageReads).toHaveBeenCalledTimes(2);
  });

  test('without a version kept for its table, a page is read on every GET', async () => {
    await dropRowCounter(t.services.sequelize.getQueryInterface(), 'comments');
    for (let i = 0; i < 3; i += 1) expect((await page()).status).toBe(200);
    expect(pageReads).toHaveBeenCalledTimes(3);
  });
});
