import { beforeAll, describe, expect, test } from '@jest/globals';
import { useTestApp, type TestApp } from '../../helpers/app.js';
import { adminAgent, staffAgents, submit, type Agent } from '../../helpers/admin.js';
import { DASHBOARD_LATEST, type DashboardData } from '../../../src/admin/dashboard.js';

const LOAD_TIMEOUT = 60_000;
const COMMENTS = 7;
const minutes = (n: number) => new Date(Date.UTC(2026, 10, 21, 9, n));

async function dashboard(agent: Agent, language = 'en'): Promise<DashboardData> {
  const res = await agent.get('/admin/api/dashboard').set('Accept-Language', language);
  expect(res.status).toBe(200);
  return res.body as DashboardData;
}

/** Sets a row's times as if it had been written then, past the model (which would stamp its own updated_at). */
async function touch(t: TestApp, resource: string, id: number, values: Record<string, Date>): Promise<void> {
  // As text in the form the model writes (the test runner's dates are of another realm than the driver's).
  const texts = Object.fromEntries(Object.entries(values).map(([name, date]) => [name, date.toISOString().replace('T', ' ').replace('Z', ' +00:00')]));
  const { model } = t.services.registry.get(resource);
  await t.services.sequelize.getQueryInterface().bulkUpdate(model.getTableName(), texts, { id });
}

describe('the admin dashboard', () => {
  const t = useTestApp(async (app) => {
    const root = await app.createUser('root', { superuser: true, staff: true, name: 'Root' });
    await app.createUser('staffer', { staff: true, name: 'Stella Staff' });
    await app.createUser('alice', { name: 'Alice Liddell' });
    await app.createUser('never', { name: 'Never Seen' });
    const comments = app.services.registry.get('Comment').model;
    for (let n = 1; n <= COMMENTS; n++) {
      const row = await comments.create({ title: `Comment ${n}`, body: 'Body', user_id: root.id });
      // The oldest comment was edited last.
      await touch(app, 'Comment', Number(row.get('id')), { updated_at: minutes(n === 1 ? 59 : n) });
    }
  });
  let root: Agent;
  let staffer: Agent;
  beforeAll(async () => {
    ({ root, staffer } = await staffAgents(t));
    // Who signed in when, set by hand: the logins above happened within the same second.
    for (const [username, minute] of [['root', 10], ['staffer', 30], ['alice', 20]] as const) {
      const user = await t.services.accounts.findByUsername(username);
      await touch(t, t.services.registry.users().declaration.name, Number(user?.get('id')), { last_login: minutes(minute) });
    }
  }, LOAD_TIMEOUT);

  test('counts the rows of every resource as the database holds them, each linking to its list', async () => {
    const data = await dashboard(staffer);
    const counts = Object.fromEntries(data.resources.map((resource) => [resource.id, resource.count]));
    for (const resource of t.services.registry.all()) {
      expect(counts[resource.declaration.table]).toBe(await resource.model.count());
    }
    expect(counts.comments).toBe(COMMENTS);
    expect(data.resources.find((resource) => resource.id === 'comments')?.href).toBe('/admin/resources/comments');
  });

  test('shows the latest changed rows of each resource, named by their title, linking to their page', async () => {
    const comments = (await dashboard(staffer)).resources.find((resource) => resource.id === 'comments');
    expect(comments?.latest).toHaveLength(DASHBOARD_LATEST);
    expect(comments?.latest.map((row) => row.title)).toEqual(['Comment 1', 'Comment 7', 'Comment 6', 'Comment 5', 'Comment 4']);
    const [first] = comments?.latest ?? [];
    expect(first?.href).toBe(`/admin/resources/comments/records/${first?.id}/show`);
    expect(first?.at).toBe(minutes(59).toISOString());
  });

  test('lists the accounts that signed in last, latest first, and no one who never did', async () => {
    const { logins } = await dashboard(root);
    expect(logins.map((login) => login.username)).toEqual(['staffer', 'alice', 'root']);
    expect(logins[0]).toMatchObject({ title: 'Stella Staff', at: minutes(30).toISOString() });
  });

  test('tells of an account no more than its id, name, username, sign-in time and page', async () => {
    const { logins, resources } = await dashboard(root);
    // Both lists must be there to be checked: a missing or empty one would pass the loops below unchecked.
    expect(logins.length).toBeGreaterThan(0);
    for (const login of logins) expect(Object.keys(login).sort()).toEqual(['at', 'href', 'id', 'title', 'username']);
    const users = resources.find((resource) => resource.id === 'users');
    expect(users?.latest.length).toBeGreaterThan(0);
    for (const row of users?.latest ?? []) expect(Object.keys(row).sort()).toEqual(['at', 'href', 'id', 'title']);
    expect(JSON.stringify({ logins, resources })).not.toMatch(/example\.com|pbkdf2|password/);
  });

  test('names the resources in the language of the page', async () => {
    const en = await dashboard(staffer, 'en');
    expect(en.resources.find((resource) => resource.id === 'comments')).toMatchObject({ name: 'Comment', plural: 'Comments' });
    const ja = await dashboard(staffer, 'ja');
    expect(ja.resources.find((resource) => resource.id === 'comments')).toMatchObject({ name: 'コメント', plural: 'コメント' });
  });

  test("lists the staff member's own changes, latest first, with what was done to which row, and counts the whole log", async () => {
    const before = await dashboard(staffer);
    const comment = await submit(staffer, 'comments/actions/new', { title: 'Mine', body: 'added here' });
    const id = String(comment.body.record.params.id);
    await submit(staffer, `comments/records/${id}/edit`, { title: 'Mine, changed' });
    await staffer.post(`/admin/api/resources/comments/records/${id}/delete`).set('Accept-Language', 'en');

    const data = await dashboard(staffer);
    expect(data.actions.map(({ verb, resource, title }) => [verb, resource, title])).toEqual([
      ['Deleted', 'Comment', 'Mine, changed'],
      ['Changed', 'Comment', 'Mine, changed'],
      ['Added', 'Comment', 'Mine'],
    ]);
    // A deleted row has no page to link to; the log's own list has.
    expect(data.actions.map((action) => action.href)).toEqual([null, `/admin/resources/comments/records/${id}/show`, `/admin/resources/comments/records/${id}/show`]);
    expect(data.log).toEqual({ name: 'Audit log', count: before.log.count + 3, href: '/admin/resources/admin_audit_log' });
    // Another staff member's page lists only theirs.
    expect((await dashboard(root)).actions).toEqual([]);
    expect((await dashboard(staffer, 'ja')).actions[0]).toMatchObject({ verb: '削除', resource: 'コメント' });
  });

  test('is only for logged-in staff', async () => {
    const res = await t.http.get('/admin/api/dashboard');
    expect(res.status).not.toBe(200);
  });

  // Last: it drops the table.
  test('still shows, with no changes and a log of none, where the audit log has no table (migrated before it existed)', async () => {
    await t.services.sequelize.getQueryInterface().dropTable('admin_audit_log');
    const data = await dashboard(staffer);
    expect(data.actions).toEqual([]);
    expect(data.log.count).toBe(0);
    expect(data.resources.length).toBe(t.services.registry.all().length);
  });
});

