import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { createTestApp, type TestApp } from '../helpers/app.js';
import { FUZZ_SEED, generator, type Random } from '../helpers/random.js';
import { exchange } from '../helpers/raw-http.js';

/** FUZZ_SEED replays a failing run; FUZZ_DEBUG prints the statuses. */
const SEED = FUZZ_SEED;
const REQUESTS = 5200;
const PARALLEL = 16;

const METHODS = ['GET', 'GET', 'POST', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'get', 'G€T', 'X'.repeat(300)];
const PATHS = [
  '/', '/comments/', '/comments', '/comments/1/', '/comments/1', '/comments/999999999999999999999/', '/comments/-1/', '/comments/1.5/',
  '/comments/abc/', '/comments/%ff/', '/comments/%/', '/comments/%00/', '/comments/%2e%2e/%2e%2e/etc/passwd', '/../../../etc/passwd',
  '/comments/..%2f..%2f', '/%c0%ae%c0%ae/', '/COMMENTS/', '/comments//1', '/api/comments', '/api/comments/1', '/api/comments/0x10',
  '/api/comments/%E2%80%AE', '/api/login', '/api/logout', '/api/user', '/api/sanctum/csrf-cookie', '/sanctum/csrf-cookie', '/api/',
  '/api-auth/login/', '/api-auth/logout/', '/static/browsable.js', '/static/../package.json', '/static/%2e%2e/package.json',
  '/healthz', '/readyz', '/users/', '/users/1/', '/admin/login', '/admin/api/resources/users/actions/list', '/admin/%ff',
  '/comments/\u00e9/', '/' + 'a/'.repeat(2000),
];
const QUERIES = [
  '', '', '?page=2', '?page=last', '?page=0', '?page=-1', '?page=1e309', '?page=NaN', '?page_size=999999999', '?page_size=-5',
  '?page[]=1', '?page[a]=1', '?format=api', '?format=json', '?format=xml', '?lng=ja', '?next=//evil.example', '?page=%ff',
  '?' + 'a=1&'.repeat(2000), '?__proto__[x]=1', '?constructor[prototype][x]=1',
];
const CONTENT_TYPES = [
  'application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz', 'multipart/form-data', 'text/plain', 'application/xml', '', ';;;', 'application/json; charset',
  'application/vnd.api+json', '*/*',
];
const ACCEPTS = ['application/json', 'text/html', '*/*', '', 'application/xml', 'text/html;q=0.1, application/json;q=x', 'a/b/c', '\u00ff'];

function credentials(random: Random): string | undefined {
  switch (random.int(9)) {
    case 0: return undefined;
    case 1: return `Basic ${Buffer.from(`alice:${random.pick(['alice-password', 'wrong', ''])}`).toString('base64')}`;
    case 2: return `Basic ${random.bytes(random.int(60)).toString('base64')}`;
    case 3: return `Basic ${random.pick(['', '!!!', 'a b', '====', 'YWxpY2U=', '%%%', 'x'.repeat(10_000)])}`;
    case 4: return `Bearer ${random.pick(['', '1|', '|', '1|x', 'x|y', '999999999999999999999|abc', '-1|a', `1|${'a'.repeat(40)}`])}`;
    case 5: return `Bearer ${random.bytes(random.int(80)).toString('latin1').replace(/[\r\n]/g, '')}`;
    case 6: return random.pick(['Digest x', 'Basic', 'Bearer', 'Token abc', ' ', 'basic YWxpY2U6YWxpY2UtcGFzc3dvcmQ=']);
    case 7: return `Bearer ${random.pick(['', 'valid'])}`;
    default: return `${random.bytes(random.int(40)).toString('latin1').replace(/[\r\n]/g, '')}`;
  }
}

