/** dumpdata then loaddata: every row of the blog (accounts, tokens, tags, posts and their tags, threads of replies) comes back. */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestClient } from '../../src/testing/index.js';
import { dumpResources } from '../../src/userdata/dump.js';
import { loadDataFiles } from '../../src/userdata/load.js';
import { ModelCatalogue } from '../../src/userdata/models.js';
import { ProblemList } from '../../src/userdata/problems.js';
import { author, blogClient, type Author } from '../../examples/blog/test/support.js';

/** Every table a blog's rows live in, with the order that lists them the same way in both databases. */
const TABLES: [string, string][] = [
  ['personal_access_tokens', 'id'],
  ['tags', 'id'],
  ['posts', 'id'],
  ['post_tags', 'post_id, tag_id'],
  ['replies', 'id'],
];
/** What an account keeps through Django's auth.user (its update time is the load's). */
const USER_COLUMNS = 'id, username, name, email, password, is_superuser, is_staff, is_active, last_login, created_at';

let source: TestClient;
let dir: string;
let alice: Author;
let aliceToken: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'blog-dump-'));
  source = await blogClient();
  const editor = await author(source, 'editor', { staff: true });
  alice = await author(source, 'alice');
  const bob = await author(source, 'bob');
  aliceToken = await source.tokenFor(alice.user);
  const tags: number[] = [];
  for (const name of ['typescript', 'databases', 'spaced']) tags.push((await editor.root.post('/tags/').send({ name }).expect(201)).body.id);
  // A value as stored, which no request could write (requests trim): a dump keeps it as it is.
  await source.services.registry.get('Tag').model.update({ name: ' spaced ' }, { where: { id: tags[2] } });
  const full = { title: 'Every kind', body: 'Text.', status: 'published', reading_minutes: 3, price: '4.50', metadata: { lang: 'en', nested: [1, { a: null }] }, publish_on: '2025-01-31', tags: [tags[1], tags[0]] };
  const first = (await alice.root.post('/posts/').send(full).expect(201)).body.id;
  const second = (await alice.api.post('/api/posts').send({ title: 'A draft', tags: [] }).expect(201)).body.post.id;
  // A thread whose first reply answers a later one: its parent comes after it in the dump.
  const early = (await bob.root.post('/replies/').send({ post_id: first, body: 'Early' }).expect(201)).body.id;
  const top = (await bob.root.post('/replies/').send({ post_id: first, body: 'Top' }).expect(201)).body.id;
  const middle = (await alice.root.post('/replies/').send({ post_id: first, parent_id: top, body: 'Middle' }).expect(201)).body.id;
  await bob.root.patch(`/replies/${early}/`).send({ parent_id: middle }).expect(200);
  await bob.root.post('/replies/').send({ post_id: second, body: 'On the draft' }).expect(201);
});

