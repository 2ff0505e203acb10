import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { WITH_HIDDEN } from '../../../src/registry.js';
import { useTestApp, type TestApp } from '../../helpers/app.js';
import { manualClock } from '../../helpers/clock.js';
import { recordingHandler } from '../../helpers/contract.js';
import { browserLogin } from '../../helpers/pages.js';

const JSON_TYPE = 'application/json';
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const TOKEN = /^\d+\|[A-Za-z0-9]{40}$/;
const SHOWN = ['id', 'name', 'abilities', 'last_used_at', 'expires_at', 'created_at'];
const MINUTE = 60_000;

/** A token of `username` from the login, with `extra` fields. */
async function loginToken(t: Pick<TestApp, 'http'>, username: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await t.http.post('/api/login').send({ email: `${username}@example.com`, password: `${username}-password`, ...extra });
  if (res.status !== 201) throw new Error(`login failed: ${res.status} ${res.text}`);
  return res.body.token as string;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}`, Accept: JSON_TYPE });
const idOf = (token: string): number => Number(token.split('|')[0]);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** A browser logged in through /api-auth/login/, its answers checked against the description like the others. */
const browser = (t: TestApp, username: string) => browserLogin(recordingHandler(t.app, t.responses), username);

describe('a user\'s own API tokens under /api/tokens', () => {
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    await t.createUser('bob');
  });
  const time = manualClock();
  beforeEach(async () => {
    time.install();
    await t.services.registry.tokens()?.model.destroy({ where: {} });
  });
  afterEach(() => time.restore());

  test('GET lists the caller\'s tokens oldest first, with id, name, abilities, last_used_at, expires_at, created_at and never the hash', async () => {
    const first = await loginToken(t, 'alice', { token_name: 'laptop', abilities: ['comments:read'], expires_in: 60 });
    const second = await loginToken(t, 'alice');
    await loginToken(t, 'bob');
    const res = await t.http.get('/api/tokens').set(bearer(second));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body)).toEqual(['tokens']);
    expect(res.body.tokens.map((token: { id: number }) => token.id)).toEqual([idOf(first), idOf(second)]);
    for (const token of res.body.tokens) expect(Object.keys(token)).toEqual(SHOWN);
    expect(res.body.tokens[0]).toMatchObject({ name: 'laptop', abilities: ['comments:read'], last_used_at: null });
    expect(res.body.tokens[0].expires_at).toMatch(TIMESTAMP);
    expect(res.body.tokens[0].created_at).toMatch(TIMESTAMP);
    expect(res.body.tokens[1]).toMatchObject({ name: 'comments-api-token', abilities: ['*'], expires_at: null });
    expect(res.body.tokens[1].last_used_at).toMatch(TIMESTAMP);
    for (const token of [first, second]) {
      expect(res.text).not.toContain(token.split('|')[1]);
      expect(res.text).not.toContain(sha256(token.split('|')[1] ?? ''));
    }
  });

  test('POST answers 201 with the token\'s fields and its plain text, which works with the abilities given', async () => {
    const mine = await loginToken(t, 'alice');
    const res = await t.http.post('/api/tokens').set(bearer(mine)).send({ name: 'ci', abilities: ['comments:read'], expires_in: 30 });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual([...SHOWN, 'token']);
    expect(res.body).toMatchObject({ name: 'ci', abilities: ['comments:read'], last_used_at: null });
    expect(res.body.token).toMatch(TOKEN);
    expect(idOf(res.body.token)).toBe(res.body.id);
    const expires = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
    expect(Math.round(expires / MINUTE)).toBe(30);
    const made = res.body.token as string;
    expect((await t.http.get('/api/comments').set(bearer(made))).status).toBe(200);
    expect((await t.http.post('/api/comments').set(bearer(made)).send({ title: 'no', body: 'write' })).status).toBe(403);
    const row = await t.services.registry.tokens()?.model.scope(WITH_HIDDEN).findByPk(res.body.id);
    expect(row?.get('token')).toBe(sha256(made.split('|')[1] ?? ''));
  });

  test('the secret is shown once: the list shows the new token without it', async () => {
    const mine = await loginToken(t, 'alice');
    const made = (await t.http.post('/api/tokens').set(bearer(mine)).send({ name: 'once' })).body.token as string;
    const list = await t.http.get('/api/tokens').set(bearer(mine));
    expect(list.body.tokens.find((token: { id: number }) => token.id === idOf(made))).toMatchObject({ name: 'once' });
    expect(list.text).not.toContain(made.split('|')[1]);
  });

  test('a form makes a token too, its abilities repeated as abilities[]', async () => {
    const mine = await loginToken(t, 'alice');
    const res = await t.http.post('/api/tokens').set(bearer(mine)).type('form').send('name=phone&abilities%5B%5D=comments%3Aread&abilities%5B%5D=users%3Aread&expires_in=');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'phone', abilities: ['comments:read', 'users:read'], expires_at: null });
  });

  test.each<[string, unknown, Record<string, string[]>]>([
    ['no name', { abilities: ['*'] }, { name: ['The name field is required.'] }],
    ['a blank name', { name: ' ' }, { name: ['The name field is required.'] }],
    ['a name too long', { name: 'n'.repeat(256) }, { name: ['The name field must not be greater than 255 characters.'] }],
    ['abilities that are no list', { name: 'x', abilities: { read: true } }, { abilities: ['The abilities field must be an array.'] }],
    ['expires_in that is no positive integer', { name: 'x', expires_in: '0' }, { expires_in: ['The expires in field must be at least 1.'] }],
    ['a body that is no object', ['name'], { non_field_errors: ['The request must be an object of fields, not list.'] }],
  ])('POST with %s is a 422 and makes no token', async (_case, body, errors) => {
    const mine = await loginToken(t, 'alice');
    const res = await t.http.post('/api/tokens').set(bearer(mine)).send(body as object);
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual(errors);
    expect(await t.services.registry.tokens()?.model.count()).toBe(1);
  });

  test('a token hands on only abilities it holds: by default its own, and 403 for more', async () => {
    const limited = await loginToken(t, 'alice', { abilities: ['tokens:write', 'comments:read'] });
    const inherited = await t.http.post('/api/tokens').set(bearer(limited)).send({ name: 'same' });
    expect(inherited.status).toBe(201);
    expect(inherited.body.abilities).toEqual(['tokens:write', 'comments:read']);
    const fewer = await t.http.post('/api/tokens').set(bearer(limited)).send({ name: 'less', abilities: ['comments:read'] });
    expect(fewer.status).toBe(201);
    for (const abilities of [['comments:write'], ['*'], ['comments:read', 'users:read']]) {
      const more = await t.http.post('/api/tokens').set(bearer(limited)).send({ name: 'more', abilities });
      expect(more.status).toBe(403);
      expect(more.body).toEqual({ message: 'Invalid ability provided.' });
    }
    const all = await loginToken(t, 'alice');
    expect((await t.http.post('/api/tokens').set(bearer(all)).send({ name: 'any', abilities: ['anything:at-all'] })).status).toBe(201);
  });

  test('listing needs tokens:read, and making and revoking tokens:write', async () => {
    const reader = await loginToken(t, 'alice', { abilities: ['tokens:read'] });
    const other = await loginToken(t, 'alice', { abilities: ['comments:read'] });
    expect((await t.http.get('/api/tokens').set(bearer(reader))).status).toBe(200);
    expect((await t.http.get('/api/tokens').set(bearer(other))).status).toBe(403);
    for (const res of [
      await t.http.post('/api/tokens').set(bearer(reader)).send({ name: 'x', abilities: [] }),
      await t.http.delete(`/api/tokens/${idOf(other)}`).set(bearer(reader)),
      await t.http.delete('/api/tokens').set(bearer(reader)),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: 'Invalid ability provided.' });
    }
    expect(await t.services.registry.tokens()?.model.count()).toBe(2);
  });

  test('DELETE /api/tokens/{id} revokes one\'s own token: 204, and it stops working', async () => {
    const mine = await loginToken(t, 'alice');
    const phone = await loginToken(t, 'alice', { device_name: 'phone' });
    const res = await t.http.delete(`/api/tokens/${idOf(phone)}`).set(bearer(mine));
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await t.http.get('/api/user').set(bearer(phone))).status).toBe(401);
    expect((await t.http.get('/api/user').set(bearer(mine))).status).toBe(200);
    expect((await t.http.delete(`/api/tokens/${idOf(phone)}`).set(bearer(mine))).status).toBe(404);
  });

  test('another user\'s token id is 404, as an id of no token, and that token keeps working', async () => {
    const mine = await loginToken(t, 'alice');
    const bobs = await loginToken(t, 'bob');
    const res = await t.http.delete(`/api/tokens/${idOf(bobs)}`).set(bearer(mine));
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: `No query results for model [AccessToken] ${idOf(bobs)}` });
    expect((await t.http.get('/api/user').set(bearer(bobs))).status).toBe(200);
    for (const id of ['424242', 'abc', '0']) {
      const missing = await t.http.delete(`/api/tokens/${id}`).set(bearer(mine));
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ message: `No query results for model [AccessToken] ${id}` });
    }
  });

  test('a token may revoke itself, as a logout does', async () => {
    const mine = await loginToken(t, 'alice');
    expect((await t.http.delete(`/api/tokens/${idOf(mine)}`).set(bearer(mine))).status).toBe(204);
    expect((await t.http.get('/api/user').set(bearer(mine))).status).toBe(401);
  });

  test('DELETE /api/tokens revokes every token of the caller but the one in use', async () => {
    const mine = await loginToken(t, 'alice');
    const others = [await loginToken(t, 'alice'), await loginToken(t, 'alice', { abilities: ['comments:read'] })];
    const bobs = await loginToken(t, 'bob');
    const res = await t.http.delete('/api/tokens').set(bearer(mine));
    expect(res.status).toBe(204);
    expect((await t.http.get('/api/tokens').set(bearer(mine))).body.tokens.map((token: { id: number }) => token.id)).toEqual([idOf(mine)]);
    for (const other of others) expect((await t.http.get('/api/comments').set(bearer(other))).status).toBe(401);
    expect((await t.http.get('/api/user').set(bearer(bobs))).status).toBe(200);
  });

  test('without credentials every one of them is 401', async () => {
    for (const res of [
      await t.http.get('/api/tokens').set('Accept', JSON_TYPE),
      await t.http.post('/api/tokens').set('Accept', JSON_TYPE).send({ name: 'x' }),
      await t.http.delete('/api/tokens').set('Accept', JSON_TYPE),
      await t.http.delete('/api/tokens/1').set('Accept', JSON_TYPE),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ message: 'Unauthenticated.' });
    }
  });

  test('a browser session lists, makes and revokes tokens, its writes needing the CSRF token', async () => {
    const existing = await loginToken(t, 'alice');
    const { agent, csrf } = await browser(t, 'alice');
    const json = { Accept: JSON_TYPE };
    const listed = await agent.get('/api/tokens').set(json);
    expect(listed.status).toBe(200);
    expect(listed.body.tokens.map((token: { id: number }) => token.id)).toEqual([idOf(existing)]);
    expect((await agent.post('/api/tokens').set(json).send({ name: 'no csrf' })).status).toBe(419);
    const made = await agent.post('/api/tokens').set({ ...json, 'X-CSRFToken': csrf }).send({ name: 'from the browser' });
    expect(made.status).toBe(201);
    expect(made.body.abilities).toEqual(['*']);
    expect((await agent.delete(`/api/tokens/${made.body.id}`).set(json)).status).toBe(419);
    expect((await agent.delete(`/api/tokens/${made.body.id}`).set({ ...json, 'X-CSRFToken': csrf })).status).toBe(204);
    // A session uses no token: "all but the one in use" is all of them.
    expect((await agent.delete('/api/tokens').set({ ...json, 'X-CSRFToken': csrf })).status).toBe(204);
    expect(await t.services.registry.tokens()?.model.count()).toBe(0);
  });

  test('the browsable page lists the tokens with a form to make one', async () => {
    await loginToken(t, 'alice', { token_name: 'listed-on-the-page' });
    const { agent } = await browser(t, 'alice');
    const page = await agent.get('/api/tokens').set('Accept', 'text/html');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<title>API tokens');
    expect(page.text).toContain('listed-on-the-page');
    for (const input of ['name="name"', 'name="abilities"', 'name="expires_in"']) expect(page.text).toContain(input);
    const options = await agent.options('/api/tokens').set('Accept', JSON_TYPE);
    expect(Object.keys(options.body.actions.POST)).toEqual(['name', 'abilities', 'expires_in']);
  });

  test('the browsable page\'s form, sent as a browser sends it, makes a token and shows its secret', async () => {
    const { agent, csrf } = await browser(t, 'alice');
    const page = await agent.post('/api/tokens').type('form').set('Accept', 'text/html')
      .send({ csrfmiddlewaretoken: csrf, name: 'typed in', abilities: 'comments:read users:read', expires_in: '' });
    expect(page.status).toBe(201);
    const [token] = /\d+\|[A-Za-z0-9]{40}/.exec(page.text) ?? [];
    expect(token).toBeDefined();
    const shown = await t.http.get('/api/tokens').set(bearer(await loginToken(t, 'alice')));
    expect(shown.body.tokens[0]).toMatchObject({ name: 'typed in', abilities: ['comments:read', 'users:read'], expires_at: null });
  });
});

describe('own tokens under TOKEN_MAX_EXPIRATION_MINUTES', () => {
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
  }, { TOKEN_MAX_EXPIRATION_MINUTES: '120' });

  test('a new token\'s expires_in is cut to the longest lifetime, which a token asking none gets too', async () => {
    const mine = await loginToken(t, 'alice');
    for (const [body, minutes] of [[{ name: 'long', expires_in: 10_000 }, 120], [{ name: 'short', expires_in: 5 }, 5], [{ name: 'none' }, 120]] as const) {
      const res = await t.http.post('/api/tokens').set(bearer(mine)).send(body);
      expect(res.status).toBe(201);
      expect(Math.round((Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)) / MINUTE)).toBe(minutes);
    }
  });
});

describe('a token made by a token', () => {
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
  }, { TOKEN_EXPIRATION_MINUTES: '600' });
  const time = manualClock();
  beforeEach(() => time.install());
  afterEach(() => time.restore());

  const expiresAt = async (maker: string, body: Record<string, unknown>): Promise<string> => {
    const res = await t.http.post('/api/tokens').set(bearer(maker)).send(body);
    expect(res.status).toBe(201);
    return res.body.expires_at as string;
  };

  test('ends when its maker ends, whatever it asks, and may end sooner', async () => {
    const maker = await loginToken(t, 'alice', { expires_in: 10 });
    const listed = await t.http.get('/api/tokens').set(bearer(maker));
    const makersEnd = Date.parse(listed.body.tokens[0].expires_at as string);
    time.advance(MINUTE);
    expect(Date.parse(await expiresAt(maker, { name: 'forever' }))).toBe(makersEnd);
    expect(Date.parse(await expiresAt(maker, { name: 'years', expires_in: 10_000_000 }))).toBe(makersEnd);
    expect(Date.parse(await expiresAt(maker, { name: 'sooner', expires_in: 2 }))).toBe(time.now() + 2 * MINUTE);
  });

  test("made by a token under the global lifetime, ends when its maker's lifetime does", async () => {
    const maker = await loginToken(t, 'alice');
    const made = time.now();
    time.advance(5 * MINUTE);
    // TOKEN_EXPIRATION_MINUTES counts from each token's created_at: the new one's own end may come no later than its maker's.
    expect(Date.parse(await expiresAt(maker, { name: 'later' }))).toBeLessThanOrEqual(made + 600 * MINUTE + 1);
  });

  test('made by a browser session, ends only as TOKEN_MAX_EXPIRATION_MINUTES and expires_in say', async () => {
    const { agent, csrf } = await browser(t, 'alice');
    const res = await agent.post('/api/tokens').set('X-CSRFToken', csrf).set('Accept', JSON_TYPE).send({ name: 'from the browser' });
    expect(res.status).toBe(201);
    expect(res.body.expires_at).toBeNull();
  });
});

describe('the API description of tokens and abilities', () => {
  const t = useTestApp();

  test('documents the token endpoints, the login\'s new fields and the ability each operation needs', async () => {
    const { body } = await t.http.get('/openapi.json');
    const paths = body.paths as Record<string, Record<string, { 'x-token-ability'?: string; description?: string; responses: Record<string, { content?: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> }>; requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown>; required?: string[] } }> } }>>;
    expect(Object.keys(paths['/api/tokens'] ?? {})).toEqual(expect.arrayContaining(['get', 'post', 'delete']));
    expect(Object.keys(paths['/api/tokens/{id}'] ?? {})).toEqual(expect.arrayContaining(['delete']));
    const login = paths['/api/login']?.post?.requestBody?.content ?? {};
    expect(Object.keys(login['application/json']?.schema.properties ?? {})).toEqual(['email', 'password', 'token_name', 'device_name', 'abilities', 'expires_in']);
    expect(login['application/json']?.schema.required).toEqual(['email', 'password']);
    expect(Object.keys(login['application/x-www-form-urlencoded']?.schema.properties ?? {})).toContain('abilities[]');
    const list = paths['/api/comments']?.get;
    expect(list?.['x-token-ability']).toBe('comments:read');
    expect(list?.description).toBe('An API token needs the `comments:read` ability (or `*`); a browser session needs none.');
    expect(list?.responses['403']?.content?.['application/json']?.example).toEqual({ message: 'Invalid ability provided.' });
    const destroy = paths['/api/comments/{pk}']?.delete;
    expect(destroy?.['x-token-ability']).toBe('comments:write');
    expect(Object.keys(destroy?.responses['403']?.content?.['application/json']?.examples ?? {})).toEqual(['permission_denied', 'missing_ability']);
    expect(destroy?.responses['419']?.content?.['application/json']?.example).toEqual({ message: 'CSRF token mismatch.' });
    expect(paths['/api/tokens']?.post?.['x-token-ability']).toBe('tokens:write');
    expect(paths['/api/login']?.post?.['x-token-ability']).toBeUndefined();
    // The root site takes no tokens: no abilities there.
    expect(JSON.stringify(paths['/comments/'])).not.toMatch(/abilit/i);
  });
});
