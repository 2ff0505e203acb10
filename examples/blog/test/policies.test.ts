/** The blog's own policies on its posts: scripts authenticate with an X-Api-Key, and lists also come as CSV. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import type { TestClient } from 'declarest/testing';
import { csvCell, rowsOf } from '../policies/csv.js';
import { author, blogClient, type Author } from './support.js';

let client: TestClient;
let alice: Author;
const KEYS = 'alice-script-key=alice,gone-key=nobody';

beforeAll(async () => {
  client = await blogClient();
  alice = await author(client, 'alice');
  process.env.BLOG_API_KEYS = KEYS;
});

afterEach(() => {
  process.env.BLOG_API_KEYS = KEYS;
});

afterAll(async () => {
  delete process.env.BLOG_API_KEYS;
  // Every answer the tests got is one the blog's own /openapi.json documents: the scheme, and CSV among what it renders.
  const undocumented = await client.undocumentedAnswers();
  await client.close();
  expect(undocumented).toEqual([]);
});

const anonymous = () => client.anonymous;

describe('an API key', () => {
  it('authenticates a script as the account it stands for, on both sites', async () => {
    const created = await anonymous().post('/posts/').set('X-Api-Key', 'alice-script-key').set('Accept', 'application/json').send({ title: 'By a script' }).expect(201);
    expect(created.body.author).toBe(alice.user.displayName);
    const listed = await anonymous().get('/api/posts').set('X-Api-Key', 'alice-script-key').set('Accept', 'application/json').expect(200);
    expect(listed.body.posts.map((post: { title: string }) => post.title)).toContain('By a script');
  });

  it('that is wrong is 401 in each site\'s shape, with the scheme\'s challenge', async () => {
    const root = await anonymous().get('/posts/').set('X-Api-Key', 'not-a-key').set('Accept', 'application/json').set('Accept-Language', 'en').expect(401);
    expect(root.body).toEqual({ detail: 'Incorrect authentication credentials.' });
    expect(root.headers['www-authenticate']).toBe('ApiKey header="X-Api-Key"');
    const api = await anonymous().get('/api/posts').set('X-Api-Key', 'not-a-key').set('Accept', 'application/json').set('Accept-Language', 'en').expect(401);
    expect(api.body).toEqual({ message: 'Unauthenticated.' });
  });

  it('whose account does not exist is refused as a wrong one', async () => {
    await anonymous().get('/posts/').set('X-Api-Key', 'gone-key').set('Accept', 'application/json').expect(401);
  });

  it('stops working once the setting no longer names it', async () => {
    await anonymous().get('/posts/').set('X-Api-Key', 'alice-script-key').set('Accept', 'application/json').expect(200);
    process.env.BLOG_API_KEYS = '';
    await anonymous().get('/posts/').set('X-Api-Key', 'alice-script-key').set('Accept', 'application/json').expect(401);
  });

  it('is the posts\' own: the other resources keep their site\'s schemes only', async () => {
    const refused = await anonymous().get('/tags/').set('X-Api-Key', 'alice-script-key').set('Accept', 'application/json').set('Accept-Language', 'en').expect(401);
    expect(refused.body).toEqual({ detail: 'Authentication credentials were not provided.' });
    expect(refused.headers['www-authenticate']).toMatch(/^Basic/);
  });

  it('is described in the API description, on the posts\' operations only', async () => {
    const description = (await anonymous().get('/openapi.json').expect(200)).body;
    expect(description.components.securitySchemes.apiKey).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    expect(description.paths['/posts/'].get.security).toContainEqual({ apiKey: [] });
    expect(description.paths['/tags/'].get.security).not.toContainEqual({ apiKey: [] });
  });
});

describe('a list of posts as CSV', () => {
  beforeAll(async () => {
    await alice.root.post('/posts/').send({ title: 'Commas, "quotes"', body: 'line one\nline two' }).expect(201);
  });

  it('answers text/csv for ?format=csv: a header row, then a row a post of the page', async () => {
    const answer = await alice.root.get('/posts/?format=csv&fields=id,title,status').expect(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, ...rows] = answer.text.trimEnd().split('\r\n');
    expect(header).toBe('id,title,status');
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.filter((row) => /^\d+,"Commas, ""quotes""",draft$/.test(row))).toHaveLength(1);
  });

  it('is chosen by Accept: text/csv on the token site, its rows the wrapped list\'s', async () => {
    const answer = await client.withToken(await client.tokenFor(alice.user)).get('/api/posts?fields[posts]=id,title').set('Accept', 'text/csv').expect(200);
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = answer.text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,title');
    expect(lines.length).toBeGreaterThan(1);
  });

  it('leaves JSON the default: a client that asks for nothing in particular gets JSON', async () => {
    const answer = await client.actingAs(alice.user).get('/posts/').set('Accept', '*/*').expect(200);
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
  });

  it('is listed by OPTIONS among what the posts render, and by no other resource', async () => {
    expect((await alice.root.options('/posts/').expect(200)).body.renders).toEqual(['application/json', 'text/html', 'text/csv']);
    expect((await alice.root.options('/tags/').expect(200)).body.renders).toEqual(['application/json', 'text/html']);
    await alice.root.get('/tags/?format=csv').expect(404);
  });
});

describe('the CSV renderer', () => {
  it('finds the rows of every body shape the sites answer', () => {
    expect(rowsOf([{ id: 1 }])).toEqual([{ id: 1 }]);
    expect(rowsOf({ count: 1, next: null, previous: null, results: [{ id: 1 }] })).toEqual([{ id: 1 }]);
    expect(rowsOf({ posts: [{ id: 1 }], links: {}, meta: {} })).toEqual([{ id: 1 }]);
    expect(rowsOf({ post: { id: 1 } })).toEqual([{ id: 1 }]);
    expect(rowsOf({ detail: 'Not found.' })).toEqual([{ detail: 'Not found.' }]);
  });

  it('quotes what needs quoting, joins lists of ids, and defuses formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell([1, 2, 3])).toBe('1;2;3');
    expect(csvCell({ lang: 'en' })).toBe('"{""lang"":""en""}"');
    expect(csvCell(null)).toBe('');
    expect(csvCell('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
  });
});
