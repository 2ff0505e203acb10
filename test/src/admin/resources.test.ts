import { beforeAll, describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { apiToken, useTestApp, type TestApp } from '../../helpers/app.js';
import { adminAgent, openEditForm, staffAgents, submit, type Agent } from '../../helpers/admin.js';
import { formToken } from '../../helpers/pages.js';
import { WITH_HIDDEN } from '../../../src/registry.js';
import { auditModel } from '../../../src/admin/audit.js';

const LOAD_TIMEOUT = 60_000;
const REMEMBER_TOKEN = 'remember-me-0123456789abcdef';
const SUPERUSERS_ROW = 'Only a superuser may change or delete what belongs to a superuser.';

async function userRow(t: TestApp, username: string) {
  const row = await t.services.registry.users().model.scope(WITH_HIDDEN).findOne({ where: { username } });
  if (!row) throw new Error(`no user ${username}`);
  return row;
}

async function userId(t: TestApp, username: string): Promise<string> {
  return String((await userRow(t, username)).get('id'));
}

describe('the admin resources', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('root', { superuser: true, staff: true, name: 'Root' });
    await app.createUser('staffer', { staff: true, name: 'Stella Staff' });
    await app.createUser('alice', { name: 'Alice Liddell' });
    await app.createUser('boss', { superuser: true, staff: true });
    await app.services.registry.users().model.update({ remember_token: REMEMBER_TOKEN }, { where: { username: 'alice' } });
    const comments = app.services.registry.get('Comment').model;
    const alice = await app.services.accounts.findByUsername('alice');
    await comments.create({ title: 'First', body: 'Hello from Alice', user_id: alice?.get('id') });
  });
  let root: Agent;
  let staffer: Agent;
  beforeAll(async () => {
    ({ root, staffer } = await staffAgents(t));
  }, LOAD_TIMEOUT);

  describe('secrets', () => {
    let secrets: string[];
    let tokenId: string;
    beforeAll(async () => {
      const token = await apiToken(t, 'alice');
      const tokens = t.services.registry.tokens()!.model.scope(WITH_HIDDEN);
      const row = await tokens.findOne({ order: [['id', 'DESC']] });
      tokenId = String(row?.get('id'));
      const hash = String(row?.get('token'));
      secrets = [String((await userRow(t, 'alice')).get('password')), REMEMBER_TOKEN, hash, token, token.split('|')[1] ?? token];
    });

    /** No secret's value anywhere; in API answers (pages carry field labels) not even a key named after one. */
    const expectNoSecret = (text: string, api = true): void => {
      for (const secret of secrets) expect(text).not.toContain(secret);
      if (api) expect(text).not.toMatch(/"(password|remember_token|token)":/);
    };

    test('no list, show, edit form, search, delete or bulk page of any resource holds a hash or token', async () => {
      const alice = await userId(t, 'alice');
      const paths = [
        '/admin/api/resources/users/actions/list?perPage=500',
        '/admin/api/resources/users/actions/list?filters.password=pbkdf2&sortBy=password',
        `/admin/api/resources/users/records/${alice}/show`,
        `/admin/api/resources/users/records/${alice}/edit`,
        `/admin/api/resources/users/records/${alice}/delete`,
        `/admin/api/resources/users/bulk/bulkDelete?recordIds=${alice}`,
        '/admin/api/resources/users/actions/search/alice',
        '/admin/api/resources/users/actions/search/alice?searchProperty=password',
        '/admin/api/resources/personal_access_tokens/actions/list',
        `/admin/api/resources/personal_access_tokens/records/${tokenId}/show`,
        `/admin/api/resources/personal_access_tokens/records/${tokenId}/delete`,
        '/admin/api/resources/personal_access_tokens/actions/search/comments',
        '/admin/api/resources/comments/actions/list',
        '/admin/api/dashboard',
        '/admin/resources/users',
        `/admin/resources/users/records/${alice}/show`,
      ];
      for (const path of paths) {
        const res = await root.get(path);
        expect([path, res.status]).toEqual([path, 200]);
        expectNoSecret(res.text, path.startsWith('/admin/api/'));
      }
    });

    test('saving a user echoes neither the typed password nor its hash', async () => {
      await t.createUser('typist');
      const typist = await userId(t, 'typist');
      const res = await submit(root, `users/records/${typist}/edit`, { name: 'Typist', password: 'typed-in-clear-9' });
      expect(res.status).toBe(200);
      expect(res.body.record.errors).toEqual({});
      expect(res.text).not.toContain('typed-in-clear-9');
      secrets.push(String((await userRow(t, 'typist')).get('password')));
      expectNoSecret(res.text);
      const created = await submit(root, 'users/actions/new', { username: 'echo', email: 'echo@example.com', password: 'another-clear-9' });
      expect(created.body.record.errors).toEqual({});
      expect(created.text).not.toContain('another-clear-9');
      expect(created.text).not.toContain(String((await userRow(t, 'echo')).get('password')));
      const refused = await submit(root, 'users/actions/new', { username: 'echo', email: 'x@example.com', password: 'third-clear-9' });
      expect(Object.keys(refused.body.record.errors)).toEqual(['username']);
      expect(refused.text).not.toContain('third-clear-9');
      await request(t.app).get('/comments/').auth('typist', 'typed-in-clear-9').expect(200);
    });
  });

  describe('users', () => {
    test('a user created in the admin can use HTTP Basic, the browser login and /api/login at once', async () => {
      const res = await submit(staffer, 'users/actions/new', {
        username: 'newbie',
        email: 'newbie@example.com',
        name: 'New Bie',
        password: 'newbie-password',
        is_active: 'true',
        is_staff: 'false',
        is_superuser: 'false',
      });
      expect(res.body.notice).toEqual({ message: 'successfullyCreated', type: 'success' });
      await request(t.app).get('/comments/').auth('newbie', 'newbie-password').expect(200);
      const login = await request(t.app).post('/api/login').type('form').send({ email: 'newbie@example.com', password: 'newbie-password' });
      expect(login.status).toBe(201);
      const agent = request.agent(t.app);
      const page = await agent.get('/api-auth/login/');
      const browser = await agent.post('/api-auth/login/').type('form').send({ csrfmiddlewaretoken: formToken(page.text), username: 'newbie', password: 'newbie-password' });
      expect(browser.status).toBe(302);
    });

    test('a new user needs a password, and the serializer rules of every field', async () => {
      const res = await submit(staffer, 'users/actions/new', { username: 'bad name!', email: 'not-an-email', name: 'x'.repeat(300) });
      expect(Object.keys(res.body.record.errors).sort()).toEqual(['email', 'name', 'password', 'username']);
      expect(res.body.record.errors.email.message).toBe('Enter a valid email address.');
      expect(await t.services.accounts.findByEmail('not-an-email')).toBeNull();
    });

    test('an empty password on edit keeps the old one, a new one replaces it', async () => {
      await t.createUser('keeper');
      const id = await userId(t, 'keeper');
      await submit(staffer, `users/records/${id}/edit`, { name: 'Kept', password: '' }).expect(200);
      await request(t.app).get('/comments/').auth('keeper', 'keeper-password').expect(200);
      await submit(staffer, `users/records/${id}/edit`, { password: 'changed-password' }).expect(200);
      await request(t.app).get('/comments/').auth('keeper', 'keeper-password').expect(401);
      await request(t.app).get('/comments/').auth('keeper', 'changed-password').expect(200);
    });

    test("a password typed on a user's edit must keep the password rules: a common one is refused and the old one stays", async () => {
      await t.createUser('ruled');
      const id = await userId(t, 'ruled');
      const common = await submit(staffer, `users/records/${id}/edit`, { password: 'password123' });
      expect(common.body.record.errors.password.message).toBe('This password is too common.');
      const similar = await submit(staffer, `users/records/${id}/edit`, { username: 'marmaduke', password: 'marmaduke1' });
      expect(similar.body.record.errors.password.message).toBe('The password is too similar to the username, email address or name.');
      await request(t.app).get('/comments/').auth('ruled', 'ruled-password').expect(200);
    });

    test('the list filters by staff and active and searches usernames, emails and names', async () => {
      const staff = await staffer.get('/admin/api/resources/users/actions/list?filters.is_staff=true&perPage=100');
      const usernames = staff.body.records.map((record: { params: { username: string } }) => record.params.username);
      expect(usernames.sort()).toEqual(['boss', 'root', 'staffer']);
      const search = await staffer.get('/admin/api/resources/users/actions/search/LIDDELL');
      expect(search.body.records.map((record: { title: string }) => record.title)).toEqual(['Alice Liddell']);
      const byText = await staffer.get('/admin/api/resources/users/actions/list?filters.email=ALICE@');
      expect(byText.body.meta.total).toBe(1);
      const percent = await staffer.get('/admin/api/resources/users/actions/list?filters.username=%25');
      expect(percent.body.meta.total).toBe(0);
    });

    test('filters, sorting, paging and ids that name nothing answer without an error', async () => {
      const queries = [
        'actions/list?filters.id=abc&sortBy=nothing&direction=sideways&page=-3&perPage=-1',
        'actions/list?filters.is_staff=maybe&filters.last_login~~from=yesterday&filters.created_at~~to=2999-01-01',
        'actions/list?filters.__proto__.polluted=1&filters.constructor.prototype.polluted=1&perPage=99999',
        'actions/list?filters.username=%00',
        'records/abc/show',
        'records/99999999999/edit',
        'actions/search/%00',
      ];
      for (const query of queries) {
        const res = await staffer.get(`/admin/api/resources/users/${query}`);
        expect([query, res.status < 500]).toEqual([query, true]);
      }
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      for (const path of ['actions/nothing', 'actions/constructor', 'records/1/nothing', 'records/1/list', 'bulk/toString?recordIds=1']) {
        expect([path, (await staffer.get(`/admin/api/resources/users/${path}`)).status]).toEqual([path, 404]);
      }
      expect((await staffer.get('/admin/api/resources/%ZZ/actions/list')).status).toBe(400);
      // AdminJS's API answers a record it cannot find with an error notice for its page to show.
      expect((await staffer.get('/admin/api/resources/users/records/abc/show')).body.notice.type).toBe('error');
      expect((await staffer.get('/admin/api/resources/users/actions/new')).status).toBe(405);
      expect((await staffer.get('/admin/api/resources/nothing/actions/list')).status).toBe(404);
    });
  });

  describe('privileges', () => {
    test('a staff member cannot create a staff member or a superuser', async () => {
      for (const [flag, username] of [['is_staff', 'sneaky1'], ['is_superuser', 'sneaky2']] as const) {
        const res = await submit(staffer, 'users/actions/new', { username, email: `${username}@example.com`, password: 'pw-123456', [flag]: 'true' });
        expect(res.body.record.errors[flag].type).toBe('forbidden');
        expect(await t.services.accounts.findByUsername(username)).toBeNull();
      }
    });

    test('a staff member cannot grant staff or superuser rights', async () => {
      const alice = await userId(t, 'alice');
      for (const flag of ['is_staff', 'is_superuser']) {
        const res = await submit(staffer, `users/records/${alice}/edit`, { [flag]: 'true' });
        expect(res.body.record.errors[flag].message).toBe('Only a superuser may grant or withdraw staff and superuser rights.');
        expect((await userRow(t, 'alice')).get(flag)).toBe(false);
      }
    });

    test("a staff member's JSON edit of a privilege is refused on its field, saves nothing and logs nothing", async () => {
      const alice = await userId(t, 'alice');
      const entries = await auditModel(t.services.sequelize).count();
      for (const body of [{ is_superuser: true }, { is_staff: true, name: 'Promoted by JSON' }]) {
        const res = await staffer.post(`/admin/api/resources/users/records/${alice}/edit`).set('Accept-Language', 'en').send(body);
        expect(res.body.notice).toEqual({ message: 'The form has errors; nothing was saved.', type: 'error' });
        const flag = Object.keys(body)[0]!;
        expect(res.body.record.errors[flag]).toEqual({ message: 'Only a superuser may grant or withdraw staff and superuser rights.', type: 'forbidden' });
      }
      const row = await userRow(t, 'alice');
      expect([row.get('is_superuser'), row.get('is_staff'), row.get('name')]).toEqual([false, false, 'Alice Liddell']);
      expect(await auditModel(t.services.sequelize).count()).toBe(entries);
    });

    test('a JSON edit means what the form means: a boolean, number or null is its text, and a value no form sends is refused', async () => {
      await t.createUser('jsoned', { name: 'Jay Son' });
      const id = await userId(t, 'jsoned');
      const edit = (body: unknown) => root.post(`/admin/api/resources/users/records/${id}/edit`).set('Accept-Language', 'en').send(body as object);
      expect((await edit({ is_active: false })).body.notice.type).toBe('success');
      expect((await userRow(t, 'jsoned')).get('is_active')).toBe(false);

      const nested = await edit({ name: { first: 'Jay' }, is_active: true });
      expect(nested.status).toBe(400);
      expect(nested.body.notice).toEqual({ message: 'The form has errors; nothing was saved.', type: 'error' });
      const list = await edit([{ name: 'Listed' }]);
      expect(list.status).toBe(400);
      expect(list.body.notice).toEqual({ message: 'Invalid data. Expected an object, but got list.', type: 'error' });
      const row = await userRow(t, 'jsoned');
      expect([row.get('name'), row.get('is_active')]).toEqual(['Jay Son', false]);
    });

    test("a staff member cannot edit or delete a superuser's account", async () => {
      const boss = await userId(t, 'boss');
      const edit = await submit(staffer, `users/records/${boss}/edit`, { password: 'taken-over-1' });
      expect(edit.body.record.baseError).not.toBeNull();
      await request(t.app).get('/comments/').auth('boss', 'boss-password').expect(200);
      const name = await submit(staffer, `users/records/${boss}/edit`, { name: 'Renamed' });
      expect(name.body.record.baseError).not.toBeNull();
      expect((await userRow(t, 'boss')).get('name')).not.toBe('Renamed');
      await staffer.post(`/admin/api/resources/users/records/${boss}/delete`);
      await staffer.post(`/admin/api/resources/users/bulk/bulkDelete?recordIds=${boss}`);
      expect(await t.services.accounts.findByUsername('boss')).not.toBeNull();
    });

    test('a bulk delete that includes a superuser deletes nothing', async () => {
      await t.createUser('bystander');
      const ids = `${await userId(t, 'bystander')},${await userId(t, 'boss')}`;
      await staffer.post(`/admin/api/resources/users/bulk/bulkDelete?recordIds=${ids}`);
      expect(await t.services.accounts.findByUsername('bystander')).not.toBeNull();
      expect(await t.services.accounts.findByUsername('boss')).not.toBeNull();
    });

    test('booleans keep the meaning of every spelling the APIs accept, and others are refused', async () => {
      await t.createUser('flipper', { staff: true });
      const id = await userId(t, 'flipper');
      await submit(root, `users/records/${id}/edit`, { is_staff: '0' }).expect(200);
      expect((await userRow(t, 'flipper')).get('is_staff')).toBe(false);
      await submit(root, `users/records/${id}/edit`, { is_active: 'off' }).expect(200);
      expect((await userRow(t, 'flipper')).get('is_active')).toBe(false);
      const refused = await submit(root, `users/records/${id}/edit`, { is_active: 'maybe' });
      expect(refused.status).toBe(400);
      expect((await userRow(t, 'flipper')).get('is_active')).toBe(false);
    });

    test('a superuser grants and withdraws staff rights', async () => {
      await t.createUser('promoted');
      const id = await userId(t, 'promoted');
      const res = await submit(root, `users/records/${id}/edit`, { is_staff: 'true' });
      expect(res.body.record.errors).toEqual({});
      expect((await userRow(t, 'promoted')).get('is_staff')).toBe(true);
      await adminAgent(t, 'promoted', 'promoted-password');
    });

    test('nobody withdraws their own staff right, deactivates or deletes themselves', async () => {
      const id = await userId(t, 'root');
      const staff = await submit(root, `users/records/${id}/edit`, { is_staff: 'false' });
      expect(staff.body.record.errors.is_staff.message).toBe('You cannot withdraw your own staff rights.');
      const active = await submit(root, `users/records/${id}/edit`, { is_active: 'false' });
      expect(active.body.record.errors.is_active.message).toBe('You cannot deactivate your own account.');
      await root.post(`/admin/api/resources/users/records/${id}/delete`);
      await root.post(`/admin/api/resources/users/bulk/bulkDelete?recordIds=${id}`);
      const row = await userRow(t, 'root');
      expect([row.get('is_staff'), row.get('is_active')]).toEqual([true, true]);
    });

    test('an action posted on a route of another kind runs nothing', async () => {
      const res = await submit(staffer, `users/bulk/new?recordIds=${await userId(t, 'alice')}`, { username: 'sideways', email: 'sideways@example.com', password: 'pw-123456' });
      expect(res.status).toBe(404);
      expect(await t.services.accounts.findByUsername('sideways')).toBeNull();
    });

    test('a write posted from another site is refused', async () => {
      const alice = await userId(t, 'alice');
      const res = await submit(root, `users/records/${alice}/edit`, { name: 'Forged' }).set('Origin', 'https://evil.example');
      expect(res.status).toBe(403);
      expect((await userRow(t, 'alice')).get('name')).not.toBe('Forged');
    });
  });

  describe('comments and tokens', () => {
    test("comments show their owner's name, linked to the owner's record", async () => {
      const res = await staffer.get('/admin/api/resources/comments/actions/list');
      const [record] = res.body.records;
      expect(record.populated.user_id).toMatchObject({ title: 'Alice Liddell', id: Number(await userId(t, 'alice')) });
    });

    test('editing a comment saves it through the same validation as the APIs', async () => {
      const comment = await t.services.registry.get('Comment').model.findOne();
      const id = String(comment?.get('id'));
      const before = comment?.get('updated_at') as Date;
      const refused = await submit(staffer, `comments/records/${id}/edit`, { title: 'x'.repeat(300) });
      expect(Object.keys(refused.body.record.errors)).toEqual(['title']);
      const saved = await submit(staffer, `comments/records/${id}/edit`, { title: 'Edited by staff' });
      expect(saved.body.record.errors).toEqual({});
      await comment?.reload();
      expect(comment?.get('title')).toBe('Edited by staff');
      expect((comment?.get('updated_at') as Date).getTime()).toBeGreaterThan(before.getTime());
    });

    test('tokens are listed with their user, name, last use and creation, and cannot be created or edited', async () => {
      await apiToken(t, 'alice');
      const res = await staffer.get('/admin/api/resources/personal_access_tokens/actions/list');
      const [record] = res.body.records;
      expect(Object.keys(record.params)).toEqual(expect.arrayContaining(['tokenable_id', 'name', 'last_used_at', 'created_at']));
      expect(record.populated.tokenable_id.title).toBe('Alice Liddell');
      expect((await staffer.get('/admin/api/resources/personal_access_tokens/actions/new')).body.notice?.type).toBe('error');
    });

    test('a token cannot be edited, even by a forged request', async () => {
      const row = await t.services.registry.tokens()!.model.findOne();
      const id = String(row?.get('id'));
      const res = await submit(staffer, `personal_access_tokens/records/${id}/edit`, { name: 'renamed' });
      expect(res.body.notice.type).toBe('error');
      await row?.reload();
      expect(row?.get('name')).not.toBe('renamed');
    });

    test('a body over the limit is refused with 413 and saves nothing', async () => {
      const alice = await userId(t, 'alice');
      const res = await staffer
        .post(`/admin/api/resources/users/records/${alice}/edit`)
        .type('form')
        .send({ name: 'x'.repeat(t.services.config.bodyLimit + 10) });
      expect(res.status).toBe(413);
      expect((await userRow(t, 'alice')).get('name')).toBe('Alice Liddell');
    });

    test('a body that cannot be read is refused with a message that says why, and saves nothing', async () => {
      const alice = await userId(t, 'alice');
      const edit = () => staffer.post(`/admin/api/resources/users/records/${alice}/edit`).set('Accept-Language', 'en');
      const broken = await edit().set('Content-Type', 'application/json').send('{"name":');
      expect(broken.status).toBe(400);
      expect(broken.body.notice.message).toMatch(/^JSON parse error - ./);
      const plain = await edit().set('Content-Type', 'text/plain').send('name=x');
      expect(plain.status).toBe(415);
      expect(plain.body.notice.message).toBe('Unsupported media type "text/plain" in request.');
      expect((await userRow(t, 'alice')).get('name')).toBe('Alice Liddell');
    });

    test("a staff member cannot edit or delete a superuser's comment, nor revoke a superuser's token; a superuser can", async () => {
      const boss = await t.services.accounts.findByUsername('boss');
      const comment = await t.services.registry.get('Comment').model.create({ title: 'Boss', body: 'Mine', user_id: boss?.get('id') });
      const commentId = String(comment.get('id'));
      const edit = await submit(staffer, `comments/records/${commentId}/edit`, { title: 'Taken over' });
      expect(edit.body.record.baseError.message).toBe('Only a superuser may change or delete what belongs to a superuser.');
      await staffer.post(`/admin/api/resources/comments/records/${commentId}/delete`);
      await comment.reload();
      expect(comment.get('title')).toBe('Boss');

      const token = await apiToken(t, 'boss');
      const tokenRow = await t.services.registry.tokens()!.model.findOne({ order: [['id', 'DESC']] });
      const revoke = await staffer.post(`/admin/api/resources/personal_access_tokens/records/${String(tokenRow?.get('id'))}/delete`);
      expect(revoke.body.notice.type).toBe('error');
      await request(t.app).get('/api/user').auth(token, { type: 'bearer' }).expect(200);

      expect((await submit(root, `comments/records/${commentId}/edit`, { title: 'By root' })).body.record.errors).toEqual({});
      await comment.reload();
      expect(comment.get('title')).toBe('By root');
      expect((await root.post(`/admin/api/resources/personal_access_tokens/records/${String(tokenRow?.get('id'))}/delete`)).body.notice.type).toBe('success');
      await request(t.app).get('/api/user').auth(token, { type: 'bearer' }).expect(401);
    });

    test("a staff member's edit of a superuser's comment is answered as refused, with the comment as stored", async () => {
      const boss = await userId(t, 'boss');
      const comment = await t.services.registry.get('Comment').model.create({ title: 'Untouched', body: 'Mine', user_id: boss });
      const entries = await auditModel(t.services.sequelize).count();
      const typed = await submit(staffer, `comments/records/${String(comment.get('id'))}/edit`, { title: 'pwned' });
      const form = await (await openEditForm(staffer, 'comments', String(comment.get('id')))).save({ title: 'pwned' });
      for (const res of [typed, form]) {
        expect(res.body.notice).toEqual({ message: SUPERUSERS_ROW, type: 'error' });
        expect(res.body.record.params.title).toBe('Untouched');
        expect(res.body.redirectUrl).toBeUndefined();
      }
      await comment.reload();
      expect(comment.get('title')).toBe('Untouched');
      expect(await auditModel(t.services.sequelize).count()).toBe(entries);
    });

    test("a bulk delete that includes a superuser's comment or token deletes none of them, logs nothing and says why", async () => {
      const comments = t.services.registry.get('Comment').model;
      const [alice, boss] = [await userId(t, 'alice'), await userId(t, 'boss')];
      const ids: number[] = [];
      for (const owner of [alice, boss, alice]) ids.push((await comments.create({ title: 'Bulk', body: 'Stays', user_id: owner })).get('id') as number);
      const entries = await auditModel(t.services.sequelize).count();
      const res = await staffer.post(`/admin/api/resources/comments/bulk/bulkDelete?recordIds=${ids.join(',')}`).set('Accept-Language', 'en');
      expect(res.body.notice).toEqual({ message: SUPERUSERS_ROW, type: 'error' });

      const tokens: string[] = [];
      const tokenIds: string[] = [];
      for (const username of ['alice', 'boss']) {
        tokens.push(await apiToken(t, username));
        tokenIds.push(String((await t.services.registry.tokens()!.model.findOne({ order: [['id', 'DESC']] }))?.get('id')));
      }
      const revoke = await staffer.post(`/admin/api/resources/personal_access_tokens/bulk/bulkDelete?recordIds=${tokenIds.join(',')}`).set('Accept-Language', 'en');
      expect(revoke.body.notice).toEqual({ message: SUPERUSERS_ROW, type: 'error' });
      expect(await comments.count({ where: { id: ids } })).toBe(3);
      for (const token of tokens) await request(t.app).get('/api/user').auth(token, { type: 'bearer' }).expect(200);
      expect(await auditModel(t.services.sequelize).count()).toBe(entries);
    });

    test('deleting a token revokes it', async () => {
      const token = await apiToken(t, 'alice');
      await request(t.app).get('/api/user').auth(token, { type: 'bearer' }).expect(200);
      const row = await t.services.registry.tokens()!.model.findOne({ order: [['id', 'DESC']] });
      const res = await staffer.post(`/admin/api/resources/personal_access_tokens/records/${String(row?.get('id'))}/delete`);
      expect(res.body.notice.type).toBe('success');
      await request(t.app).get('/api/user').auth(token, { type: 'bearer' }).expect(401);
    });
  });
});