afterAll(async () => {
  await source?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes the whole of `client`'s database as one fixture; returns its path and the counts by model. */
async function dump(client: TestClient, name: string) {
  const file = path.join(dir, name);
  const stream = createWriteStream(file);
  const { registry } = client.services;
  const counts = await dumpResources(registry, new ModelCatalogue(registry).order, stream);
  stream.end();
  await finished(stream);
  return { file, counts };
}

function load(client: TestClient, file: string) {
  return loadDataFiles(client.services.registry, client.services.accounts.hasher, [file]);
}

/** Every row of every table, as the database gives them back. */
async function contents(client: TestClient): Promise<Record<string, unknown[]>> {
  const { sequelize } = client.services;
  const all: Record<string, unknown[]> = { users: (await sequelize.query(`SELECT ${USER_COLUMNS} FROM users ORDER BY id`))[0] };
  for (const [table, order] of TABLES) all[table] = (await sequelize.query(`SELECT * FROM ${table} ORDER BY ${order}`))[0];
  return all;
}

describe('the blog through dumpdata and loaddata', () => {
  it('dumps every model, the rows referred to first, and loads them all into a fresh database as they were', async () => {
    const { file, counts } = await dump(source, 'blog.json');
    expect(counts).toEqual([
      { label: 'auth.user', count: 3 },
      { label: 'personal_access_tokens.accesstoken', count: 4 },
      { label: 'tags.tag', count: 3 },
      { label: 'posts.post', count: 2 },
      { label: 'replies.reply', count: 4 },
    ]);
    const fresh = await blogClient();
    try {
      const reports = await load(fresh, file);
      expect(reports.map(({ created, tokens, rows }) => ({ created, tokens: tokens.created, rows }))).toEqual([
        {
          created: 3,
          tokens: 4,
          rows: expect.objectContaining({
            'tags.tag': { records: 3, created: 3, updated: 0 },
            'posts.post': { records: 2, created: 2, updated: 0 },
            'replies.reply': { records: 4, created: 4, updated: 0 },
          }),
        },
      ]);
      expect(await contents(fresh)).toEqual(await contents(source));
      // Her token still signs her in: its hash came over with its id.
      const mine = await fresh.withToken(aliceToken).get('/api/user').set('Accept', 'application/json').expect(200);
      expect(mine.body.user.username).toBe('alice');
      // Loaded again: each row is replaced by its own values, none added.
      const again = await load(fresh, file);
      expect(again[0]?.rows['replies.reply']).toEqual({ records: 4, created: 0, updated: 4 });
      expect(await contents(fresh)).toEqual(await contents(source));
    } finally {
      await fresh.close();
    }
  });

  it('refuses a tag whose name another tag holds, and a post filed under a tag that is nowhere, and loads nothing', async () => {
    const fresh = await blogClient();
    try {
      await fresh.services.registry.get('Tag').model.create({ name: 'typescript' });
      const file = path.join(dir, 'clash.json');
      const at = '2025-04-01T00:00:00.000Z';
      writeFileSync(file, JSON.stringify([
        { model: 'tags.tag', pk: 50, fields: { name: 'typescript', created_at: at, updated_at: at } },
      ]));
      const clash = await load(fresh, file).catch((error: unknown) => error);
      expect(clash).toBeInstanceOf(ProblemList);
      expect((clash as ProblemList).problems).toEqual([{ file, key: 'loaddata.rows_conflict', params: { first: 1, last: 1, columns: 'name' } }]);
      writeFileSync(file, JSON.stringify([
        { model: 'tags.tag', pk: 51, fields: { name: 'fine', created_at: at, updated_at: at } },
        { model: 'posts.post', pk: 7, fields: { title: 'Filed', author_id: 1, tags: [51, 99], created_at: at, updated_at: at } },
      ]));
      const missing = await load(fresh, file).catch((error: unknown) => error);
      expect((missing as ProblemList).problems).toEqual([
        { file, record: 2, field: 'author_id', key: 'loaddata.reference_unknown', params: { model: 'auth.user', id: 1 } },
        { file, record: 2, field: 'tags', key: 'loaddata.reference_unknown', params: { model: 'tags.tag', id: 99 } },
      ]);
      expect(await fresh.services.registry.get('Tag').model.count()).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it('writes a post with its tags as ids, its JSON as itself and its times in UTC, as Django does', async () => {
    const { file } = await dump(source, 'shape.json');
    const entries = JSON.parse(readFileSync(file, 'utf8')) as { model: string; pk: number; fields: Record<string, unknown> }[];
    const post = entries.find((entry) => entry.model === 'posts.post' && entry.fields.title === 'Every kind');
    expect(post?.fields).toMatchObject({ price: '4.50', metadata: { lang: 'en', nested: [1, { a: null }] }, publish_on: '2025-01-31', status: 'published' });
    expect([...(post?.fields.tags as number[])].sort()).toEqual(post?.fields.tags);
    expect(post?.fields.published_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Object.keys(post?.fields ?? {})).not.toContain('reply_count');
    const tag = entries.find((entry) => entry.model === 'tags.tag' && entry.fields.name === ' spaced ');
    expect(tag?.fields.name).toBe(' spaced ');
  });
});

