import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { describe, expect, test } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { cleanValue } from '../../src/cleaning.js';
import { MAX_JSON_DEPTH, requestData } from '../../src/parsers.js';
import { field } from '../../src/resource.js';
import { apiToken, credentials, useTestApp } from '../helpers/app.js';
import { browserLogin } from '../helpers/pages.js';
import { exchange } from '../helpers/raw-http.js';

/** A multipart/form-data body written byte by byte, as a client that gets it wrong (or right) would send it. */
function multipart(boundary: string, parts: { headers: string[]; content: Buffer | string }[], close = `--${boundary}--\r\n`): Buffer {
  const chunks = parts.map(({ headers, content }) => Buffer.concat([Buffer.from(`--${boundary}\r\n${headers.join('\r\n')}\r\n\r\n`), Buffer.from(content), Buffer.from('\r\n')]));
  return Buffer.concat([...chunks, Buffer.from(close)]);
}

const fieldPart = (name: string, content: Buffer | string, ...more: string[]) => ({ headers: [`Content-Disposition: form-data; name="${name}"`, ...more], content });
const INVALID_UTF8 = Buffer.from([0x61, 0xff, 0xfe, 0x62]);

describe('request bodies', () => {
  const alice = credentials('alice');

  const t = useTestApp(async (t) => {
    await t.createUser('alice');
  }, { BODY_LIMIT_BYTES: '2048' });

  const post = () => t.http.post('/comments/').auth(...alice);
  const count = async () => (await t.http.get('/comments/').auth(...alice)).body.count as number;

  test('a form body creates a comment', async () => {
    const res = await post().type('form').send('title=first&body=hello+world');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'first', body: 'hello world' });
  });

  test('a JSON body creates a comment, also with a charset parameter', async () => {
    const res = await post().set('Content-Type', 'application/json; charset=utf-8').send('{"title":"json","body":"日本語"}');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'json', body: '日本語' });
  });

  test('JSON named by a +json type (application/vnd.api+json) is 415 on the root site, as DRF\'s JSONParser names application/json only', async () => {
    const before = await count();
    const res = await post().set('Content-Type', 'application/vnd.api+json').send('{"title":"vnd","body":"json:api"}');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ detail: 'リクエストのメディアタイプ "application/vnd.api+json" はサポートされていません。' });
    // From a browser session too, whose CSRF check has read the body first, for the token in it.
    const { agent, csrf } = await browserLogin(t.app, 'alice');
    const session = await agent.post('/comments/').set('Content-Type', 'application/vnd.api+json').send(JSON.stringify({ csrfmiddlewaretoken: csrf, title: 'vnd', body: 'json:api' }));
    expect(session.status).toBe(415);
    expect(await count()).toBe(before);
  });

  test('a multipart body creates a comment, and attached files are ignored', async () => {
    const res = await post().field('title', 'third').field('body', 'multipart').attach('file', Buffer.from('data'), 'x.txt');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: 'third', body: 'multipart' });
  });

  test('a repeated form field keeps its last value', async () => {
    const res = await post().type('form').send('title=one&title=two&body=x');
    expect(res.body.title).toBe('two');
  });

  test('malformed JSON is a 400 parse error and stores nothing', async () => {
    const before = await count();
    const res = await post().set('Content-Type', 'application/json').send('{"title": ');
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^JSONを解析できません - /);
    expect(await count()).toBe(before);
  });

  test('JSON that is not an object is a validation error, not a crash', async () => {
    for (const body of ['[1,2]', '"text"', '42', 'null']) {
      const res = await post().set('Content-Type', 'application/json').send(body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual(['non_field_errors']);
    }
  });

  test('JSON values that are not strings are refused per field', async () => {
    const res = await post().send({ title: ['x'], body: { nested: true } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ title: ['有効な文字列ではありません。'], body: ['有効な文字列ではありません。'] });
    const nulls = await post().send({ title: null, body: false });
    expect(nulls.body).toEqual({ title: ['この項目はnullにできません。'], body: ['有効な文字列ではありません。'] });
  });

  test('numbers are accepted as their text, as in Django REST Framework', async () => {
    const res = await post().send({ title: 42, body: 3.5 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: '42', body: '3.5' });
  });

  test('NUL characters and lone surrogates are refused', async () => {
    const nul = await post().send({ title: 'a\u0000b', body: 'x' });
    expect(nul.status).toBe(400);
    expect(nul.body).toEqual({ title: ['ヌル文字は使えません。'] });
    const surrogate = await post().set('Content-Type', 'application/json').send('{"title":"\\ud800","body":"x"}');
    expect(surrogate.status).toBe(400);
    expect(surrogate.body).toEqual({ title: ['有効な文字列ではありません。'] });
  });

  test('invalid UTF-8 in a JSON body is a parse error', async () => {
    // serialize: the bytes as they are (superagent would write a Buffer sent as JSON or a form as JSON or fields).
    const res = await post().set('Content-Type', 'application/json').serialize((body) => body).send(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'JSONを解析できません - invalid UTF-8' });
  });

  test('a prototype-polluting key does nothing', async () => {
    const res = await post().set('Content-Type', 'application/json').send('{"__proto__":{"title":"evil"},"title":"ok","body":"x"}');
    expect(res.status).toBe(201);
    expect(res.body.title).toBe('ok');
    expect(({} as Record<string, unknown>).title).toBeUndefined();
  });

  test.each([
    ['text/plain', 'text/plain'],
    ['application/xml', 'application/xml'],
    ['application/json; charset=latin1', 'application/json; charset=latin1'],
  ])('an unsupported media type (%s) is 415 naming it', async (type, named) => {
    const res = await post().set('Content-Type', type).send('title=x');
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ detail: `リクエストのメディアタイプ "${named}" はサポートされていません。` });
  });

  test('a body without Content-Type is 415', async () => {
    const res = await post().set('Content-Type', '').send(Buffer.from('title=x'));
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ detail: 'リクエストのメディアタイプ "" はサポートされていません。' });
  });

  test('an odd Content-Type on a GET is not an error: bodies are parsed only when used', async () => {
    const res = await t.http.get('/comments/').auth(...alice).set('Content-Type', 'text/plain');
    expect(res.status).toBe(200);
  });

  test('a body over the limit is 413 in the site format', async () => {
    const res = await post().send({ title: 'x', body: 'y'.repeat(4096) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: 'リクエストの本文が大きすぎます。' });
  });

  test('a body whose declared length is over the limit is 413 at once, and its connection closed, without waiting for it', async () => {
    const server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const head = `POST /api/login HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n{}`;
      const answer = await exchange((server.address() as AddressInfo).port, Buffer.from(head));
      // exchange() gives up after 10 s; the request timeout would have answered 408 after 30.
      expect(answer.status).toBe(413);
      const identity = await exchange((server.address() as AddressInfo).port, Buffer.from(head.replace('Content-Length', 'Content-Encoding: identity\r\nContent-Length')));
      expect(identity.status).toBe(413);
      expect(answer.head).toMatch(/\r\nconnection: close/i);
      expect(JSON.parse(answer.body.toString('utf8'))).toEqual({ message: 'The request body is too large.' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('a gzipped body is read; bytes that are not what Content-Encoding says are the parse error of their type; an unknown encoding is 415', async () => {
    // superagent would write a Buffer under a JSON type as JSON; it writes what serialize gives, bytes too (its type says text).
    const asIs = (bytes: Buffer): string => bytes as unknown as string;
    const zipped = await post().set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').serialize(asIs)
      .send(gzipSync('{"title":"zipped","body":"gz"}'));
    expect([zipped.status, zipped.body.title]).toEqual([201, 'zipped']);
    const before = await count();
    const notGzip = await post().set('Content-Type', 'application/json').set('Content-Encoding', 'gzip').send('{"title":"x","body":"y"}');
    expect(notGzip.status).toBe(400);
    expect(notGzip.body).toEqual({ detail: 'JSONを解析できません - the body is not valid gzip' });
    const unknown = await post().set('Content-Type', 'application/json').set('Content-Encoding', 'bogus').send('{"title":"x","body":"y"}');
    expect(unknown.status).toBe(415);
    expect(unknown.body).toEqual({ detail: 'リクエストのメディアタイプ "application/json; Content-Encoding: bogus" はサポートされていません。' });
    expect(await count()).toBe(before);
  });

  test('a broken multipart body is 400', async () => {
    const res = await post().set('Content-Type', 'multipart/form-data').send('--x\r\n');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'フォームデータを解析できません。' });
  });

  const sendMultipart = (body: Buffer, boundary = 'b0undary') => post().set('Content-Type', `multipart/form-data; boundary=${boundary}`).send(body);

  test('invalid UTF-8 in a multipart field is 400, the form parse error, and stores nothing', async () => {
    const before = await count();
    const res = await sendMultipart(multipart('b0undary', [fieldPart('title', INVALID_UTF8), fieldPart('body', 'x')]));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'フォームデータを解析できません。' });
    const form = await post().type('form').serialize((body) => body).send(Buffer.concat([Buffer.from('title='), INVALID_UTF8, Buffer.from('&body=x')]));
    expect(form.body).toEqual(res.body);
    expect(await count()).toBe(before);
  });

  test('a part that declares another charset is still read as UTF-8, as Django and PHP read it', async () => {
    const before = await count();
    const latin1 = await sendMultipart(multipart('b0undary', [fieldPart('title', Buffer.from([0xe9]), 'Content-Type: text/plain; charset=iso-8859-1'), fieldPart('body', 'x')]));
    expect(latin1.status).toBe(400);
    expect(latin1.body).toEqual({ detail: 'フォームデータを解析できません。' });
    expect(await count()).toBe(before);
    const declared = await sendMultipart(multipart('b0undary', [fieldPart('title', 'café', 'Content-Type: text/plain; charset=UTF-8'), fieldPart('body', 'x')]));
    expect(declared.status).toBe(201);
    expect(declared.body.title).toBe('café');
  });

  test('percent-encoded bytes that are not UTF-8 in a form are 400 too, not U+FFFD', async () => {
    const before = await count();
    const res = await post().type('form').send('title=a%FFb&body=x');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'フォームデータを解析できません。' });
    expect(await count()).toBe(before);
    const kept = await post().type('form').send('title=100%25+sure%&body=%E6%97%A5%zz');
    expect(kept.status).toBe(201);
    expect(kept.body).toMatchObject({ title: '100% sure%', body: '日%zz' });
  });

  test('a multipart body keeps UTF-8 text, the last of a repeated field, and skips a file that is not text', async () => {
    const body = multipart('----x', [
      fieldPart('title', 'first'),
      fieldPart('title', '日本語 ✓'),
      { headers: ['Content-Disposition: form-data; name="upload"; filename="a.bin"', 'Content-Type: application/octet-stream'], content: INVALID_UTF8 },
      { headers: ['Content-Disposition: form-data; name="raw"', 'Content-Type: application/octet-stream'], content: INVALID_UTF8 },
      fieldPart('body', 'one\r\ntwo'),
    ]);
    const res = await sendMultipart(Buffer.concat([Buffer.from('a preamble\r\n'), body, Buffer.from('an epilogue')]), '"----x"');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ title: '日本語 ✓', body: 'one\r\ntwo' });
  });

  test.each([
    ['no boundary parameter', 'multipart/form-data', multipart('b', [fieldPart('title', 't')])],
    ['no closing boundary', 'multipart/form-data; boundary=b', Buffer.from('--b\r\nContent-Disposition: form-data; name="title"\r\n\r\nt')],
    ['headers that never end', 'multipart/form-data; boundary=b', Buffer.from('--b\r\nContent-Disposition: form-data; name="title"\r\n')],
    ['a header without a colon', 'multipart/form-data; boundary=b', multipart('b', [{ headers: ['Content-Disposition form-data'], content: 't' }])],
    ['a header in invalid UTF-8', 'multipart/form-data; boundary=b', multipart('b', [{ headers: ['Content-Disposition: form-data; name="\u00ff"'], content: 't' }]).fill(0xff, 45, 46)],
  ])('a multipart body with %s is 400', async (_case, type, body) => {
    const res = await post().set('Content-Type', type).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'フォームデータを解析できません。' });
  });

});

