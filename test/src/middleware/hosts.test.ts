import type { AddressInfo } from 'node:net';
import { describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { ConfigError, loadConfig } from '../../../src/config.js';
import { hostName, isAllowedHost } from '../../../src/middleware/hosts.js';
import { listen } from '../../../src/http-server.js';
import { apiToken, credentials, useTestApp, type TestApp } from '../../helpers/app.js';
import { exchange } from '../../helpers/raw-http.js';

const alice = credentials('alice');

/** Alice and three comments, written through a host the app answers to. */
const seed =
  (host = '127.0.0.1') =>
  async (t: TestApp): Promise<void> => {
    await t.createUser('alice', { email: 'alice@example.com' });
    for (const title of ['one', 'two', 'three']) await t.http.post('/comments/').auth(...alice).set('Host', host).send({ title, body: 'b' });
  };

/**
 * Requests refused for their host go around the recording client: the refusal
 * comes before any operation, so the API description does not list it under
 * each one (as Django REST Framework's schemas do not list DisallowedHost).
 */
const unrecorded = (t: TestApp) => request(t.app);

const sessionRows = (t: TestApp): Promise<number> => {
  const model = t.services.sequelize.models.Session;
  if (!model) throw new Error('no session model');
  return model.count();
};

describe('ALLOWED_HOSTS by default: the loopback names and HOST', () => {
  const t = useTestApp(seed());

  test('a request naming another host is 400 on the root site, as {"detail": …}, with no link, cookie or session', async () => {
    const before = await sessionRows(t);
    const res = await unrecorded(t).get('/comments/').auth(...alice).set('Host', 'evil.example.com');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Host ヘッダが不正です。' });
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['content-security-policy']).toBeDefined();
    expect(await sessionRows(t)).toBe(before);
  });

  test('in English when the client asks for it', async () => {
    const res = await unrecorded(t).get('/comments/').set('Host', 'evil.example.com').set('Accept-Language', 'en');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Invalid Host header.' });
  });

  test('on the token site it is 400 as {"message": …}', async () => {
    const res = await unrecorded(t).get('/api/comments').set('Host', 'evil.example.com:8000').set('Accept', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'The Host header is not valid.' });
  });

  test('a browser on the token site gets the error page with the same message', async () => {
    const res = await unrecorded(t).get('/api/comments').set('Host', 'evil.example.com').set('Accept', 'text/html');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('The Host header is not valid.');
  });

  test('the login form and the CSRF cookie open no session for another host', async () => {
    const before = await sessionRows(t);
    const form = await unrecorded(t).get('/api-auth/login/').set('Host', 'evil.example.com');
    expect(form.status).toBe(400);
    expect(form.body).toEqual({ detail: 'Host ヘッダが不正です。' });
    const cookie = await unrecorded(t).get('/api/sanctum/csrf-cookie').set('Host', 'evil.example.com').set('Accept', 'application/json');
    expect(cookie.status).toBe(400);
    expect(cookie.body).toEqual({ message: 'The Host header is not valid.' });
    const sanctum = await unrecorded(t).get('/sanctum/csrf-cookie').set('Host', 'evil.example.com').set('Accept', 'application/json');
    expect(sanctum.status).toBe(400);
    expect(sanctum.body).toEqual({ message: 'The Host header is not valid.' });
    for (const res of [form, cookie, sanctum]) expect(res.headers['set-cookie']).toBeUndefined();
    expect(await sessionRows(t)).toBe(before);
  });

  test('a write to another host stores nothing', async () => {
    const res = await unrecorded(t).post('/comments/').auth(...alice).set('Host', 'evil.example.com').send({ title: 'four', body: 'b' });
    expect(res.status).toBe(400);
    const list = await t.http.get('/comments/').auth(...alice);
    expect(list.body.count).toBe(3);
  });

  test('the admin, the API description and unknown paths refuse another host too', async () => {
    for (const path of ['/admin/login', '/openapi.json', '/docs', '/no-such-path/']) {
      const res = await unrecorded(t).get(path).set('Host', 'evil.example.com');
      expect([path, res.status, res.body]).toEqual([path, 400, { detail: 'Host ヘッダが不正です。' }]);
    }
  });

  test.each(['127.0.0.1', '127.0.0.1:8000', 'localhost', 'localhost:3000', 'app.localhost', 'LOCALHOST.', '[::1]', '[::1]:8000'])(
    'the loopback name %s is allowed, with any port',
    async (host) => {
      const res = await t.http.get('/comments/?page=2').auth(...alice).set('Host', host);
      expect(res.status).toBe(200);
    },
  );

  test('an allowed host is the one absolute links name', async () => {
    const res = await t.http.get('/comments/').auth(...alice).set('Host', 'localhost:8000');
    expect(res.body.next).toBe('http://localhost:8000/comments/?page=2');
  });

  /** A request written as its bytes, for a request-target no HTTP client writes (`GET http://host/path`). */
  async function rawRequest(target: string, host: string, authorization = `Basic ${Buffer.from(alice.join(':')).toString('base64')}`): Promise<{ status: number | null; head: string; body: string }> {
    const server = await listen(t.app, 0, '127.0.0.1', 30);
    try {
      const bytes = `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${authorization}\r\nAccept: application/json\r\nConnection: close\r\n\r\n`;
      const { status, head, body } = await exchange((server.address() as AddressInfo).port, Buffer.from(bytes));
      return { status, head, body: body.toString('utf8') };
    } finally {
      server.close();
    }
  }

  test('a URL written whole names its own host, as RFC 9112 says: another host there is 400 whatever the Host header', async () => {
    const res = await rawRequest('http://evil.example.com/comments/?page_size=1', '127.0.0.1');
    expect(res.status).toBe(400);
    expect(res.body).not.toContain('evil.example.com');
    expect(JSON.parse(res.body)).toEqual({ detail: 'Host ヘッダが不正です。' });
  });

  test('a path that begins with // names no host: it is the path it is, and its links stay on this host', async () => {
    // Express's router takes `//` for the root.
    const root = await rawRequest('//', 'localhost:8000');
    expect(root.status).toBe(200);
    expect(JSON.parse(root.body).comments).toBe('http://localhost:8000/comments/');
  });

  test('a URL written whole with an allowed host is answered, its links naming that host and its path', async () => {
    const res = await rawRequest('http://localhost:8000/comments/?page_size=1', 'evil.example.com');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).next).toBe('http://localhost:8000/comments/?page=2&page_size=1');
  });

  test('a URL written whole reaches the site mounted under its path as its path alone would: the token site, the admin', async () => {
    const token = await apiToken(t, 'alice');
    const [first] = (await t.http.get('/api/comments').auth(token, { type: 'bearer' })).body.comments as { id: number }[];
    const one = await rawRequest(`http://localhost:8000/api/comments/${first?.id}`, 'localhost', `Bearer ${token}`);
    expect(one.status).toBe(200);
    expect(JSON.parse(one.body).comment).toMatchObject({ id: first?.id, title: 'one' });
    expect((await rawRequest(`http://localhost:8000/api/comments/${first?.id}`, 'localhost', 'Bearer 1|nope')).status).toBe(401);
    const admin = await rawRequest('http://localhost:8000/admin/login', 'localhost', '');
    expect(admin.status).toBe(200);
  });

  test('a URL written whole with credentials in it is 400, and the credentials are in no answer', async () => {
    const res = await rawRequest('http://alice:secret-pw@localhost:8000/comments/', 'localhost');
    expect(res.status).toBe(400);
    expect(`${res.head}${res.body}`).not.toContain('secret-pw');
  });

  test.each(['bad host', 'a_b.localhost', 'localhost:port', '[::1', 'évil', 'localhost/x', 'user@localhost'])(
    'a Host that is no host (%s) is 400, not a server error',
    async (host) => {
      const res = await unrecorded(t).get('/comments/').auth(...alice).set('Host', host);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: 'Host ヘッダが不正です。' });
    },
  );

  test('the health checks answer whatever host a load balancer names', async () => {
    for (const path of ['/healthz', '/readyz', '/healthz/']) {
      const res = await t.http.get(path).set('Host', '10.0.0.5:8000');
      expect([path, res.status, res.body]).toEqual([path, 200, { status: 'ok' }]);
    }
  });

  test('X-Forwarded-Host is not believed without TRUST_PROXY, so it is not checked', async () => {
    const res = await t.http.get('/comments/').auth(...alice).set('X-Forwarded-Host', 'evil.example.com');
    expect(res.status).toBe(200);
    expect(res.body.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
  });
});

