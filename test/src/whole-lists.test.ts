import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, jest, test } from '@jest/globals';
import request from 'supertest';
import { createApp } from '../../src/app.js';
import { BatchReader, BATCH_ROWS } from '../../src/batches.js';
import { listen } from '../../src/http-server.js';
import { createLogger } from '../../src/logger.js';
import { KeptPages } from '../../src/page-tags.js';
import { loadDeclarations } from '../../src/registry.js';
import { createServices } from '../../src/services.js';
import { createTestUser } from '../../src/testing/index.js';
import { apiToken, testConfig, useTestApp, type TestApp } from '../helpers/app.js';
import { createTestDatabase } from '../helpers/database.js';
import { exchange } from '../helpers/raw-http.js';
import type { ResourceDeclaration, SiteExposure } from '../../src/types/resource.js';

/** One Host for every request: supertest's port changes per request, and a list's tag names the host. */
const JSON_ANSWER = { Accept: 'application/json', 'Accept-Language': 'en', Host: '127.0.0.1' };
const BROWSER = { Accept: 'text/html', 'Accept-Language': 'en' };

async function addComments(t: Pick<TestApp, 'services'>, count: number, body: (i: number) => string = () => 'a body'): Promise<void> {
  const alice = await t.services.registry.users().model.findOne({ where: { username: 'alice' } });
  const rows = Array.from({ length: count }, (_, i) => ({ title: `t${i}`, body: body(i), user_id: alice?.get('id') }));
  await t.services.registry.get('Comment').model.bulkCreate(rows);
}

/** The comments with each site's whole list answering at most `max` rows; the root site's asked whole too, with no page to ask for. */
async function commentsAnsweringAtMost(max: number): Promise<ResourceDeclaration[]> {
  const declarations = await loadDeclarations();
  return declarations.map((declaration) => {
    if (declaration.name !== 'Comment') return declaration;
    const sites = declaration.sites as Record<string, SiteExposure>;
    const token = sites.token as SiteExposure;
    const paginated = sites.paginated as SiteExposure;
    return {
      ...declaration,
      sites: {
        token: { ...token, pagination: { ...token.pagination, maxWholeList: max } },
        paginated: { ...paginated, pagination: { default: 'none', maxWholeList: max } },
      },
    };
  });
}

const answeringAtMostThree = await commentsAnsweringAtMost(3);

describe('a whole list past the most rows its exposure answers at once', () => {
  let token = '';
  const t = useTestApp(
    async (app) => {
      await app.createUser('alice');
      await app.createUser('bob');
      token = await apiToken(app, 'alice');
      await addComments(app, 4);
    },
    {},
    { declarations: answeringAtMostThree },
  );

  const asAlice = (url: string) => t.http.get(url).auth(token, { type: 'bearer' });

  test('is refused with 400, telling the client the page parameters to use instead', async () => {
    const res = await asAlice('/api/comments').set(JSON_ANSWER);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'The list has more than 3 rows, too many to answer at once: ask for it in pages (`page, per_page, cursor`).' });
    const ja = await asAlice('/api/comments').set({ ...JSON_ANSWER, 'Accept-Language': 'ja' });
    expect(ja.body).toEqual({ message: '一覧が3件を超えるため、一度には返せません。ページに分けて取得してください（`page, per_page, cursor`）。' });
    const head = await t.http.head('/api/comments').auth(token, { type: 'bearer' }).set(JSON_ANSWER);
    expect(head.status).toBe(400);
  });

  test('is answered in pages, and whole once a filter leaves few enough rows', async () => {
    const page = await asAlice('/api/comments?page=1&per_page=2').set(JSON_ANSWER);
    expect(page.status).toBe(200);
    expect(page.body.meta.total).toBe(4);
    const filtered = await asAlice('/api/comments?filter[title]=t1').set(JSON_ANSWER);
    expect(filtered.status).toBe(200);
    expect(filtered.body.comments.map((comment: { title: string }) => comment.title)).toEqual(['t1']);
  });

  test('answers a browser with the error page of the same status', async () => {
    const res = await asAlice('/api/comments').set(BROWSER);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('too many to answer at once');
  });

  test('on a site where the list offers no pages, says to ask for fewer rows, in the site’s shape and language', async () => {
    const res = await t.http.get('/comments/').auth('alice', 'alice-password').set({ Accept: 'application/json' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: '一覧が3件を超えるため、一度には返せません。絞り込み条件で件数を減らしてください。' });
    const few = await t.http.get('/comments/?title=t2').auth('alice', 'alice-password').set({ Accept: 'application/json' });
    expect(few.status).toBe(200);
    expect(few.body.map((comment: { title: string }) => comment.title)).toEqual(['t2']);
  });
});