function body(random: Random): Buffer {
  switch (random.int(10)) {
    case 0: return Buffer.alloc(0);
    case 1: return random.bytes(random.int(2000));
    case 2: return Buffer.from(random.pick(['{', '{"title":', '[]', 'null', '"x"', '1e999', '{"title":"a","body":"b"}', '{"title":{"$gt":""}}', '{"title":["a"],"body":1}']));
    case 3: return Buffer.from('['.repeat(50_000) + ']'.repeat(50_000));
    case 4: return Buffer.alloc(2 * 1024 * 1024, 'a');
    case 5: return Buffer.from(`title=${'x'.repeat(random.int(20))}&body=%ff%fe&` + 'k=v&'.repeat(random.int(3000)));
    case 6: return Buffer.from('--xyz\r\nContent-Disposition: form-data; name="title"\r\n\r\n\u00ff\r\n--xyz');
    case 7: return Buffer.from(JSON.stringify({ title: '\ud800', body: '\u0000', email: 'a@b', password: 'x'.repeat(random.int(100_000)) }));
    case 8: return Buffer.concat([Buffer.from('{"title":"'), random.bytes(50), Buffer.from('","body":"b"}')]);
    default: return Buffer.from(JSON.stringify({ title: 't'.repeat(random.int(20)), body: 'b', __proto__: { admin: true } }));
  }
}

/** One request as raw bytes, with the request line, headers and body a broken client might send. */
/** `bearer` for the nearly-right requests; `disposable` for the others, which may log it out. */
function rawRequest(random: Random, bearer: string, disposable: string): Buffer {
  // Half the requests are nearly right (a writing method on a real route with working credentials), so
  // that the fuzz reaches the parsers, validation and handlers, not only the router's refusals.
  const nearlyRight = random.int(2) === 0;
  const method = nearlyRight ? random.pick(['POST', 'PUT', 'PATCH', 'GET', 'DELETE']) : random.pick(METHODS);
  const path = nearlyRight ? random.pick(['/comments/', '/comments/1/', '/api/comments', '/api/comments/1', '/api/login', '/api-auth/login/']) : random.pick(PATHS);
  let target: Buffer = Buffer.from(path + random.pick(QUERIES));
  if (random.int(12) === 0) target = Buffer.concat([target, random.bytes(8).filter((byte) => byte > 0x20 && byte !== 0x7f)]);
  const valid = nearlyRight && random.int(2) === 0;
  const title = random.pick(['ok', '日本語のタイトル', '😀'.repeat(10), '<script>', "'; DROP TABLE comments;--"]);
  const payload = valid
    ? Buffer.from(JSON.stringify({ title, body: 'fuzz', email: 'alice@example.com', password: 'alice-password' }))
    : random.int(3) === 0 ? Buffer.alloc(0) : body(random);
  const headers: string[] = [`Host: ${random.int(20) === 0 ? random.pick(['', 'bad host', '[::1', 'a'.repeat(300), 'évil']) : 'localhost'}`, 'Connection: close'];
  const siteCredentials = path.startsWith('/api/') ? 'Bearer valid' : `Basic ${Buffer.from('alice:alice-password').toString('base64')}`;
  let auth = nearlyRight ? siteCredentials : credentials(random);
  if (auth === 'Bearer valid') auth = `Bearer ${nearlyRight ? bearer : disposable}`;
  if (auth !== undefined) headers.push(`Authorization: ${auth}`);
  if (valid) headers.push('Content-Type: application/json');
  else if (nearlyRight || random.int(2)) headers.push(`Content-Type: ${random.pick(CONTENT_TYPES)}`);
  if (random.int(2)) headers.push(`Accept: ${random.pick(ACCEPTS)}`);
  if (random.int(4) === 0) headers.push(`Accept-Language: ${random.pick(['ja', 'en', '*', 'xx-YY;q=abc', ',,,', 'ja;q=0'])}`);
  if (random.int(5) === 0) headers.push(`Cookie: ${random.pick(['sessionid=', 'sessionid=s%3Agarbage.sig', 'admin_sessionid=x', 'XSRF-TOKEN=%ff', 'a'.repeat(5000)])}`);
  if (random.int(8) === 0) headers.push(`X-XSRF-TOKEN: ${random.pick(['', 'x', '%ff'])}`);
  if (random.int(10) === 0) headers.push(`X-Forwarded-For: ${random.pick(['1.2.3.4', 'garbage', '::1, 10.0.0.1'])}`);
  if (random.int(10) === 0) headers.push(`X-Huge: ${'h'.repeat(random.pick([100, 20_000, 70_000]))}`);
  if (random.int(10) === 0) headers.push(`Content-Encoding: ${random.pick(['gzip', 'br', 'identity', 'x'])}`);
  const chunked = random.int(10) === 0;
  if (chunked) headers.push('Transfer-Encoding: chunked');
  else if (payload.length > 0 || random.int(4) === 0) {
    // Sometimes shorter than the body: the rest then reads as a second, malformed request.
    headers.push(`Content-Length: ${random.int(6) === 0 ? random.int(payload.length + 1) : payload.length}`);
  }
  const framed = chunked ? Buffer.concat([Buffer.from(`${payload.length.toString(16)}\r\n`), payload, Buffer.from(random.pick(['\r\n0\r\n\r\n', '\r\nzz\r\n']))]) : payload;
  return Buffer.concat([Buffer.from(`${method} `), target, Buffer.from(` HTTP/1.1\r\n${headers.join('\r\n')}\r\n\r\n`), framed]);
}

