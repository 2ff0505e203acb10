import { describe, expect, test } from '@jest/globals';
import { credentials, useTestApp } from '../helpers/app.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

describe('content negotiation and the plain HTML page', () => {
  const alice = credentials('alice');

  const t = useTestApp(async (t) => {
    await t.createUser('alice', { name: '<b>Alice</b>' });
  });

  test.each([
    ['no Accept header', undefined],
    ['*/*', '*/*'],
    ['application/json', 'application/json'],
    ['a type nothing offers', 'application/xml'],
    ['HTML ranked below JSON', 'text/html;q=0.5, application/json'],
  ])('%s gets JSON', async (_case, accept) => {
    const req = t.http.get('/comments/').auth(...alice);
    const res = await (accept === undefined ? req : req.set('Accept', accept));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
  });

  test.each([
    ['text/html', 'text/html'],
    ['a browser', BROWSER_ACCEPT],
  ])('%s gets the HTML page', async (_case, accept) => {
    const res = await t.http.get('/comments/').auth(...alice).set('Accept', accept);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('<!DOCTYPE html>');
    expect(res.text).toContain('GET, POST, HEAD, OPTIONS');
  });

  test('?format=json and ?format=api override the Accept header', async () => {
    const json = await t.http.get('/comments/?format=json').auth(...alice).set('Accept', 'text/html');
    expect(json.headers['content-type']).toBe('application/json');
    const html = await t.http.get('/comments/?format=api').auth(...alice);
    expect(html.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  test('an unknown ?format= is 404', async () => {
    const res = await t.http.get('/comments/?format=xml').auth(...alice);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: '見つかりませんでした。' });
  });

  test('an unauthenticated browser gets a 403 page and no password pop-up', async () => {
    const res = await t.http.get('/comments/').set('Accept', BROWSER_ACCEPT);
    expect(res.status).toBe(403);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('認証情報が含まれていません。');
  });

  test('errors a browser meets are pages too', async () => {
    const res = await t.http.get('/comments/9999/').auth(...alice).set('Accept', 'text/html');
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('見つかりませんでした。');
  });

  test('user-supplied text is escaped in the page', async () => {
    await t.http.post('/comments/').auth(...alice).send({ title: '<script>', body: '<img src=x>' });
    const res = await t.http.get('/comments/').auth(...alice).set('Accept', 'text/html');
    expect(res.text).not.toContain('<script>');
    expect(res.text).not.toContain('<img src=x>');
    expect(res.text).not.toContain('<b>Alice</b>');
    expect(res.text).toContain('&lt;script&gt;');
    expect(res.text).toContain('&lt;b&gt;Alice&lt;/b&gt;');
  });

  test('the page is in the language of the request', async () => {
    const res = await t.http.get('/comments/').auth(...alice).set('Accept', 'text/html').set('Accept-Language', 'en');
    expect(res.text).toContain('<html lang="en">');
    expect(res.text).toContain('Comment List');
  });
});
