import { describe, expect, test } from '@jest/globals';
import { apiToken, useTestApp } from '../../helpers/app.js';

const html = { Accept: 'text/html', 'Accept-Language': 'en' };

describe('the browsable page', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
    await app.createUser('bob');
    for (const title of ['first', 'second', '<i>x</i>']) {
      await app.http.post('/comments/').auth('alice', 'alice-password').send({ title, body: 'body' });
    }
  });

  test('a list page shows breadcrumbs, the status, Allow, the pretty body, page links and a create form with the limits', async () => {
    const res = await t.http.get('/comments/').auth('alice', 'alice-password').set(html);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<a href="/">Api Root</a>');
    expect(res.text).toContain('<span aria-current="page">Comment List</span>');
    expect(res.text).toContain('<b>HTTP 200 OK</b>');
    expect(res.text).toContain('Allow:</span> GET, POST, HEAD, OPTIONS');
    expect(res.text).toContain('&quot;count&quot;: 3');
    expect(res.text).toContain('<a rel="next" href="http://');
    expect(res.text).toMatch(/<input type="text" id="id_title" name="title" value="" maxlength="10" required>/);
    expect(res.text).toMatch(/<input type="text" id="id_body" name="body" value="" maxlength="15" required>/);
    expect(res.text).toContain('<script src="/static/browsable.js" defer></script>');
  });

  test('the URLs in the JSON are links, and a value that only looks like one cannot break out of it', async () => {
    await t.http.post('/comments/').auth('alice', 'alice-password').send({ title: 'http://a"<', body: 'lookalike' });
    const res = await t.http.get('/comments/').auth('alice', 'alice-password').set(html);
    expect(res.text).toMatch(/&quot;next&quot;: &quot;<a href="http:\/\/[^"]+\/comments\/\?page=2">http:\/\/[^<]+\/comments\/\?page=2<\/a>&quot;/);
    expect(res.text).toContain('&quot;<a href="http://a\\">http://a\\</a>&quot;&lt;&quot;');
    expect(res.text).not.toContain('http://a"<');
  });

  test('each row of a list links to its own page, in the path style the list was asked by', async () => {
    const slashed = await t.http.get('/comments/?page_size=5').auth('alice', 'alice-password').set(html);
    const ids = [...slashed.text.matchAll(/&quot;id&quot;: <a href="\/comments\/(\d+)\/">(\d+)<\/a>/g)];
    expect(ids.length).toBeGreaterThanOrEqual(3);
    for (const [, linked, shown] of ids) expect(linked).toBe(shown);
    const bare = await t.http.get('/comments?page_size=5').auth('alice', 'alice-password').set(html);
    expect(bare.text).toMatch(/&quot;id&quot;: <a href="\/comments\/\d+">\d+<\/a>/);
    const token = await t.http.get('/api/comments').set(html).auth(await apiToken(t, 'alice'), { type: 'bearer' });
    expect(token.text).toMatch(/&quot;id&quot;: <a href="\/api\/comments\/\d+">\d+<\/a>/);
    // A row's own page and the JSON answer link nothing.
    const row = await t.http.get(`/comments/${ids[0]?.[1]}/`).auth('alice', 'alice-password').set(html);
    expect(row.text).toMatch(/&quot;id&quot;: \d+,/);
    const json = await t.http.get('/comments/').auth('alice', 'alice-password');
    expect(typeof json.body.results[0].id).toBe('number');
  });

  test("a row's breadcrumbs name its list as the list's own page does, in the page's language", async () => {
    for (const language of ['ja', 'en']) {
      const headers = { Accept: 'text/html', 'Accept-Language': language };
      const list = await t.http.get('/comments/').auth('alice', 'alice-password').set(headers);
      const listName = /<span aria-current="page">([^<]+)<\/span>/.exec(list.text)?.[1];
      expect(listName).toBeTruthy();
      const row = await t.http.get('/comments/1/').auth('alice', 'alice-password').set(headers);
      expect(row.text).toContain(`<a href="/comments/">${listName}</a>`);
      expect(row.text).not.toContain('<a href="/comments/">comments</a>');
    }
  });

  test('every page names its icon, and the icon is served where browsers also look for it (/favicon.ico)', async () => {
    const page = await t.http.get('/comments/').auth('alice', 'alice-password').set(html);
    expect(page.text).toContain('<link rel="icon" type="image/svg+xml" href="/static/favicon.svg">');
    for (const path of ['/static/favicon.svg', '/favicon.ico']) {
      const icon = await t.http.get(path);
      expect(icon.status).toBe(200);
      expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
      expect(String(icon.body ?? icon.text)).toContain('<svg');
    }
  });

  test("the owner's detail page has an edit form filled with the row, PUT, PATCH and delete", async () => {
    const res = await t.http.get('/comments/1/').auth('alice', 'alice-password').set(html);
    expect(res.text).toContain('value="first"');
    expect(res.text).toContain('data-method="PUT"');
    expect(res.text).toContain('data-method="PATCH"');
    expect(res.text).toContain('data-method="DELETE"');
  });

  test('a refused create shows the form again with what was sent and the messages', async () => {
    const res = await t.http.post('/comments/').auth('alice', 'alice-password').set(html).type('form').send({ title: 'far too long title', body: 'ok' });
    expect(res.status).toBe(400);
    expect(res.text).toContain('value="far too long title"');
    expect(res.text).toContain('<span class="field-error">Title may be at most 10 characters long.</span>');
  });

  test('pages may not be framed by other pages, and a path that does not decode is a 404 page', async () => {
    const res = await t.http.get('/comments/').auth('alice', 'alice-password').set(html);
    expect(res.headers['x-frame-options']).toBe('DENY');
    const odd = await t.http.get('/comments/%ZZ/').auth('alice', 'alice-password').set(html);
    expect(odd.status).toBe(404);
    expect(odd.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  test('someone else sees the row without forms, and a visitor sees none at all', async () => {
    const other = await t.http.get('/comments/1/').auth('bob', 'bob-password').set(html);
    expect(other.status).toBe(200);
    expect(other.text).not.toContain('class="api-form');
    const visitor = await t.http.get('/comments/').set(html);
    expect(visitor.status).toBe(403);
    expect(visitor.text).not.toContain('class="api-form');
  });

  test('user text in the body and in the form is shown as text', async () => {
    const res = await t.http.get('/comments/3/').auth('alice', 'alice-password').set(html);
    expect(res.text).toContain('&lt;i&gt;x&lt;/i&gt;');
    expect(res.text).not.toContain('<i>x</i>');
  });

  test('the token site has the same page for a browser, with its wrapped row in the edit form', async () => {
    const login = await t.http.post('/api/login').send({ email: 'alice@example.com', password: 'alice-password' });
    const res = await t.http.get('/api/comments/2').set('Authorization', `Bearer ${login.body.token}`).set(html);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.text).toContain('&quot;comment&quot;: {');
    expect(res.text).toContain('value="second"');
    const json = await t.http.get('/api/comments/2').set('Authorization', `Bearer ${login.body.token}`);
    expect(json.headers['content-type']).toBe('application/json');
  });

  test("the page's script is served by the app itself; unknown static files are the site's 404", async () => {
    const script = await t.http.get('/static/browsable.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^application\/javascript|^text\/javascript/);
    expect((await t.http.get('/static/nothing.js').set('Accept', 'application/json')).status).toBe(404);
  });
});
