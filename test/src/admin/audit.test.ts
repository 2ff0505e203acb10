import { beforeAll, describe, expect, test } from '@jest/globals';
import { apiToken, useTestApp, type TestApp } from '../../helpers/app.js';
import { openEditForm, staffAgents, submit, type Agent } from '../../helpers/admin.js';
import { WITH_HIDDEN } from '../../../src/registry.js';

const LOAD_TIMEOUT = 60_000;

interface Entry {
  id: number;
  created_at: string;
  account_id: number;
  account: string;
  action: string;
  resource: string;
  record_id: string;
  record_title: string;
  changes: Record<string, unknown>;
}

/** The audit log as the admin lists it, newest first, with `query` as the list's filters. */
async function logged(agent: Agent, query = ''): Promise<Entry[]> {
  const res = await agent.get(`/admin/api/resources/admin_audit_log/actions/list?perPage=500${query}`).set('Accept-Language', 'en');
  expect(res.status).toBe(200);
  return (res.body.records as { params: Record<string, unknown> }[]).map(({ params }) => ({
    ...(params as unknown as Entry),
    changes: JSON.parse(String(params.changes)) as Record<string, unknown>,
  }));
}

async function idOf(t: TestApp, username: string): Promise<number> {
  return (await t.services.accounts.findByUsername(username))?.get('id') as number;
}

