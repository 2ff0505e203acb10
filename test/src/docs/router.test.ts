import vm from 'node:vm';
import { describe, expect, test } from '@jest/globals';
import { useTestApp } from '../../helpers/app.js';

/** Every URL the page loads: the sources of its scripts and the targets of its links (styles, icons). */
function loadedUrls(html: string): string[] {
  return [...html.matchAll(/<(?:script|link)\b[^>]*?\s(?:src|href)="([^"]*)"/g)].map(([, url = '']) => url);
}

/** A CSP header as directive → sources. */
function policy(header: string | undefined): Record<string, string[]> {
  return Object.fromEntries((header ?? '').split(';').map((part) => {
    const [name = '', ...sources] = part.trim().split(/\s+/);
    return [name, sources];
  }));
}

const CONTENT_TYPES: Record<string, RegExp> = {
  css: /^text\/css\b/,
  js: /^(text|application)\/javascript\b/,
  png: /^image\/png$/,
};

/** What the page's own script hands to Swagger UI: the options it sets. */
interface SwaggerUiOptions {
  url: string;
  validatorUrl: unknown;
  deepLinking: boolean;
  requestInterceptor(request: { headers?: Record<string, string>; credentials?: string }): { credentials?: string };
  responseInterceptor(response: { url: string; text?: string; body?: unknown }): { url: string; text?: string; body?: unknown };
}

const PAGE_URL = 'http://docs.test/docs';

/** Runs the page's script as the browser does, with a Swagger UI that only keeps what it is given. */
function runInitializer(code: string, dataUrl: string): SwaggerUiOptions {
  const given: SwaggerUiOptions[] = [];
  const SwaggerUIBundle = Object.assign((options: SwaggerUiOptions) => given.push(options), { presets: { apis: {} } });
  const root = { getAttribute: (name: string) => (name === 'data-url' ? dataUrl : null) };
  const document = { baseURI: PAGE_URL, getElementById: (id: string) => (id === 'swagger-ui' ? root : null) };
  vm.runInNewContext(code, { SwaggerUIBundle, URL, document });
  const [options] = given;
  if (!options || given.length !== 1) throw new Error(`Swagger UI was started ${given.length} times`);
  return options;
}

