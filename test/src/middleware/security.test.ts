import { createHash } from 'node:crypto';
import { describe, expect, test } from '@jest/globals';
import { useTestApp } from '../../helpers/app.js';

const html = { Accept: 'text/html', 'Accept-Language': 'en' };

/** A CSP header as directive → sources. */
function policy(header: string | undefined): Record<string, string[]> {
  return Object.fromEntries((header ?? '').split(';').map((part) => {
    const [name = '', ...sources] = part.trim().split(/\s+/);
    return [name, sources];
  }));
}

describe('security headers', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  });

  test('the browsable page allows scripts and styles from this origin only, nothing inline, and no framing', async () => {
    const res = await t.http.get('/comments/').auth('alice', 'alice-password').set(html);
    expect(res.status).toBe(200);
    const csp = policy(res.headers['content-security-policy']);
    expect(csp['default-src']).toEqual(["'none'"]);
    expect(csp['script-src']).toEqual(["'self'"]);
    expect(csp['style-src']).toEqual(["'self'"]);
    expect(csp['frame-ancestors']).toEqual(["'none'"]);
    expect(res.headers).toMatchObject({
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'same-origin',
      'strict-transport-security': 'max-age=31536000',
    });
    expect(res.headers).not.toHaveProperty('x-powered-by');
    // What the page loads is there, from /static.
    expect(res.text).not.toMatch(/<style|style="/);
    for (const asset of ['/static/browsable.css', '/static/browsable.js']) {
      expect(res.text).toContain(asset);
      const served = await t.http.get(asset);
      expect(served.status).toBe(200);
      expect(served.headers['cache-control']).toBe('public, max-age=3600');
    }
  });

  test('the login page and the JSON answers carry the same headers', async () => {
    const login = await t.http.get('/api-auth/login/').set(html);
    expect(policy(login.headers['content-security-policy'])['form-action']).toEqual(["'self'"]);
    const json = await t.http.get('/api/comments').set('Accept', 'application/json');
    expect(json.headers['x-content-type-options']).toBe('nosniff');
    expect(json.headers).not.toHaveProperty('x-powered-by');
  });

  test("the admin's pages run their own inline scripts by hash, no other inline code, and load nothing from another origin", async () => {
    const res = await t.http.get('/admin/login').set(html);
    expect(res.status).toBe(200);
    const csp = policy(res.headers['content-security-policy']);
    const inlineScripts = [...res.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map(([, code = '']) => code);
    expect(inlineScripts.length).toBeGreaterThan(0);
    expect(csp['script-src']).toEqual(["'self'", ...inlineScripts.map((code) => `'sha256-${createHash('sha256').update(code).digest('base64')}'`)]);
    expect(csp['script-src-attr']).toEqual(["'none'"]);
    expect(csp['default-src']).toEqual(["'self'"]);
    expect(Object.values(csp).flat().filter((source) => /^https?:|^\*$/.test(source))).toEqual([]);
    expect(res.headers['x-frame-options']).toBe('DENY');
  });
});

describe('TRUST_PROXY', () => {
  const forwarded = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'comments.example.com' };
  const seed = async (app: { createUser(name: string): Promise<unknown>; http: ReturnType<typeof useTestApp>['http'] }) => {
    await app.createUser('alice');
    for (const title of ['one', 'two', 'three']) await app.http.post('/comments/').auth('alice', 'alice-password').send({ title, body: 'b' });
  };

  describe('when the proxy is trusted', () => {
    // The proxy's forwarded host is the one ALLOWED_HOSTS checks; supertest's own is allowed for the setup.
    const t = useTestApp(seed, { TRUST_PROXY: 'true', ALLOWED_HOSTS: '127.0.0.1, comments.example.com' });

    test('absolute links use the forwarded scheme and host', async () => {
      const res = await t.http.get('/comments/').auth('alice', 'alice-password').set(forwarded);
      expect(res.body.next).toBe('https://comments.example.com/comments/?page=2');
    });
  });

  describe('by default', () => {
    const t = useTestApp(seed);

    test('forwarded headers are ignored: anyone could send them', async () => {
      const res = await t.http.get('/comments/').auth('alice', 'alice-password').set(forwarded);
      expect(res.body.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/comments\/\?page=2$/);
    });

    test('a Host header that is no host is a 400 in the site format, not a server error', async () => {
      const res = await t.http.get('/comments/').auth('alice', 'alice-password').set('Host', 'bad host');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Host ヘッダが不正です。' });
    });
  });
});