describe('a whole list its first batch holds', () => {
  let token = '';
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
    token = await apiToken(app, 'alice');
    await addComments(app, 3);
  });

  test('is answered at once with its length, and again from memory while its tables are unchanged', async () => {
    const first = await t.http.get('/api/comments').auth(token, { type: 'bearer' }).set(JSON_ANSWER);
    expect(first.status).toBe(200);
    expect(first.headers['content-length']).toBe(String(Buffer.byteLength(first.text)));
    expect(first.headers['transfer-encoding']).toBeUndefined();
    const statements: string[] = [];
    // Sequelize's types leave out the options it reads on every query.
    const { options } = t.services.sequelize as unknown as { options: { logging: false | ((sql: string) => void) } };
    options.logging = (sql) => void statements.push(sql);
    try {
      const again = await t.http.get('/api/comments').auth(token, { type: 'bearer' }).set(JSON_ANSWER);
      expect(again.text).toBe(first.text);
    } finally {
      options.logging = false;
    }
    expect(statements.filter((sql) => /FROM [`"]?comments[`"]?/i.test(sql))).toEqual([]);
  });
});

describe('a whole list longer than its first batch', () => {
  let token = '';
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
    token = await apiToken(app, 'alice');
    await addComments(app, 250, (i) => (i === 7 ? 'http://example.com/a?b=1&c=2' : `<i>"body"</i> & ${i}`));
  });

  test('is written to a browser as it is read: the page’s JSON is the JSON answer’s, indented, its rows linked', async () => {
    const json = await t.http.get('/api/comments').auth(token, { type: 'bearer' }).set(JSON_ANSWER);
    const page = await t.http.get('/api/comments').auth(token, { type: 'bearer' }).set(BROWSER);
    expect(page.status).toBe(200);
    expect(page.headers['transfer-encoding']).toBe('chunked');
    const ids = [...page.text.matchAll(/&quot;id&quot;: <a href="\/api\/comments\/(\d+)">(\d+)<\/a>/g)];
    expect(ids).toHaveLength(250);
    for (const [, linked, text] of ids) expect(linked).toBe(text);
    expect(page.text).toContain('&quot;<a href="http://example.com/a?b=1&amp;c=2">http://example.com/a?b=1&amp;c=2</a>&quot;');
    expect(pageText(page.text)).toBe(JSON.stringify(json.body, null, 4));
  });

  test('asked with ?format=json or by HEAD, answers as the JSON client is answered', async () => {
    const json = await t.http.get('/api/comments').auth(token, { type: 'bearer' }).set(JSON_ANSWER);
    const format = await t.http.get('/api/comments?format=json').auth(token, { type: 'bearer' }).set(BROWSER);
    expect(format.headers['content-type']).toBe('application/json');
    expect(format.text).toBe(json.text);
    const head = await t.http.head('/api/comments').auth(token, { type: 'bearer' }).set(JSON_ANSWER);
    expect(head.status).toBe(200);
    expect(head.headers['content-type']).toBe('application/json');
    expect(head.headers.etag).toBe(json.headers.etag);
  });
});

/** The JSON a browsable page shows, as its text: the links unwrapped, the escapes undone. */
function pageText(html: string): string {
  const shown = /<pre><b>HTTP 200 OK<\/b>\n[\s\S]*?\n\n([\s\S]*?)<\/pre>/.exec(html)?.[1] ?? '';
  return shown
    .replace(/<a href="[^"]*">([^<]*)<\/a>/g, '$1')
    .replaceAll('&quot;', '"')
    .replaceAll('&#39;', "'")
    .replaceAll('&lt;', '<')
    .replaceAll('&gt;', '>')
    .replaceAll('&amp;', '&');
}

describe('the current user with more comments than a batch holds', () => {
  let token = '';
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
    token = await apiToken(app, 'alice');
    await addComments(app, 90);
  });

  test('is written as it is read, both lists the same rows as a whole answer shows, with a weak tag that answers 304', async () => {
    const get = () => t.http.get('/api/user').auth(token, { type: 'bearer' });
    const whole = await get().set(JSON_ANSWER);
    expect(whole.headers['transfer-encoding']).toBeUndefined();
    await addComments(t, 160);
    const streamed = await get().set(JSON_ANSWER);
    expect(streamed.status).toBe(200);
    expect(streamed.headers['transfer-encoding']).toBe('chunked');
    expect(streamed.text).toBe(JSON.stringify(streamed.body));
    const { user, comments } = streamed.body as { user: Record<string, unknown>; comments: Record<string, unknown>[] };
    expect(Object.keys(user)).toEqual(Object.keys(whole.body.user));
    expect(comments).toHaveLength(250);
    expect(user.comments).toEqual(comments);
    expect(comments.slice(0, 90)).toEqual(whole.body.comments);
    expect(streamed.headers.etag).toMatch(/^W\//);
    expect((await get().set(JSON_ANSWER).set('If-None-Match', streamed.headers.etag as string)).status).toBe(304);
    const page = await get().set(BROWSER);
    expect(page.headers['transfer-encoding']).toBe('chunked');
    expect(pageText(page.text)).toBe(JSON.stringify(streamed.body, null, 4));
  });
});

