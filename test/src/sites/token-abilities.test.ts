import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import accessToken from '../../../resources/access_token.js';
import comment from '../../../resources/comment.js';
import user from '../../../resources/user.js';
import { checkAbility, resourceAbility, storedAbilities } from '../../../src/auth/abilities.js';
import { ApiError } from '../../../src/errors.js';
import { WITH_HIDDEN } from '../../../src/registry.js';
import { defineResource, field } from '../../../src/resource.js';
import { createTestClient, type TestClient } from '../../../src/testing/index.js';
import { credentials, useTestApp, type TestApp } from '../../helpers/app.js';
import { manualClock } from '../../helpers/clock.js';
import { browserLogin } from '../../helpers/pages.js';
import { recordingHandler } from '../../helpers/contract.js';
import type { Row } from '../../../src/types/rows.js';

const MISSING_ABILITY = { message: 'Invalid ability provided.' };
const MINUTE = 60_000;
const JSON_TYPE = 'application/json';

/** A login with extra fields as JSON; answers the response. */
const login = (t: Pick<TestApp, 'http'>, username: string, extra: Record<string, unknown> = {}) =>
  t.http.post('/api/login').send({ email: `${username}@example.com`, password: `${username}-password`, ...extra });

/** A token of `username` holding `abilities`. */
async function tokenWith(t: Pick<TestApp, 'http'>, username: string, abilities?: string[]): Promise<string> {
  const res = await login(t, username, abilities ? { abilities } : {});
  if (res.status !== 201) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.body.token as string;
}

/** Whole minutes from the clock's time to the row's expiry (the clock moves a millisecond a reading). */
function minutesLeft(row: Row, now: number): number {
  return Math.round(((row.get('expires_at') as Date).getTime() - now) / MINUTE);
}

async function tokenRow(t: Pick<TestApp, 'services'>, token: string): Promise<Row> {
  const row = await t.services.registry.tokens()?.model.scope(WITH_HIDDEN).findByPk(Number(token.split('|')[0]));
  if (!row) throw new Error(`no row for ${token}`);
  return row;
}

/** A browser logged in through /api-auth/login/, its answers checked against the description like the others. */
const browser = (t: TestApp, username: string) => browserLogin(recordingHandler(t.app, t.responses), username);

describe('which ability an action needs', () => {
  test('reads need <table>:read and writes <table>:write by default', () => {
    for (const action of ['list', 'retrieve']) expect(resourceAbility(comment, action, 'GET')).toBe('comments:read');
    for (const [action, method] of [['create', 'POST'], ['update', 'PUT'], ['partial_update', 'PATCH'], ['destroy', 'DELETE']] as const) {
      expect(resourceAbility(comment, action, method)).toBe('comments:write');
    }
    // The caller's own account, as Laravel's /api/user route (auth:sanctum, no ability).
    expect(resourceAbility(user, 'current', 'GET')).toBeNull();
  });

  test('a custom action by GET reads and by any other method writes; OPTIONS needs nothing', () => {
    expect(resourceAbility(comment, 'export', 'GET')).toBe('comments:read');
    expect(resourceAbility(comment, 'export', 'POST')).toBe('comments:write');
    expect(resourceAbility(comment, 'metadata', 'OPTIONS')).toBeNull();
  });

  test('a declaration may name its own read and write abilities, and one per action (null: any token)', () => {
    const declared = { ...comment, abilities: { read: 'notes:view', write: 'notes:edit', actions: { destroy: 'notes:delete', list: null } } };
    expect(resourceAbility(declared, 'retrieve', 'GET')).toBe('notes:view');
    expect(resourceAbility(declared, 'update', 'PUT')).toBe('notes:edit');
    expect(resourceAbility(declared, 'destroy', 'DELETE')).toBe('notes:delete');
    expect(resourceAbility(declared, 'list', 'GET')).toBeNull();
  });

  test('the access token declaration names tokens:read and tokens:write', () => {
    expect(resourceAbility(accessToken, 'list', 'GET')).toBe('tokens:read');
    expect(resourceAbility(accessToken, 'destroy', 'DELETE')).toBe('tokens:write');
  });

  test.each([
    ['an action no one declared', { actions: { archive: 'x:y' } }, /unknown action "archive"/],
    ['an ability with a space', { read: 'notes read' }, /one word/],
    ['an ability with a comma', { actions: { list: 'a,b' } }, /one word/],
  ])('a declaration naming %s is refused when it loads', (_case, abilities, message) => {
    const declaration = { name: 'Note', table: 'notes', fields: { id: field.id() }, abilities };
    expect(() => defineResource(declaration)).toThrow(message);
  });

  test('only a request with a token can lack an ability; * grants every one', () => {
    expect(() => checkAbility({ token: null }, 'comments:write')).not.toThrow();
    expect(() => checkAbility({ token: { id: 1, name: 'n', abilities: ['*'], expiresAt: null } }, 'comments:write')).not.toThrow();
    expect(() => checkAbility({ token: { id: 1, name: 'n', abilities: ['comments:read'], expiresAt: null } }, 'comments:write')).toThrow(ApiError);
    expect(() => checkAbility({ token: { id: 1, name: 'n', abilities: [], expiresAt: null } }, null)).not.toThrow();
  });

  test('stored abilities that are no list of strings grant nothing', () => {
    expect(storedAbilities('["*"]')).toEqual(['*']);
    for (const stored of [null, '', 'not json', '{"*": true}', '"*"']) expect(storedAbilities(stored)).toEqual([]);
    expect(storedAbilities('["a", 1, null]')).toEqual(['a']);
  });
});