describe('ALLOWED_HOSTS with names and subdomain patterns', () => {
  const t = useTestApp(seed('example.com'), { ALLOWED_HOSTS: '.example.com, api.example.test' });

  test.each(['example.com', 'www.example.com', 'a.b.example.com:443', 'api.example.test', 'API.Example.Test:8080'])('%s is allowed', async (host) => {
    const res = await t.http.get('/comments/').auth(...alice).set('Host', host);
    expect(res.status).toBe(200);
    expect(res.body.next).toMatch(new RegExp(`^http://${host.toLowerCase().replace(/\./g, '\\.')}/comments/\\?page=2$`));
  });

  test.each(['notexample.com', 'example.com.evil.test', 'www.api.example.test', 'localhost', '127.0.0.1'])(
    '%s is refused: a list replaces the default names',
    async (host) => {
      const paginated = await unrecorded(t).get('/comments/').auth(...alice).set('Host', host);
      expect(paginated.status).toBe(400);
      expect(paginated.body).toEqual({ detail: 'Host ヘッダが不正です。' });
      const token = await unrecorded(t).get('/api/comments').set('Host', host).set('Accept', 'application/json');
      expect(token.status).toBe(400);
      expect(token.body).toEqual({ message: 'The Host header is not valid.' });
    },
  );
});