describe('the documentation page', () => {
  const t = useTestApp();

  test('/docs and /docs/ answer an HTML page that loads Swagger UI from this app only', async () => {
    for (const path of ['/docs', '/docs/']) {
      const res = await t.http.get(path).set('Accept', 'text/html');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      const urls = loadedUrls(res.text);
      expect(urls).toEqual(expect.arrayContaining(['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css']));
      for (const url of urls) expect(url).toMatch(/^\/docs\/assets\/[\w.-]+$/);
      // Nothing inline: the policy would refuse it.
      expect(res.text).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle=|\son\w+=/);
    }
  });

  test('the page names /openapi.json, which answers the OpenAPI description', async () => {
    const page = await t.http.get('/docs');
    expect(page.text).toContain('data-url="/openapi.json"');
    const document = await t.http.get('/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toMatch(/^3\.1\./);
  });

  test('every file the page loads answers with its content type, and may be kept for an hour', async () => {
    const urls = loadedUrls((await t.http.get('/docs')).text);
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const url of urls) {
      const res = await t.http.get(url);
      expect([url, res.status]).toEqual([url, 200]);
      const extension = url.slice(url.lastIndexOf('.') + 1);
      expect(res.headers['content-type']).toMatch(CONTENT_TYPES[extension] ?? /^$/);
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(Number(res.headers['content-length'])).toBeGreaterThan(0);
    }
  });

  test("the page loads its narrow-screen styles after Swagger UI's, whose section headings they let wrap", async () => {
    const styles = loadedUrls((await t.http.get('/docs')).text).filter((url) => url.endsWith('.css'));
    expect(styles).toEqual(['/docs/assets/swagger-ui.css', '/docs/assets/index.css', '/docs/assets/docs.css']);
    expect((await t.http.get('/docs/assets/docs.css')).text).toMatch(/@media \(max-width: [^)]+\) \{[^]*\.swagger-ui \.opblock-tag \{ flex-wrap: wrap; \}/);
  });

  test.each([
    '/docs/assets/index.html',
    '/docs/assets/swagger-ui-bundle.js.map',
    '/docs/assets/swagger-ui.js',
    '/docs/assets/package.json',
    '/docs/assets/..%2Fpackage.json',
    '/docs/assets/%2E%2E%2F%2E%2E%2Fpackage.json',
    '/docs/assets/nothing.js',
    '/docs/assets/',
    '/docs/swagger-ui-bundle.js',
    '/docs/assets/SWAGGER-UI.CSS',
  ])('%s, which the page does not load, is not found', async (path) => {
    expect((await t.http.get(path)).status).toBe(404);
  });

  test('HEAD answers the headers of GET without a body, for the page and its files', async () => {
    const page = await t.http.head('/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toBeUndefined();
    const script = await t.http.head('/docs/assets/swagger-ui-bundle.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(CONTENT_TYPES.js ?? /^$/);
    expect(Number(script.headers['content-length'])).toBeGreaterThan(1_000_000);
  });

  test('the page is never reused without asking, since its title follows Accept-Language', async () => {
    const english = await t.http.get('/docs').set('Accept-Language', 'en');
    expect(english.text).toContain('<title lang="en">Comment service</title>');
    const japanese = await t.http.get('/docs').set('Accept-Language', 'ja-JP');
    expect(japanese.text).toContain('<title lang="ja">コメントサービス</title>');
    expect(japanese.headers['vary']).toBe('Accept-Language');
    expect(japanese.headers['cache-control']).toBe('no-cache');
    // Swagger UI's own texts are English, whatever the title.
    expect(japanese.text).toMatch(/^<!DOCTYPE html>\n<html lang="en">/);
  });

  test('the page runs under the policy of the other pages: scripts and styles from this origin only, no framing', async () => {
    const res = await t.http.get('/docs');
    const csp = policy(res.headers['content-security-policy']);
    expect(csp['default-src']).toEqual(["'none'"]);
    expect(csp['script-src']).toEqual(["'self'"]);
    expect(csp['style-src']).toEqual(["'self'"]);
    expect(csp['connect-src']).toEqual(["'self'"]);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  test('other methods on /docs answer 405 with the methods allowed', async () => {
    for (const method of ['post', 'put', 'delete'] as const) {
      const res = await t.http[method]('/docs');
      expect(res.status).toBe(405);
      expect(res.headers['allow']).toBe('GET, HEAD');
    }
  });

  test("the page's script shows the page's document with deep links, asks no validator, and sends typed-in credentials without the browser's cookies", async () => {
    const script = await t.http.get('/docs/assets/swagger-initializer.js');
    const options = runInitializer(script.text, '/openapi.json');
    expect(options.url).toBe('/openapi.json');
    expect(options.validatorUrl).toBeNull();
    expect(options.deepLinking).toBe(true);
    for (const authorization of [{ Authorization: 'Basic YWxpY2U6cHc=' }, { authorization: 'Bearer 1|token' }] as Record<string, string>[]) {
      expect(options.requestInterceptor({ headers: authorization, credentials: 'same-origin' }).credentials).toBe('omit');
    }
    // Without credentials of its own, a request may still use the browser's session.
    expect(options.requestInterceptor({ headers: { Accept: 'application/json' }, credentials: 'same-origin' }).credentials).toBe('same-origin');
    expect(options.requestInterceptor({ headers: { Authorization: '' }, credentials: 'same-origin' }).credentials).toBe('same-origin');
  });

  test("the page's script shows each operation once: the paths' other spellings, there for validators, are left out", async () => {
    const script = await t.http.get('/docs/assets/swagger-initializer.js');
    const options = runInitializer(script.text, '/openapi.json');
    const served = await t.http.get('/openapi.json').set('Accept-Language', 'en');
    const paths = served.body.paths as Record<string, { $ref?: string }>;
    expect(paths['/comments']?.$ref).toBe('#/paths/~1comments~1');
    const shown = options.responseInterceptor({ url: new URL('/openapi.json', PAGE_URL).href, text: served.text });
    const shownPaths = Object.keys(JSON.parse(shown.text ?? '{}').paths);
    expect(shownPaths).toEqual(Object.keys(paths).filter((path) => !paths[path]?.$ref));
    expect(shownPaths).toEqual(expect.arrayContaining(['/comments/', '/comments/{pk}/', '/api/comments', '/api/comments/{pk}']));
    expect(shownPaths).not.toContain('/comments');
    // Any other answer (an API call made from the page) is left as it came.
    const answer = { url: new URL('/comments/', PAGE_URL).href, text: '{"paths": {"/x": {"$ref": "#/paths/~1y"}}}' };
    expect(options.responseInterceptor({ ...answer })).toEqual(answer);
  });
});