describe('token abilities on the token site', () => {
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    await t.createUser('taro');
  });
  let reader = '';
  let writer = '';
  let everything = '';
  let commentId = 0;
  beforeAll(async () => {
    reader = await tokenWith(t, 'alice', ['comments:read']);
    writer = await tokenWith(t, 'alice', ['comments:write']);
    everything = await tokenWith(t, 'alice', ['*']);
  });
  beforeEach(async () => {
    const created = await t.http.post('/api/comments').auth(everything, { type: 'bearer' }).send({ title: 'kept', body: 'as it was' });
    commentId = created.body.comment.id as number;
  });

  const as = (token: string) => ({ Authorization: `Bearer ${token}`, Accept: JSON_TYPE });

  test('a comments:read token lists and reads comments', async () => {
    const list = await t.http.get('/api/comments').set(as(reader));
    expect(list.status).toBe(200);
    expect(list.body.comments.map((c: { id: number }) => c.id)).toContain(commentId);
    const one = await t.http.get(`/api/comments/${commentId}`).set(as(reader));
    expect(one.status).toBe(200);
    expect(one.body.comment).toMatchObject({ id: commentId, title: 'kept' });
    expect((await t.http.head('/api/comments').set(as(reader))).status).toBe(200);
  });

  test.each([
    ['create', 'post', '/api/comments'],
    ['update', 'put', '/api/comments/:id'],
    ['partial update', 'patch', '/api/comments/:id'],
    ['delete', 'delete', '/api/comments/:id'],
  ] as const)('a comments:read token gets 403 {"message": "Invalid ability provided."} on %s, and nothing changes', async (_name, method, path) => {
    const res = await t.http[method](path.replace(':id', String(commentId))).set(as(reader)).send({ title: 'changed', body: 'by a reader' });
    expect(res.status).toBe(403);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    expect(res.body).toEqual(MISSING_ABILITY);
    const row = await t.services.registry.get('Comment').model.findByPk(commentId);
    expect(row?.get('title')).toBe('kept');
    expect(await t.services.registry.get('Comment').model.count({ where: { title: 'changed' } })).toBe(0);
  });

  test('a comments:write token creates, changes and deletes, but may not read', async () => {
    const created = await t.http.post('/api/comments').set(as(writer)).send({ title: 'w', body: 'written' });
    expect(created.status).toBe(201);
    const id = created.body.comment.id as number;
    expect((await t.http.patch(`/api/comments/${id}`).set(as(writer)).send({ title: 'w2' })).status).toBe(200);
    expect((await t.http.put(`/api/comments/${id}`).set(as(writer)).send({ title: 'w3', body: 'again' })).status).toBe(200);
    const read = await t.http.get(`/api/comments/${id}`).set(as(writer));
    expect(read.status).toBe(403);
    expect(read.body).toEqual(MISSING_ABILITY);
    expect((await t.http.get('/api/comments').set(as(writer))).status).toBe(403);
    expect((await t.http.delete(`/api/comments/${id}`).set(as(writer))).status).toBe(200);
  });

  test('a * token does everything', async () => {
    const created = await t.http.post('/api/comments').set(as(everything)).send({ title: 'all', body: 'of it' });
    expect(created.status).toBe(201);
    const id = created.body.comment.id as number;
    expect((await t.http.get('/api/comments').set(as(everything))).status).toBe(200);
    expect((await t.http.get(`/api/comments/${id}`).set(as(everything))).status).toBe(200);
    expect((await t.http.patch(`/api/comments/${id}`).set(as(everything)).send({ title: 'x' })).status).toBe(200);
    expect((await t.http.delete(`/api/comments/${id}`).set(as(everything))).status).toBe(200);
    expect((await t.http.get('/api/user').set(as(everything))).status).toBe(200);
  });

  test('GET /api/user needs no ability: every token reads its own account', async () => {
    expect((await t.http.get('/api/user').set(as(reader))).status).toBe(200);
    const none = await tokenWith(t, 'alice', []);
    expect((await t.http.get('/api/user').set(as(none))).status).toBe(200);
  });

  test('a token with no abilities at all is still a login: logout and OPTIONS need none', async () => {
    const none = await tokenWith(t, 'alice', []);
    expect((await t.http.options('/api/comments').set(as(none))).status).toBe(200);
    expect((await t.http.get('/api/comments').set(as(none))).status).toBe(403);
    expect((await t.http.post('/api/logout').set(as(none))).status).toBe(204);
    expect((await t.http.get('/api/comments').set(as(none))).status).toBe(401);
  });

  test('the ability is checked after authentication (401 without a token) and before the row is looked up (403 for a missing one)', async () => {
    expect((await t.http.delete(`/api/comments/${commentId}`).set('Accept', JSON_TYPE)).status).toBe(401);
    expect((await t.http.delete('/api/comments/424242').set(as(reader))).status).toBe(403);
  });

  test('the message is Japanese for Accept-Language: ja, and a browser asking for HTML gets the 403 page', async () => {
    const ja = await t.http.post('/api/comments').set(as(reader)).set('Accept-Language', 'ja').send({ title: 'a', body: 'b' });
    expect(ja.status).toBe(403);
    expect(ja.body).toEqual({ message: 'このトークンには、この操作に必要な権限(ability)がありません。' });
    const page = await t.http.post('/api/comments').set('Authorization', `Bearer ${reader}`).set('Accept', 'text/html').send({ title: 'a', body: 'b' });
    expect(page.status).toBe(403);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('Invalid ability provided.');
  });

  test('a browser session has every ability, its writes needing the CSRF token as before', async () => {
    const { agent, csrf } = await browser(t, 'alice');
    const json = { Accept: JSON_TYPE };
    expect((await agent.get('/api/comments').set(json)).status).toBe(200);
    expect((await agent.get('/api/user').set(json)).status).toBe(200);
    expect((await agent.post('/api/comments').set(json).send({ title: 's', body: 'no csrf' })).status).toBe(419);
    const created = await agent.post('/api/comments').set({ ...json, 'X-CSRFToken': csrf }).send({ title: 's', body: 'session' });
    expect(created.status).toBe(201);
    const id = created.body.comment.id as number;
    expect((await agent.patch(`/api/comments/${id}`).set({ ...json, 'X-CSRFToken': csrf }).send({ title: 's2' })).status).toBe(200);
    expect((await agent.delete(`/api/comments/${id}`).set({ ...json, 'X-CSRFToken': csrf })).status).toBe(200);
  });

  test('HTTP Basic on the root site has every ability', async () => {
    const created = await t.http.post('/comments/').auth(...credentials('taro')).set('Accept', JSON_TYPE).send({ title: 'basic', body: 'root' });
    expect(created.status).toBe(201);
    expect((await t.http.delete(`/comments/${created.body.id}/`).auth(...credentials('taro'))).status).toBe(204);
  });
});