describe('the admin audit log', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('root', { superuser: true, staff: true, name: 'Root' });
    await app.createUser('staffer', { staff: true, name: 'Stella Staff' });
    await app.createUser('alice', { name: 'Alice Liddell' });
  });
  let root: Agent;
  let staffer: Agent;
  beforeAll(async () => {
    ({ root, staffer } = await staffAgents(t));
  }, LOAD_TIMEOUT);

  const comments = () => t.services.registry.get('Comment').model;

  test('records a create with who, when, which row and its values', async () => {
    const before = Date.now();
    const res = await submit(staffer, 'comments/actions/new', { title: 'Audited', body: 'Written in the admin' });
    expect(res.body.notice.type).toBe('success');
    const id = String(res.body.record.id);
    const [entry] = await logged(root);
    expect(entry).toMatchObject({ account: 'staffer', account_id: await idOf(t, 'staffer'), action: 'create', resource: 'comments', record_id: id, record_title: 'Audited' });
    expect(entry?.changes).toMatchObject({ id: Number(id), title: 'Audited', body: 'Written in the admin', user_id: await idOf(t, 'staffer') });
    const when = new Date(entry!.created_at).getTime();
    expect(when).toBeGreaterThanOrEqual(before - 1000);
    expect(when).toBeLessThanOrEqual(Date.now() + 1000);
  });

  test('records an edit as each changed field, old and new, and a new password only as "changed"', async () => {
    const alice = await idOf(t, 'alice');
    const form = await openEditForm(root, 'users', alice);
    const res = await form.save({ name: 'Alice Changed', password: 'typed-in-clear-77' });
    expect(res.body.notice.type).toBe('success');
    const [entry] = await logged(root);
    expect(entry).toMatchObject({ account: 'root', action: 'edit', resource: 'users', record_id: String(alice) });
    expect(entry?.changes.name).toEqual({ old: 'Alice Liddell', new: 'Alice Changed' });
    expect(entry?.changes.password).toBe('changed');
    expect(entry?.changes).not.toHaveProperty('username');
    const hash = String((await t.services.registry.users().model.scope(WITH_HIDDEN).findByPk(alice))?.get('password'));
    const stored = JSON.stringify(await logged(root));
    expect(stored).not.toContain('typed-in-clear-77');
    expect(stored).not.toContain(hash);
    const shown = await root.get(`/admin/api/resources/admin_audit_log/records/${entry?.id}/show`).set('Accept-Language', 'en');
    expect(String(shown.body.record.params.changes).split('\n')).toEqual(expect.arrayContaining(['name: "Alice Liddell" → "Alice Changed"', 'password: changed']));
  });

  test('an edit that changes no value leaves no entry, and one that does logs only the fields it changed', async () => {
    const row = await comments().create({ title: 'Steady', body: 'Unchanged' });
    const id = row.get('id') as number;
    const before = (await logged(root)).length;
    const unchanged = await (await openEditForm(root, 'comments', id)).save();
    expect(unchanged.body.notice.type).toBe('success');
    expect(await logged(root)).toHaveLength(before);

    const edited = await (await openEditForm(root, 'comments', id)).save({ title: 'Moved on' });
    expect(edited.body.notice.type).toBe('success');
    const [entry] = await logged(root);
    expect(entry).toMatchObject({ action: 'edit', resource: 'comments', record_id: String(id) });
    expect(Object.keys(entry!.changes).sort()).toEqual(['title', 'updated_at']);
    expect(entry?.changes.title).toEqual({ old: 'Steady', new: 'Moved on' });
  });

  test('a write whose entry cannot be logged is not made: no change without its entry', async () => {
    const { sequelize } = t.services;
    const refused = 'Unauditable';
    if (sequelize.getDialect() === 'postgres') {
      await sequelize.query(`CREATE FUNCTION refuse_entry() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'no entry'; END $$ LANGUAGE plpgsql`);
      await sequelize.query(`CREATE TRIGGER refused_entries BEFORE INSERT ON admin_audit_log FOR EACH ROW WHEN (NEW.record_title = '${refused}') EXECUTE FUNCTION refuse_entry()`);
    } else {
      await sequelize.query(`CREATE TRIGGER refused_entries BEFORE INSERT ON admin_audit_log WHEN NEW.record_title = '${refused}' BEGIN SELECT RAISE(ABORT, 'no entry'); END`);
    }
    try {
      const row = await comments().create({ title: 'Kept as it was', body: 'Unchanged' });
      const edited = await (await openEditForm(staffer, 'comments', row.get('id') as number)).save({ title: refused });
      expect(edited.body.notice?.type).not.toBe('success');
      expect((await comments().findByPk(row.get('id') as number))?.get('title')).toBe('Kept as it was');
      const created = await submit(staffer, 'comments/actions/new', { title: refused, body: 'Never written' });
      expect(created.body.notice?.type).not.toBe('success');
      expect(await comments().count({ where: { title: refused } })).toBe(0);
    } finally {
      await sequelize.query('DROP TRIGGER refused_entries' + (sequelize.getDialect() === 'postgres' ? ' ON admin_audit_log' : ''));
    }
  });

  test('records a delete with the values the row had, and a bulk delete as one entry per row', async () => {
    const one = await comments().create({ title: 'Doomed', body: 'Soon gone' });
    const two = await comments().create({ title: 'Also doomed', body: 'Gone too' });
    const three = await comments().create({ title: 'Third', body: 'Gone as well' });
    const deleted = await staffer.post(`/admin/api/resources/comments/records/${one.get('id')}/delete`).set('Accept-Language', 'en');
    expect(deleted.body.notice.type).toBe('success');
    const [entry] = await logged(root);
    expect(entry).toMatchObject({ account: 'staffer', action: 'delete', resource: 'comments', record_id: String(one.get('id')) });
    expect(entry?.changes).toMatchObject({ title: 'Doomed', body: 'Soon gone' });

    const bulk = await root.post(`/admin/api/resources/comments/bulk/bulkDelete?recordIds=${two.get('id')},${three.get('id')}`).set('Accept-Language', 'en');
    expect(bulk.body.notice.type).toBe('success');
    const entries = (await logged(root)).slice(0, 2);
    expect(entries.map((e) => [e.action, e.changes.title]).sort()).toEqual([
      ['delete', 'Also doomed'],
      ['delete', 'Third'],
    ]);
  });

  test("records a token's revocation with its hash masked", async () => {
    await apiToken(t, 'root');
    const token = await t.services.registry.tokens()!.model.scope(WITH_HIDDEN).findOne({ order: [['id', 'DESC']] });
    const res = await root.post(`/admin/api/resources/personal_access_tokens/records/${token?.get('id')}/delete`).set('Accept-Language', 'en');
    expect(res.body.notice.type).toBe('success');
    const [entry] = await logged(root);
    expect(entry).toMatchObject({ action: 'delete', resource: 'personal_access_tokens', record_id: String(token?.get('id')) });
    expect(entry?.changes.token).toBe('••••');
    expect(JSON.stringify(entry)).not.toContain(String(token?.get('token')));
  });

  test('lists newest first, and filters by resource and by account', async () => {
    const all = await logged(root);
    expect(all.map((e) => e.id)).toEqual([...all.map((e) => e.id)].sort((a, b) => b - a));
    const users = await logged(root, '&filters.resource=users');
    expect(users.length).toBeGreaterThan(0);
    expect(users.every((e) => e.resource === 'users')).toBe(true);
    const byStaffer = await logged(root, `&filters.account_id=${await idOf(t, 'staffer')}`);
    expect(byStaffer.map((e) => e.action).sort()).toEqual(['create', 'delete']);
  });

  test('filters, sorting, paging, searches and ids that name nothing answer without an error, the export too', async () => {
    const queries = [
      'actions/list?filters.nothing=1&sortBy=nope&perPage=abc',
      'actions/list?sortBy=id&sortBy=record_title&page=-1&perPage=-1',
      'actions/list?filters.action=%00&filters.account=%00&filters.created_at~~from=garbage&filters.account_id=abc',
      'actions/list?filters.__proto__.polluted=1&filters.constructor.prototype.polluted=1',
      'actions/search/%00',
      'records/99999999999999/show',
      'records/abc/show',
    ];
    for (const query of queries) {
      const res = await root.get(`/admin/api/resources/admin_audit_log/${query}`).set('Accept-Language', 'en');
      expect([query, res.status < 500]).toEqual([query, true]);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const nothing = await root.get('/admin/api/resources/admin_audit_log/actions/list?filters.action=nothing').set('Accept-Language', 'en');
    expect(nothing.body.meta.total).toBe(0);
    // The ones that name something still filter.
    expect((await logged(root, '&filters.action=delete&filters.nothing=1')).every((e) => e.action === 'delete')).toBe(true);
    const exported = await root.get('/admin/export/admin_audit_log?filters.nothing=1&sortBy=nope&filters.created_at~~from=garbage');
    expect(exported.status).toBe(200);
    expect(exported.text.split('\n')[0]).toContain('record_title');
  });

  test('is named in the language of the page, as is the export action', async () => {
    const ja = await root.get('/admin/resources/admin_audit_log').set('Accept-Language', 'ja');
    expect(ja.text).toContain('監査ログ');
    expect(ja.text).toContain('CSV エクスポート');
    const en = await root.get('/admin/resources/admin_audit_log').set('Accept-Language', 'en');
    expect(en.text).toContain('Audit log');
  });

  test('entries cannot be created, edited or deleted, and no write changes one', async () => {
    const [entry] = await logged(root);
    const id = entry!.id;
    const edit = await submit(root, `admin_audit_log/records/${id}/edit`, { account: 'someone else', changes: '{}' });
    const remove = await root.post(`/admin/api/resources/admin_audit_log/records/${id}/delete`).set('Accept-Language', 'en');
    const bulk = await root.post(`/admin/api/resources/admin_audit_log/bulk/bulkDelete?recordIds=${id}`).set('Accept-Language', 'en');
    const create = await submit(root, 'admin_audit_log/actions/new', { account: 'forged', action: 'create', resource: 'users', record_id: '1', record_title: 'x', changes: '{}' });
    // AdminJS answers a refused action with its error notice.
    for (const res of [edit, remove, bulk, create]) expect(res.body.notice).toEqual({ message: 'forbiddenError', type: 'error' });
    const after = await logged(root);
    expect(after.find((e) => e.id === id)).toEqual(entry);
    expect(after.some((e) => e.account === 'forged')).toBe(false);
  });
});