describe('bodies on both sites, with the default body limit', () => {
  let token = '';
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    token = await apiToken(t, 'alice');
  });
  const count = () => t.services.registry.get('Comment').model.count();
  const paginated = () => t.http.post('/comments/').auth(...credentials('alice'));
  const api = () => t.http.post('/api/comments').set('Authorization', `Bearer ${token}`).set('Accept', 'application/json');
  const deep = {
    'an unclosed array': '['.repeat(100_000),
    'a closed array': `${'['.repeat(100_000)}${']'.repeat(100_000)}`,
    objects: `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`,
  };

  test.each(Object.entries(deep))('JSON nested 100,000 deep (%s) is a 400 parse error on the root site, and the next request still answers', async (_case, text) => {
    const before = await count();
    const res = await paginated().set('Content-Type', 'application/json').send(`{"title":${text},"body":"x"}`);
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^JSONを解析できません - /);
    expect(res.body.detail).not.toMatch(/call stack/);
    expect(await count()).toBe(before);
    const next = await paginated().send({ title: 'after', body: 'x' });
    expect(next.status).toBe(201);
  });

  test('JSON nested 100,000 deep is a 400 parse error on the token site, and the next request still answers', async () => {
    const res = await api().set('Content-Type', 'application/json').send(`{"title":${deep['a closed array']},"body":"x"}`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: `The request body is not valid JSON: nested deeper than ${MAX_JSON_DEPTH} levels` });
    const next = await api().send({ title: 'after', body: 'x' });
    expect(next.status).toBe(201);
  });

  test('JSON named by a +json type (application/vnd.api+json) is read as JSON on the token site, as Laravel reads it; another type is 415', async () => {
    const res = await api().set('Content-Type', 'application/vnd.api+json').send('{"title":"vnd","body":"json:api"}');
    expect(res.status).toBe(201);
    expect(res.body.comment).toMatchObject({ title: 'vnd', body: 'json:api' });
    expect((await api().set('Content-Type', 'application/vnd.api+xml').send('<x/>')).status).toBe(415);
  });

  test('more than 1000 parts in a multipart body is 400', async () => {
    const parts = Array.from({ length: 1001 }, (_, i) => fieldPart(`f${i}`, ''));
    const res = await paginated().set('Content-Type', 'multipart/form-data; boundary=b').send(multipart('b', parts));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'フォームデータを解析できません。' });
  });

  test('invalid UTF-8 in a multipart field is 400 on the token site with the form parse error, and stores nothing', async () => {
    const before = await count();
    const res = await api().set('Content-Type', 'multipart/form-data; boundary=b').send(multipart('b', [fieldPart('title', INVALID_UTF8), fieldPart('body', 'x')]));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'The form data could not be parsed.' });
    expect(await count()).toBe(before);
  });
});