describe('POST /api/login with a name, abilities and a lifetime for the token', () => {
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
  });
  const time = manualClock();
  beforeEach(() => time.install());
  afterEach(() => time.restore());

  test('without them the answer and the token are as before: {user, token}, the login token name, ["*"], no expiry', async () => {
    const res = await login(t, 'alice');
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['user', 'token']);
    const row = await tokenRow(t, res.body.token);
    expect(row.get('name')).toBe('comments-api-token');
    expect(row.get('abilities')).toBe('["*"]');
    expect(row.get('expires_at')).toBeNull();
  });

  test('abilities are kept as JSON, without repeats, and the answer is still {user, token}', async () => {
    const res = await login(t, 'alice', { abilities: ['comments:read', 'users:read', 'comments:read'] });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(['user', 'token']);
    expect((await tokenRow(t, res.body.token)).get('abilities')).toBe('["comments:read","users:read"]');
  });

  test('a form sends them as abilities[], repeated, in urlencoded and in multipart bodies alike', async () => {
    const form = await t.http.post('/api/login').type('form')
      .send('email=alice%40example.com&password=alice-password&abilities%5B%5D=comments%3Aread&abilities%5B%5D=users%3Aread');
    expect(form.status).toBe(201);
    expect((await tokenRow(t, form.body.token)).get('abilities')).toBe('["comments:read","users:read"]');
    const multipart = await t.http.post('/api/login')
      .field('email', 'alice@example.com').field('password', 'alice-password')
      .field('abilities[]', 'comments:write').field('abilities[]', 'users:read');
    expect(multipart.status).toBe(201);
    expect((await tokenRow(t, multipart.body.token)).get('abilities')).toBe('["comments:write","users:read"]');
  });

  test('a form may index them, abilities[0], abilities[1], as qs and PHP write them, kept in their indexes\' order', async () => {
    const res = await t.http.post('/api/login').type('form')
      .send('email=alice%40example.com&password=alice-password&abilities%5B1%5D=users%3Aread&abilities%5B0%5D=comments%3Aread');
    expect(res.status).toBe(201);
    expect((await tokenRow(t, res.body.token)).get('abilities')).toBe('["comments:read","users:read"]');
  });

  test.each(['abilities%5Bx%5D', 'abilities%5B0%5D%5Ba%5D', 'abilities%5B%5D%5B%5D'])('a form whose %s names no index is 422, as a JSON object is, never a token with every ability', async (name) => {
    const res = await t.http.post('/api/login').set('Accept', 'application/json').type('form')
      .send(`email=alice%40example.com&password=alice-password&${name}=comments%3Aread`);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual({ abilities: ['The abilities field must be an array.'] });
  });

  test('a form\'s one abilities field may list them apart by commas or spaces', async () => {
    const res = await t.http.post('/api/login').type('form')
      .send({ email: 'alice@example.com', password: 'alice-password', abilities: 'comments:read, users:read  comments:write' });
    expect(res.status).toBe(201);
    expect((await tokenRow(t, res.body.token)).get('abilities')).toBe('["comments:read","users:read","comments:write"]');
  });

  test('token_name names the token, and so does device_name (Sanctum\'s mobile convention)', async () => {
    expect((await tokenRow(t, (await login(t, 'alice', { token_name: 'ci' })).body.token)).get('name')).toBe('ci');
    expect((await tokenRow(t, (await login(t, 'alice', { device_name: 'Taro\'s iPhone' })).body.token)).get('name')).toBe('Taro\'s iPhone');
    expect((await tokenRow(t, (await login(t, 'alice', { token_name: '  ' })).body.token)).get('name')).toBe('comments-api-token');
  });

  test('expires_in minutes later the token stops working', async () => {
    const res = await login(t, 'alice', { expires_in: 30 });
    const token = res.body.token as string;
    expect(minutesLeft(await tokenRow(t, token), time.now())).toBe(30);
    time.advance(30 * MINUTE - 1_000);
    expect((await t.http.get('/api/user').auth(token, { type: 'bearer' })).status).toBe(200);
    time.advance(2_000);
    const expired = await t.http.get('/api/user').auth(token, { type: 'bearer' }).set('Accept', JSON_TYPE);
    expect(expired.status).toBe(401);
    expect(expired.body).toEqual({ message: 'Unauthenticated.' });
  });

  test('a form sends expires_in as text', async () => {
    const res = await t.http.post('/api/login').type('form').send({ email: 'alice@example.com', password: 'alice-password', expires_in: '5' });
    expect(minutesLeft(await tokenRow(t, res.body.token), time.now())).toBe(5);
  });

  test.each<[string, Record<string, unknown>, Record<string, string[]>]>([
    ['abilities that are no list', { abilities: 'comments:read' }, { abilities: ['The abilities field must be an array.'] }],
    ['an ability that is no string', { abilities: ['comments:read', 7] }, { 'abilities.1': ['The abilities.1 field must be a string.'] }],
    ['a blank ability', { abilities: [' '] }, { 'abilities.0': ['The abilities.0 field is required.'] }],
    ['an ability too long', { abilities: ['a'.repeat(256)] }, { 'abilities.0': ['The abilities.0 field must not be greater than 255 characters.'] }],
    ['too many abilities', { abilities: Array.from({ length: 101 }, (_, i) => `a${i}`) }, { abilities: ['The abilities field must not have more than 100 items.'] }],
    ['expires_in of zero', { expires_in: 0 }, { expires_in: ['The expires in field must be at least 1.'] }],
    ['a negative expires_in', { expires_in: -5 }, { expires_in: ['The expires in field must be at least 1.'] }],
    ['a fraction of a minute', { expires_in: 1.5 }, { expires_in: ['The expires in field must be an integer.'] }],
    ['expires_in as words', { expires_in: 'soon' }, { expires_in: ['The expires in field must be an integer.'] }],
    ['expires_in as a boolean', { expires_in: true }, { expires_in: ['The expires in field must be an integer.'] }],
    ['expires_in beyond any limit', { expires_in: 10_000_001 }, { expires_in: ['The expires in field must not be greater than 10000000.'] }],
    ['a token name too long', { token_name: 'n'.repeat(256) }, { token_name: ['The token name field must not be greater than 255 characters.'] }],
    ['a device name too long', { device_name: 'd'.repeat(256) }, { device_name: ['The device name field must not be greater than 255 characters.'] }],
    ["a token name that is a number (Laravel's string rule)", { token_name: 7 }, { token_name: ['The token name field must be a string.'] }],
  ])('%s is a 422 in the token site\'s shape, and no token is made', async (_case, extra, errors) => {
    const before = await t.services.registry.tokens()?.model.count();
    const res = await login(t, 'alice', extra).set('Accept', 'text/html');
    expect(res.status).toBe(422);
    expect(res.headers['content-type']).toBe(JSON_TYPE);
    const [first] = Object.values(errors)[0] ?? [];
    expect(res.body).toEqual({ message: first, errors });
    expect(await t.services.registry.tokens()?.model.count()).toBe(before);
  });

  test('every bad field is named at once, before any password is checked', async () => {
    const res = await t.http.post('/api/login').send({ email: 'alice@example.com', password: 'wrong', abilities: [1], expires_in: 0 });
    expect(res.status).toBe(422);
    expect(res.body.message).toBe('The abilities.0 field must be a string. (and 1 more error)');
    expect(Object.keys(res.body.errors)).toEqual(['abilities.0', 'expires_in']);
  });

  test('good fields with a wrong password still get the one 404 for the credentials', async () => {
    const res = await t.http.post('/api/login').send({ email: 'alice@example.com', password: 'wrong', abilities: ['comments:read'] });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: ['These credentials do not match our records.'] });
  });

  test('the stored hash is never the answer\'s secret', async () => {
    const { token } = (await login(t, 'alice', { abilities: ['comments:read'] })).body as { token: string };
    const secret = token.split('|')[1] ?? '';
    expect((await tokenRow(t, token)).get('token')).toBe(createHash('sha256').update(secret).digest('hex'));
  });
});