describe('a whole list of long texts', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
    await addComments(app, 300, (i) => `${i} ${'x'.repeat(20_000)}`);
  });

  test('is read fewer rows a batch, every row once, in order', async () => {
    const comments = t.services.registry.get('Comment');
    const reader = new BatchReader({ model: comments.model, fields: comments.declaration.fields, query: { order: [['id', 'ASC']] }, keyset: true });
    const sizes: number[] = [];
    const ids: unknown[] = [];
    for (let rows = await reader.next(); rows; rows = await reader.next()) {
      sizes.push(rows.length);
      ids.push(...rows.map((row) => row.id));
    }
    expect(ids).toEqual([...ids].sort((a, b) => Number(a) - Number(b)));
    expect(new Set(ids).size).toBe(300);
    // About 256 kB of text a batch after the first: a dozen rows of 20,000 characters, not a thousand.
    expect(Math.max(...sizes.slice(1))).toBeLessThan(20);
    expect(Math.max(...sizes)).toBeLessThan(BATCH_ROWS);
  });
});

/** A chunked body's text, and whether it ended with the chunk of length 0 that says it is whole. */
function dechunked(body: Buffer): { text: string; complete: boolean } {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const end = body.indexOf('\r\n', at);
    if (end < 0) return { text: Buffer.concat(parts).toString(), complete: false };
    const size = Number.parseInt(body.subarray(at, end).toString(), 16);
    if (size === 0) return { text: Buffer.concat(parts).toString(), complete: true };
    parts.push(body.subarray(end + 2, end + 2 + size));
    at = end + 2 + size + 2;
  }
}

describe('a database error in the middle of a whole list', () => {
  test('cuts the answer short before its last chunk, so that no client takes it for whole, and is logged', async () => {
    const logged: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged.push(chunk.toString());
        done();
      },
    });
    const database = await createTestDatabase();
    const services = await createServices(testConfig({ DATABASE_URL: database.url }), { logger: createLogger('info', sink) });
    const server = await listen(createApp(services), 0, '127.0.0.1', 30);
    try {
      await createTestUser(services, 'alice', {});
      const token = await apiToken({ http: request(server) }, 'alice');
      await addComments({ services }, 250);
      const asked = `GET /api/comments HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`;
      const port = (server.address() as AddressInfo).port;
      const whole = dechunked((await exchange(port, Buffer.from(asked))).body);
      expect(whole.complete).toBe(true);
      expect(JSON.parse(whole.text).comments).toHaveLength(250);
      const comments = services.registry.get('Comment').model;
      const findAll = comments.findAll.bind(comments);
      let batches = 0;
      // The second batch's query fails: the answer has started with the first.
      jest.spyOn(comments, 'findAll').mockImplementation(async (options) => {
        if ((options as { nest?: boolean } | undefined)?.nest && ++batches === 2) throw new Error('the database went away');
        return findAll(options);
      });
      const { status, head, body } = await exchange(port, Buffer.from(asked));
      expect(status).toBe(200);
      expect(head).toMatch(/^transfer-encoding: chunked$/im);
      const { text, complete } = dechunked(body);
      expect(text).toMatch(/^\{"comments":\[\{"id":1,/);
      expect(complete).toBe(false);
      const failures = logged.join('').split('\n').filter((line) => line.includes('"streaming failed"'));
      expect(failures).toHaveLength(1);
      expect(failures[0]).toContain('the database went away');
    } finally {
      server.close();
      await services.close();
      await database.drop();
    }
  });
});

describe('pages kept under their tags, by size', () => {
  test('a page of more than 256 kB of JSON is not kept, a smaller one is', () => {
    const pages = new KeptPages();
    pages.keep('W/"big"', { results: [{ body: 'x'.repeat(300_000) }] });
    pages.keep('W/"small"', { results: [{ body: 'x'.repeat(1_000) }] });
    expect(pages.get('W/"big"')).toBeUndefined();
    expect(pages.get('W/"small"')).toBeDefined();
  });
});