describe('JSON depth', () => {
  const echo = express();
  echo.post('/', async (req, res) => {
    res.json(await requestData(req, 10_000_000));
  });
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  test(`JSON nested ${MAX_JSON_DEPTH} deep is read; one level more is refused, as PHP's json_decode refuses it`, async () => {
    const deepest = await request(echo).post('/').type('json').send(nested(MAX_JSON_DEPTH));
    expect(deepest.status).toBe(200);
    expect(deepest.text).toBe(nested(MAX_JSON_DEPTH));
    const deeper = await request(echo).post('/').type('json').send(nested(MAX_JSON_DEPTH + 1));
    expect(deeper.status).toBe(400);
  });

  test('a JSON field sent in a form is refused as invalid when nested too deep, not a server error later', () => {
    const spec = { name: 'metadata', field: field.json({ nullable: true }), required: false, allowBlank: true, maxLength: undefined, numbersAsText: true };
    expect(cleanValue(spec, nested(100_000), true)).toEqual({ error: 'invalid_json' });
    expect(cleanValue(spec, '{"a":[1,{"__proto__":{"x":1},"b":2}]}', true)).toEqual({ value: { a: [1, { b: 2 }] } });
  });
});

describe('keys that name a prototype', () => {
  // What the framework's code receives, as JSON (which keeps an own `__proto__` key, were there one).
  const echo = express();
  echo.post('/', async (req, res) => {
    res.json(await requestData(req, 4096));
  });

  test('__proto__, constructor and prototype are dropped from JSON at any depth, forms and multipart bodies', async () => {
    const json = await request(echo).post('/').type('json').send('{"title":"t","__proto__":{"x":1},"constructor":{"prototype":{"x":1}},"prototype":1}');
    expect(json.text).toBe('{"title":"t"}');
    const nested = await request(echo).post('/').type('json').send('[{"a":{"__proto__":{"x":1},"b":2}}]');
    expect(nested.text).toBe('[{"a":{"b":2}}]');
    const form = await request(echo).post('/').type('form').send('title=t&__proto__=x&constructor=y&prototype=z');
    expect(form.text).toBe('{"title":"t"}');
    const multipart = await request(echo).post('/').field('title', 't').field('__proto__', 'x').field('constructor', 'y');
    expect(multipart.text).toBe('{"title":"t"}');
  });
});