describe('TOKEN_MAX_EXPIRATION_MINUTES', () => {
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
  }, { TOKEN_MAX_EXPIRATION_MINUTES: '60' });
  const time = manualClock();
  beforeEach(() => time.install());
  afterEach(() => time.restore());

  test('an expires_in beyond it is cut to it, and the token stops working then', async () => {
    const token = (await login(t, 'alice', { expires_in: 600 })).body.token as string;
    expect(minutesLeft(await tokenRow(t, token), time.now())).toBe(60);
    time.advance(60 * MINUTE - 1_000);
    expect((await t.http.get('/api/user').auth(token, { type: 'bearer' })).status).toBe(200);
    time.advance(2_000);
    expect((await t.http.get('/api/user').auth(token, { type: 'bearer' })).status).toBe(401);
  });

  test('a shorter expires_in is kept', async () => {
    const token = (await login(t, 'alice', { expires_in: 10 })).body.token as string;
    expect(minutesLeft(await tokenRow(t, token), time.now())).toBe(10);
  });

  test('a login that asks no lifetime gets the longest one', async () => {
    const token = (await login(t, 'alice')).body.token as string;
    expect(minutesLeft(await tokenRow(t, token), time.now())).toBe(60);
  });
});

describe('abilities of another application: the blog\'s custom action', () => {
  let client: TestClient;
  let token: (abilities: string[]) => Promise<string>;
  let postId = 0;
  beforeAll(async () => {
    client = await createTestClient({ app: 'examples/blog' });
    const alice = await client.createUser('alice');
    token = async (abilities) => {
      if (!client.services.tokens) throw new Error('the blog declares a token model');
      return (await client.services.tokens.create(alice, { abilities })).plainText;
    };
    postId = (await client.withToken(await token(['posts:write'])).post('/api/posts').send({ title: 'Draft', body: 'text' }).expect(201)).body.post.id;
  });
  afterAll(async () => {
    const undocumented = await client.undocumentedAnswers();
    await client.close();
    expect(undocumented).toEqual([]);
  });

  test('POST /api/posts/<id>/publish needs posts:write; posts:read only reads', async () => {
    const reader = client.withToken(await token(['posts:read']));
    await reader.get(`/api/posts/${postId}`).set('Accept', JSON_TYPE).expect(200);
    const refused = await reader.post(`/api/posts/${postId}/publish`).set('Accept', JSON_TYPE).expect(403);
    expect(refused.body).toEqual(MISSING_ABILITY);
    const published = await client.withToken(await token(['posts:write'])).post(`/api/posts/${postId}/publish`).set('Accept', JSON_TYPE).expect(200);
    expect(published.body.post.status).toBe('published');
  });

  test('each resource has its own abilities: a posts:read token may not read tags', async () => {
    await client.withToken(await token(['posts:read'])).get('/api/tags').set('Accept', JSON_TYPE).expect(403);
    await client.withToken(await token(['tags:read'])).get('/api/tags').set('Accept', JSON_TYPE).expect(200);
  });
});
