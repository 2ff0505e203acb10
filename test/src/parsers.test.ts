import { describe, expect, test } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { requestData } from '../../src/parsers.js';
import { credentials, useTestApp } from '../helpers/app.js';

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
    const res = await post().set('Content-Type', 'application/json').send(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]));
    expect(res.status).toBe(400);
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

  test('a broken multipart body is 400', async () => {
    const res = await post().set('Content-Type', 'multipart/form-data').send('--x\r\n');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'フォームデータを解析できません。' });
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