describe('ALLOWED_HOSTS=*', () => {
  const t = useTestApp(seed(), { ALLOWED_HOSTS: '*' });

  test('any well-formed host is allowed and named in links', async () => {
    const res = await t.http.get('/comments/').auth(...alice).set('Host', 'anything.example.org:8443');
    expect(res.status).toBe(200);
    expect(res.body.next).toBe('http://anything.example.org:8443/comments/?page=2');
  });

  test('a Host that is no host is still 400', async () => {
    const res = await unrecorded(t).get('/api/comments').set('Host', 'bad host').set('Accept', 'application/json');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ message: 'The Host header is not valid.' });
  });
});

describe('ALLOWED_HOSTS behind a trusted proxy', () => {
  const t = useTestApp(seed('comments.example.com'), { TRUST_PROXY: 'true', ALLOWED_HOSTS: 'comments.example.com' });

  test('the forwarded host is the one checked and named in links', async () => {
    const res = await t.http.get('/comments/').auth(...alice).set('X-Forwarded-Host', 'comments.example.com').set('X-Forwarded-Proto', 'https');
    expect(res.status).toBe(200);
    expect(res.body.next).toBe('https://comments.example.com/comments/?page=2');
  });

  test('another forwarded host is 400 even when the Host header is allowed', async () => {
    const res = await unrecorded(t).get('/comments/').auth(...alice).set('Host', 'comments.example.com').set('X-Forwarded-Host', 'evil.example.com');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: 'Host ヘッダが不正です。' });
  });
});

describe('the HOST the server listens on', () => {
  const t = useTestApp(seed(), { HOST: '10.1.2.3' });

  test('is allowed besides the loopback names', async () => {
    for (const host of ['10.1.2.3:8000', 'localhost']) {
      const res = await t.http.get('/comments/').auth(...alice).set('Host', host);
      expect([host, res.status]).toEqual([host, 200]);
    }
    const other = await unrecorded(t).get('/comments/').auth(...alice).set('Host', '10.1.2.4');
    expect(other.status).toBe(400);
  });
});

describe('reading ALLOWED_HOSTS', () => {
  test('the default is the loopback names and HOST, an IPv6 address in brackets', () => {
    expect(loadConfig({}).allowedHosts).toEqual(['.localhost', '127.0.0.1', '[::1]']);
    expect(loadConfig({ HOST: '0.0.0.0' }).allowedHosts).toEqual(['.localhost', '127.0.0.1', '[::1]', '0.0.0.0']);
    expect(loadConfig({ HOST: '::1' }).allowedHosts).toEqual(['.localhost', '127.0.0.1', '[::1]']);
    expect(loadConfig({ HOST: 'fe80::1' }).allowedHosts).toEqual(['.localhost', '127.0.0.1', '[::1]', '[fe80::1]']);
  });

  test('a list is read in lower case, without blanks, a bare IPv6 address put in brackets', () => {
    expect(loadConfig({ ALLOWED_HOSTS: ' Example.COM , .api.example.com,,::1, * ' }).allowedHosts).toEqual(['example.com', '.api.example.com', '[::1]', '*']);
  });

  test.each(['http://example.com', 'example.com:8000', 'example.com/', 'exa mple.com', ',', 'a_b.example.com'])(
    'ALLOWED_HOSTS=%s is refused with the variable named',
    (value) => {
      expect(() => loadConfig({ ALLOWED_HOSTS: value })).toThrow(ConfigError);
      try {
        loadConfig({ ALLOWED_HOSTS: value });
      } catch (error) {
        expect((error as ConfigError).variable).toBe('ALLOWED_HOSTS');
      }
    },
  );

  test('a Host is matched as Django matches it: port aside, a leading dot for subdomains', () => {
    expect(hostName('WWW.Example.com.:8080')).toBe('www.example.com');
    expect(hostName('[::1]:80')).toBe('[::1]');
    expect(hostName('example.com:')).toBeUndefined();
    expect(isAllowedHost('example.com', ['.example.com'])).toBe(true);
    expect(isAllowedHost('evil-example.com', ['.example.com'])).toBe(false);
    expect(isAllowedHost('a.example.com', ['example.com'])).toBe(false);
  });
});