describe('a fuzz run of random and malformed requests against every site', () => {
  let t: TestApp;
  let server: Server;
  let port: number;
  let bearer: string;
  let disposable: string;

  beforeAll(async () => {
    // No login throttling: every request comes from one address, and 429s would hide the parsers and handlers.
    t = await createTestApp({ BODY_LIMIT_BYTES: String(64 * 1024), LOGIN_RATE_ACCOUNT: 'off', LOGIN_RATE_ADDRESS: 'off' });
    const alice = await t.createUser('alice');
    bearer = await t.services.tokens!.issue(alice);
    disposable = await t.services.tokens!.issue(alice);
    await t.http.post('/comments/').auth('alice', 'alice-password').send({ title: 'seed', body: 'row' });
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await t.close();
  });

  test(`${REQUESTS} requests get no 5xx, JSON answers parse, and the server answers normally afterwards`, async () => {
    const random = generator(SEED);
    const requests = Array.from({ length: REQUESTS }, () => rawRequest(random, bearer, disposable));
    const failures: string[] = [];
    const statuses = new Map<number | null, number>();
    const createdOn = new Set<string>();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < requests.length) {
        const bytes = requests[next++]!;
        const answer = await exchange(port, bytes);
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        if (answer.status === 201) createdOn.add(bytes.subarray(0, bytes.indexOf(' HTTP/1.1')).toString('latin1').split(' ')[1]?.startsWith('/api/') ? 'token' : 'paginated');
        const json = /\r\ncontent-type: application\/json/i.test(answer.head) && /\r\ncontent-length: \d+/i.test(answer.head);
        let brokenJson = false;
        if (json && answer.body.length > 0) {
          try {
            JSON.parse(answer.body.toString('utf8'));
          } catch {
            brokenJson = true;
          }
        }
        if ((answer.status !== null && answer.status >= 500) || brokenJson) {
          failures.push(`${answer.status} for ${bytes.subarray(0, 300).toString('latin1')}`);
        }
      }
    };
    await Promise.all(Array.from({ length: PARALLEL }, worker));

    if (process.env.FUZZ_DEBUG) console.log(SEED, [...statuses.entries()].sort());
    expect({ seed: SEED, failures: failures.slice(0, 5) }).toEqual({ seed: SEED, failures: [] });
    // Most requests were answered (a request cut short may get no answer, as from any HTTP server).
    const answered = REQUESTS - (statuses.get(null) ?? 0);
    expect(answered).toBeGreaterThan(REQUESTS * 0.9);
    // The nearly-right requests reached the handlers of both sites.
    expect([...createdOn].sort()).toEqual(['paginated', 'token']);

    const list = await t.http.get('/api/comments').set('Authorization', `Bearer ${bearer}`).set('Accept', 'application/json');
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body.comments)).toBe(true);
    const created = await t.http.post('/api/comments').set('Authorization', `Bearer ${bearer}`).set('Accept', 'application/json').send({ title: 'after', body: 'fuzz' });
    expect(created.status).toBe(201);
    expect((await t.http.get('/readyz')).status).toBe(200);
  }, 240_000);
});
