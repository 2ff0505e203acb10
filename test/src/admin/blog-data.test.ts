import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { parse } from 'csv-parse/sync';
import { createTestClient, type TestClient } from '../../../src/testing/index.js';
import { adminAgent, openEditForm, submit, type Agent } from '../../helpers/admin.js';

const LOAD_TIMEOUT = 60_000;

// The second application gets the export and the audit log with no line of its own.
describe("the blog's admin data", () => {
  let client: TestClient;
  let root: Agent;
  beforeAll(async () => {
    client = await createTestClient({ app: 'examples/blog' });
    await client.createUser('root', { staff: true, superuser: true, name: 'Root' });
    await client.app.warm();
    root = await adminAgent(client, 'root', 'root-password');
  }, LOAD_TIMEOUT);
  afterAll(() => client?.close());

  test('logs a post made and edited in the admin, and exports the posts as filtered', async () => {
    const made = await submit(root, 'posts/actions/new', { title: '=cmd|calc', body: 'Written in the admin' });
    expect(made.body.notice.type).toBe('success');
    const id = String(made.body.record.id);
    await submit(root, 'posts/actions/new', { title: 'Another post', body: 'Not selected' });
    const form = await openEditForm(root, 'posts', id);
    expect((await form.save({ body: 'Edited in the admin' })).body.notice.type).toBe('success');

    const log = await root.get('/admin/api/resources/admin_audit_log/actions/list?filters.resource=posts').set('Accept-Language', 'en');
    const entries = (log.body.records as { params: Record<string, unknown> }[]).map(({ params }) => params);
    expect(entries.map((entry) => [entry.action, entry.record_id])).toEqual([
      ['edit', id],
      ['create', expect.any(String)],
      ['create', id],
    ]);
    expect(JSON.parse(String(entries[0]?.changes)).body).toEqual({ old: 'Written in the admin', new: 'Edited in the admin' });

    const csv = await root.get('/admin/export/posts?filters.body=admin').buffer(true).parse((res, done) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => done(null, text));
    });
    expect(csv.status).toBe(200);
    const [header, ...rows] = parse(String(csv.body).slice(1)) as string[][];
    expect(header).toEqual(expect.arrayContaining(['id', 'title', 'body', 'tags', 'excerpt']));
    expect(rows.map((row) => row[header!.indexOf('title')])).toEqual(["'=cmd|calc"]);
  });

  test("a JSON edit gives a JSON field its object and a many-to-many its list of ids, as the form's text would", async () => {
    const tags = client.services.registry.get('Tag').model;
    const [one, two] = [await tags.create({ name: 'json-one' }), await tags.create({ name: 'json-two' })];
    const made = await submit(root, 'posts/actions/new', { title: 'Sent as JSON', body: 'Tagged later' });
    const id = String(made.body.record.id);
    const edit = (body: object) => root.post(`/admin/api/resources/posts/records/${id}/edit`).set('Accept-Language', 'en').send(body);
    const saved = await edit({ metadata: { lang: 'ja' }, tags: [one.get('id'), two.get('id')], reading_minutes: 4 });
    expect(saved.body.notice.type).toBe('success');
    const row = await client.services.registry.get('Post').model.findByPk(Number(id));
    expect([row?.get('metadata'), row?.get('reading_minutes')]).toEqual([{ lang: 'ja' }, 4]);
    const shown = await root.get(`/admin/api/resources/posts/records/${id}/show`);
    expect(shown.body.record.params['tags.0']).toBeDefined();
    expect([shown.body.record.params['tags.0'], shown.body.record.params['tags.1']].map(Number).sort()).toEqual([one.get('id'), two.get('id')].map(Number).sort());

    expect((await edit({ tags: [] })).body.notice.type).toBe('success');
    expect((await root.get(`/admin/api/resources/posts/records/${id}/show`)).body.record.params['tags.0']).toBeUndefined();
  });
});
