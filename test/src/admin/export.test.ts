import { beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { parse } from 'csv-parse/sync';
import { apiToken, useTestApp } from '../../helpers/app.js';
import { adminAgent, adminLogin, type Agent } from '../../helpers/admin.js';
import path from 'node:path';
import { loadDeclarations, WITH_HIDDEN } from '../../../src/registry.js';
import { defineResource, field } from '../../../src/resource.js';
import { migrationsDir, projectRoot } from '../../../src/paths.js';

const LOAD_TIMEOUT = 60_000;
const REMEMBER_TOKEN = 'remember-me-export-0123456789';
/** More than one batch of the export's reads (500), so that every page is seen to be in the file. */
const MANY = 520;
const BOM = '\uFEFF';

/** A download as text, however supertest would have parsed its type. */
function downloaded(agent: Agent, path: string) {
  return agent
    .get(path)
    .set('Accept-Language', 'en')
    .buffer(true)
    .parse((res, done) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => done(null, Buffer.concat(chunks).toString('utf8')));
    });
}

function rowsOf(text: string): string[][] {
  return parse(text.slice(BOM.length)) as string[][];
}

describe('the CSV export of an admin list', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('root', { superuser: true, staff: true, name: 'Root' });
    await app.createUser('alice', { name: 'Alice Liddell' });
    await app.services.registry.users().model.update({ remember_token: REMEMBER_TOKEN }, { where: { username: 'alice' } });
    const alice = await app.services.accounts.findByUsername('alice');
    const comments = app.services.registry.get('Comment').model;
    const many = Array.from({ length: MANY }, (_, index) => ({ title: `bulk ${String(index).padStart(3, '0')}`, body: 'many', user_id: alice?.get('id') }));
    await comments.bulkCreate(many);
    for (const [title, body] of [
      ['=HYPERLINK("http://evil.example","click")', '+1 agreed'],
      ['@SUM(A1:A2)', '-2 points'],
      ['\tTabbed', 'plain, with "quotes"\nand a new line'],
      ['日本語のタイトル', 'こんにちは、世界'],
    ]) {
      await comments.create({ title, body, user_id: alice?.get('id') });
    }
  });
  let root: Agent;
  beforeAll(async () => {
    await t.app.warm();
    root = await adminAgent(t, 'root', 'root-password');
  }, LOAD_TIMEOUT);

  test('downloads every row the filters select, on all pages, newest first as the list shows them, with a header row', async () => {
    const res = await downloaded(root, '/admin/export/comments?filters.body=many');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="?comments\.csv"?$/);
    const [header, ...rows] = rowsOf(res.body as string);
    expect(header).toEqual(['id', 'title', 'body', 'user_id', 'created_at', 'updated_at']);
    expect(rows).toHaveLength(MANY);
    const titles = rows.map((row) => row[1]);
    expect(titles[0]).toBe(`bulk ${MANY - 1}`);
    expect(titles.at(-1)).toBe('bulk 000');
    expect(new Set(titles).size).toBe(MANY);
  });

  test("follows the list's sort and a filter that selects a few rows", async () => {
    const res = await downloaded(root, '/admin/export/comments?filters.title=bulk%2001&sortBy=title&direction=asc');
    const titles = rowsOf(res.body as string)
      .slice(1)
      .map((row) => row[1]);
    expect(titles).toEqual(Array.from({ length: 10 }, (_, index) => `bulk 01${index}`));
  });

  test('reads every page of a list sorted by another column than the key, in that order', async () => {
    const res = await downloaded(root, '/admin/export/comments?filters.body=many&sortBy=title&direction=desc');
    const titles = rowsOf(res.body as string)
      .slice(1)
      .map((row) => row[1]);
    expect(titles).toHaveLength(MANY);
    expect(titles).toEqual([...titles].sort().reverse());
    expect(new Set(titles).size).toBe(MANY);
  });

  test('is UTF-8 with a byte order mark, so that Excel shows Japanese', async () => {
    const res = await downloaded(root, `/admin/export/comments?filters.title=${encodeURIComponent('日本語')}`);
    expect((res.body as string).startsWith(BOM)).toBe(true);
    const rows = rowsOf(res.body as string);
    expect(rows).toHaveLength(2);
    expect(rows[1]?.slice(1, 3)).toEqual(['日本語のタイトル', 'こんにちは、世界']);
  });

  test('neutralises cells a spreadsheet would run as formulas, and escapes commas, quotes and new lines', async () => {
    const res = await downloaded(root, '/admin/export/comments?sortBy=id&direction=asc');
    const rows = rowsOf(res.body as string).slice(1 + MANY);
    expect(rows.map((row) => row.slice(1, 3))).toEqual([
      [`'=HYPERLINK("http://evil.example","click")`, "'+1 agreed"],
      ["'@SUM(A1:A2)", "'-2 points"],
      ["'\tTabbed", 'plain, with "quotes"\nand a new line'],
      ['日本語のタイトル', 'こんにちは、世界'],
    ]);
    // Ids are numbers, never prefixed.
    expect(rows.every((row) => /^\d+$/.test(row[0] ?? ''))).toBe(true);
  });

  test('never holds a password hash, a remember token or a token hash, of users or tokens', async () => {
    await apiToken(t, 'alice');
    const alice = await t.services.registry.users().model.scope(WITH_HIDDEN).findOne({ where: { username: 'alice' } });
    const token = await t.services.registry.tokens()!.model.scope(WITH_HIDDEN).findOne({ order: [['id', 'DESC']] });
    const secrets = [String(alice?.get('password')), REMEMBER_TOKEN, String(token?.get('token'))];
    const users = await downloaded(root, '/admin/export/users');
    const tokens = await downloaded(root, '/admin/export/personal_access_tokens');
    for (const res of [users, tokens]) {
      expect(res.status).toBe(200);
      for (const secret of secrets) expect(res.body).not.toContain(secret);
    }
    const [userHeader, ...userRows] = rowsOf(users.body as string);
    expect(userHeader).not.toContain('password');
    expect(userHeader).not.toContain('remember_token');
    expect(userHeader).toContain('username');
    expect(userRows.map((row) => row[userHeader!.indexOf('username')]).sort()).toEqual(['alice', 'root']);
    expect(rowsOf(tokens.body as string)[0]).not.toContain('token');
  });

  test('is refused to anyone not logged in to the admin, and a non-staff account cannot log in to get it', async () => {
    const anonymous = await request(t.app).get('/admin/export/comments');
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.location).toBe('/admin/login');
    const { agent } = await adminLogin(t, 'alice', 'alice-password');
    const refused = await agent.get('/admin/export/users');
    expect(refused.status).toBe(302);
    expect(refused.text).not.toContain('alice@example.com');
  });

  test('of a resource that does not exist is not found', async () => {
    const res = await root.get('/admin/export/nothing-here');
    expect(res.status).toBe(404);
  });

  test('is offered on every list, as an action whose page links to the download', async () => {
    const res = await root.get('/admin/api/resources/comments/actions/list').set('Accept-Language', 'en');
    expect(res.status).toBe(200);
    const page = await root.get('/admin/resources/comments/actions/export?filters.title=bulk').set('Accept-Language', 'en');
    expect(page.status).toBe(200);
    expect(page.text).toContain('"export"');
    expect(page.text).toContain('Export CSV');
  });
});

