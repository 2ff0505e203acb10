/** The blog as an application of its own: its migrations, indexes, seeders and labels, and a framework that never names it. */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createMigrator } from '../../src/db/migrator.js';
import { describeMissing, missingQueryIndexes } from '../../src/db/query-indexes.js';
import { seed } from '../../src/db/seeder.js';
import { projectRoot } from '../../src/paths.js';
import type { TestClient } from '../../src/testing/index.js';
import { asJson, author, blogClient } from '../../examples/blog/test/support.js';

let client: TestClient;

beforeAll(async () => {
  client = await blogClient();
});

afterAll(async () => {
  // Every answer the tests got is one the blog's own /openapi.json documents.
  const undocumented = await client.undocumentedAnswers();
  await client.close();
  expect(undocumented).toEqual([]);
});

describe('its tables', () => {
  it('have an index for everything its lists are filtered, ordered or searched by', async () => {
    const declarations = client.services.registry.all().map(({ declaration }) => declaration);
    const missing = await missingQueryIndexes(client.services.sequelize.getQueryInterface(), declarations);
    expect(missing.map(describeMissing)).toEqual([]);
  });

  it('are its own: users, tokens, sessions, tags, posts, post_tags, replies, and no comments', async () => {
    const tables = (await client.services.sequelize.getQueryInterface().showAllTables()).map(String);
    for (const table of ['users', 'personal_access_tokens', 'sessions', 'tags', 'posts', 'post_tags', 'replies']) expect(tables).toContain(table);
    expect(tables).not.toContain('comments');
    expect(client.services.registry.all().map(({ declaration }) => declaration.name).sort()).toEqual(['AccessToken', 'Post', 'Reply', 'Tag', 'User']);
  });

  it('are undone by the migrations’ down, and made again by their up', async () => {
    const separate = await blogClient();
    try {
      const migrator = createMigrator(separate.services.sequelize, [separate.services.application.migrations]);
      await migrator.down({ to: 0 });
      const left = (await separate.services.sequelize.getQueryInterface().showAllTables()).map(String).filter((table) => table !== 'schema_migrations');
      expect(left).toEqual([]);
      await migrator.up();
      expect(await separate.services.registry.get('Post').model.count()).toBe(0);
    } finally {
      await separate.close();
    }
  });
});

describe('its seeders', () => {
  it('make demo accounts (with the passwords to print) and posts with tags and threads of replies', async () => {
    const seeded = await blogClient();
    try {
      const outcome = await seed(seeded.services);
      expect(outcome.applied.map(({ name }) => name)).toEqual(['0001_demo_accounts', '0002_demo_posts']);
      const accounts = outcome.applied.flatMap(({ result }) => result.accounts ?? []);
      expect(accounts.map(({ username, role }) => [username, role])).toEqual([
        ['admin', 'superuser'],
        ['alice', 'user'],
        ['bob', 'user'],
      ]);
      const { registry } = seeded.services;
      expect(await registry.get('Tag').model.count()).toBe(4);
      expect(await registry.get('Post').model.count({ where: { status: 'published' } })).toBe(2);
      expect(await registry.get('Reply').model.count({ where: { parent_id: null } })).toBeLessThan(await registry.get('Reply').model.count());
      // The demo passwords log in.
      const alice = accounts.find(({ username }) => username === 'alice');
      const login = await asJson(seeded.anonymous).post('/api/login').send({ email: 'alice@example.com', password: alice?.password }).expect(201);
      const token = login.body.token as string;
      const mine = await asJson(seeded.withToken(token)).get('/api/user').expect(200);
      expect(mine.body.user.posts.length).toBe(2);
      const expanded = await asJson(seeded.withToken(token)).get('/api/posts?include=tags,replies.author&filter[status]=published').expect(200);
      expect(expanded.body.posts).toHaveLength(2);
    } finally {
      await seeded.close();
    }
  });
});

describe('its labels', () => {
  it('name its resources and fields in the admin metadata and OPTIONS, in both languages', async () => {
    const alice = await author(client, 'labels');
    const en = await alice.root.options('/posts/').expect(200);
    expect(en.body.name).toBe('Post List');
    const ja = await client.actingAs(alice.user).options('/posts/').set('Accept-Language', 'ja').expect(200);
    expect(JSON.stringify(ja.body)).toContain('記事');
    expect(en.body.actions.POST.reading_minutes.label).toBe('Reading time (minutes)');
  });

  it('call the service the blog, over the framework’s own name', async () => {
    const document = await client.anonymous.get('/openapi.json').set('Accept-Language', 'en').expect(200);
    expect(document.body.info.title).toBe('Blog');
    const alice = await author(client, 'brand');
    const page = await client.actingAs(alice.user).get('/posts/').set('Accept', 'text/html').set('Accept-Language', 'ja').expect(200);
    expect(page.text).toContain('<title>記事一覧 – ブログ</title>');
  });
});

describe('its API description', () => {
  it('is a valid OpenAPI 3.1 document in both languages', async () => {
    for (const language of ['en', 'ja']) {
      const document = await client.anonymous.get('/openapi.json').set('Accept-Language', language).expect(200);
      const validity = await new Validator().validate(structuredClone(document.body));
      expect(validity.errors ?? []).toEqual([]);
      expect(validity.valid).toBe(true);
    }
  });
});

describe('the framework', () => {
  /** Every file under src/, comments included: not even an example names the blog. */
  function sources(dir: string): { file: string; text: string }[] {
    return readdirSync(dir).flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return sources(full);
      return [{ file: path.relative(projectRoot, full), text: readFileSync(full, 'utf8') }];
    });
  }

  it('names none of the blog’s resources, tables or fields anywhere in src/', () => {
    const blogWords = /\b(Post|Posts|Tag|Tags|Reply|Replies|posts|replies|post_tags|post_id|tag_id|parent_id|reply_count|excerpt|published_at|reading_minutes|publish_on)\b/;
    const blogLiterals = /['"`](tag|tags)['"`]/;
    // The framework's catalogues (src/locales/) quote every key, and name a section of the API description `tags` as OpenAPI does: their words only.
    const names = (file: string, line: string): boolean => blogWords.test(line) || (!file.endsWith('.json') && blogLiterals.test(line));
    const found = sources(path.join(projectRoot, 'src')).flatMap(({ file, text }) =>
      text.split('\n').flatMap((line, index) => (names(file, line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