describe('the admin pages', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('root', { superuser: true, staff: true, name: '管理者' });
    await app.createUser('staffer', { staff: true, name: 'Stella Staff' });
  });
  beforeAll(() => t.app.warm(), LOAD_TIMEOUT);

  const page = async (agent: Agent, language: string) => (await agent.get('/admin/resources/comments').set('Accept-Language', language)).text;

  test('head each resource page with its plural list name and "Edit comment"-style titles, in English and in Japanese', async () => {
    const agent = await adminAgent(t, 'staffer', 'staffer-password');
    const en = await page(agent, 'en');
    expect(en).toContain('"actions":{"list":"Comments","show":"View comment","edit":"Edit comment","new":"Add comment"}');
    expect(en).toContain('"actions":{"list":"Access tokens","show":"View access token","edit":"Edit access token","new":"Add access token"}');
    const ja = await page(agent, 'ja');
    expect(ja).toContain('"actions":{"list":"コメント一覧","show":"コメントの詳細","edit":"コメントの編集","new":"コメントの追加"}');
  });

  test('show the staff member\'s role under their name in the language of the page, not their display name', async () => {
    const root = await adminAgent(t, 'root', 'root-password');
    expect(await page(root, 'en')).toContain('"title":"Superuser"');
    expect(await page(root, 'ja')).toContain('"title":"スーパーユーザ"');
    expect(await page(root, 'en')).not.toContain('"title":"管理者"');
    const staffer = await adminAgent(t, 'staffer', 'staffer-password');
    expect(await page(staffer, 'en')).toContain('"title":"Staff"');
  });
});
