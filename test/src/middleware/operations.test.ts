import { once } from 'node:events';
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, test } from '@jest/globals';
import express from 'express';
import request from 'supertest';
import { createApp } from '../../../src/app.js';
import { createLogger, readableMessage } from '../../../src/logger.js';
import { requestLog } from '../../../src/middleware/request-log.js';
import { createServices } from '../../../src/services.js';
import { testConfig, useTestApp } from '../../helpers/app.js';

/** Every line the logger writes, parsed. */
function captureLogs(): { lines: Record<string, unknown>[]; raw: () => string; stream: Writable } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  return {
    stream,
    raw: () => chunks.join(''),
    get lines() {
      return chunks.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
    },
  };
}

describe('health checks', () => {
  const t = useTestApp();

  test('/healthz and /readyz answer 200 without credentials and are never cached', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const res = await t.http.get(path);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  test('/readyz answers 503 once the database is gone, /healthz still 200', async () => {
    const logs = captureLogs();
    const services = await createServices(testConfig(), { logger: createLogger('info', logs.stream) });
    const http = request(createApp(services));
    await services.close();
    const ready = await http.get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'unavailable' });
    expect((await http.get('/healthz')).status).toBe(200);
    expect(logs.lines.some((line) => line.msg === 'readiness check failed: the database does not answer')).toBe(true);
  });
});

describe('request logs', () => {
  test('each request is one JSON line with its id, which the answer echoes; credentials and passwords are redacted', async () => {
    const logs = captureLogs();
    const services = await createServices(testConfig(), { logger: createLogger('info', logs.stream) });
    try {
      await services.accounts.create({ username: 'alice', email: 'alice@example.com', password: 'alice-secret-pw' });
      const http = request(createApp(services));
      const listed = await http
        .get('/comments/')
        .set('Authorization', `Basic ${Buffer.from('alice:alice-secret-pw').toString('base64')}`)
        .set('Cookie', 'sessionid=cookie-secret-value')
        .set('X-CSRFToken', 'csrf-secret-value')
        .set('X-CSRF-TOKEN', 'laravel-csrf-secret-value')
        .set('X-Request-Id', 'lb-1234');
      expect(listed.headers['x-request-id']).toBe('lb-1234');
      const login = await http.post('/api/login').set('Accept', 'application/json').send({ email: 'alice@example.com', password: 'alice-secret-pw' });
      expect(login.status).toBe(201);
      expect(login.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      // A client that puts credentials in the query: the URL is logged without their values.
      await http.post('/api/login?email=alice%40example.com&password=alice-secret-pw&api_key=key-secret-value&page=2').set('Accept', 'application/json');
      const garbled = await http.get('/healthz').set('X-Request-Id', 'a b {"forged": true}');
      expect(garbled.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);

      const line = logs.lines.find((entry) => (entry.req as { id?: string } | undefined)?.id === 'lb-1234');
      expect(line).toMatchObject({ level: 30, req: { method: 'GET', url: '/comments/' }, res: { statusCode: 200 } });
      expect(line).toMatchObject({ req: { headers: { authorization: '[redacted]', cookie: '[redacted]', 'x-csrftoken': '[redacted]', 'x-csrf-token': '[redacted]' } } });
      expect(line?.clientAddress).toMatch(/127\.0\.0\.1/);
      const queried = logs.lines.find((entry) => (entry.req as { url?: string } | undefined)?.url?.startsWith('/api/login?'));
      expect((queried?.req as { url?: string } | undefined)?.url).toBe('/api/login?email=alice%40example.com&password=[redacted]&api_key=[redacted]&page=2');
      const everything = logs.raw();
      for (const secret of ['key-secret-value', 'alice-secret-pw', 'cookie-secret-value', 'csrf-secret-value', 'laravel-csrf-secret-value', Buffer.from('alice:alice-secret-pw').toString('base64'), login.body.token]) {
        expect(everything).not.toContain(secret);
      }
      // Health probes do not flood the log.
      expect(logs.lines.some((entry) => (entry.req as { url?: string } | undefined)?.url === '/healthz')).toBe(false);
    } finally {
      await services.close();
    }
  });
  test('a request its client gave up on before any answer is logged as aborted, with no status', async () => {
    const logs = captureLogs();
    const app = express();
    app.use(requestLog(createLogger('info', logs.stream)));
    let reached: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => (reached = resolve));
    app.get('/slow', () => reached());
    const server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      socket.write('GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: gave-up\r\n\r\n');
      await arrived;
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 100));
      const line = logs.lines.find((entry) => (entry.req as { id?: string } | undefined)?.id === 'gave-up');
      expect(line).toMatchObject({ msg: 'request aborted', res: { statusCode: null } });
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test('a spoofed method is logged beside the method the request came with', async () => {
    const logs = captureLogs();
    const services = await createServices(testConfig(), { logger: createLogger('info', logs.stream) });
    try {
      const http = request(createApp(services));
      await http.post('/api/comments/1').set('Accept', 'application/json').set('X-Request-Id', 'spoofed-1').type('form').send({ _method: 'DELETE' });
      const line = logs.lines.find((entry) => (entry.req as { id?: string } | undefined)?.id === 'spoofed-1');
      expect(line).toMatchObject({ req: { method: 'POST', methodOverride: 'DELETE', url: '/api/comments/1' }, res: { statusCode: 401 } });
      expect(readableMessage(line ?? {}, 'msg')).toMatch(/^POST \(DELETE\) \/api\/comments\/1 401 \d+ ms$/);
    } finally {
      await services.close();
    }
  });

  test("what a handler logs carries its request's id, method and URL, one request's never another's", async () => {
    const logs = captureLogs();
    const services = await createServices(testConfig(), { logger: createLogger('info', logs.stream) });
    try {
      await services.accounts.create({ username: 'alice', email: 'alice@example.com', password: 'alice-secret-pw' });
      const http = request(createApp(services));
      for (const id of ['first-1', 'second-2']) {
        const refused = await http.get('/comments/').set('Authorization', `Basic ${Buffer.from('alice:wrong-password').toString('base64')}`).set('X-Request-Id', id);
        expect(refused.status).toBe(401);
      }
      const failures = logs.lines.filter((entry) => entry.msg === 'login failed');
      expect(failures.map((entry) => entry.req)).toEqual([
        { id: 'first-1', method: 'GET', url: '/comments/' },
        { id: 'second-2', method: 'GET', url: '/comments/' },
      ]);
    } finally {
      await services.close();
    }
  });
});
