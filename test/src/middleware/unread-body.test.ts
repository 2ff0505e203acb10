import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { useTestApp } from '../../helpers/app.js';
import { exchange } from '../../helpers/raw-http.js';

describe('an answer given before its request body arrived', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  }, { REQUEST_TIMEOUT_SECONDS: '2' });
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = t.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const shortBody = (path: string, host = '127.0.0.1'): Buffer =>
    Buffer.from(`POST ${path} HTTP/1.1\r\nHost: ${host}\r\nAccept: application/json\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nt=x`);

  test.each([
    ['a 401 before the body is read', '/comments/', '127.0.0.1', 401],
    ['a refused host', '/comments/', 'evil.example', 400],
  ])('closes its connection (%s), and no second, unrequested 408 follows it', async (_case, path, host, status) => {
    const started = Date.now();
    const answer = await exchange(port, shortBody(path, host));
    expect(answer.status).toBe(status);
    expect(answer.head).toMatch(/\r\nconnection: close/i);
    expect(answer.body.toString('latin1')).not.toContain('HTTP/1.1 408');
    // Closed with the answer, not when the request timeout gave up on the body.
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  test('a request whose body was read keeps its connection open', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/comments/`, {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from('alice:alice-password').toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'title=x&body=y',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('connection')).toBe('keep-alive');
  });
});