// A resource whose admin offers no list (test/fixtures/admin-books has its table).
const Author = defineResource({
  name: 'Author',
  table: 'authors',
  fields: { id: field.id(), name: field.string({ maxLength: 100 }) },
  displayField: 'name',
  admin: { actions: ['show'] },
});
const projectDeclarations = await loadDeclarations();

describe('the CSV export of a resource the admin does not list', () => {
  const t = useTestApp(
    async (app) => {
      await app.createUser('root', { superuser: true, staff: true });
      await app.services.registry.get('Author').model.create({ name: 'Ursula' });
    },
    {},
    {
      declarations: [...projectDeclarations, Author],
      migrationDirs: [migrationsDir, path.join(projectRoot, 'test', 'fixtures', 'admin-books', 'migrations')],
    },
  );

  test('is refused, even to a superuser, and offered nowhere', async () => {
    await t.app.warm();
    const root = await adminAgent(t, 'root', 'root-password');
    const res = await root.get('/admin/export/authors').set('Accept-Language', 'en');
    expect(res.status).toBe(403);
    expect(res.text).not.toContain('Ursula');
    const action = await root.get('/admin/api/resources/authors/actions/export').set('Accept-Language', 'en');
    expect(action.body.notice).toEqual({ message: 'forbiddenError', type: 'error' });
  }, LOAD_TIMEOUT);
});
