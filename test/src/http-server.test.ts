import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, test } from '@jest/globals';
import express from 'express';
import { listen, whenQuiet } from '../../src/http-server.js';
import { exchange } from '../helpers/raw-http.js';

function closed(server: { close(callback: () => void): void }): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

describe('the HTTP server', () => {
  test("makes each request and answer with the application's own prototypes, so Express changes none as they arrive", async () => {
    const app = express();
    app.get('/items/:id', (req, res) => void res.json({ id: req.params.id, page: req.query.page, sameApp: req.app === app, host: req.hostname }));
    const server = await listen(app, 0, '127.0.0.1', 30);
    const made: boolean[] = [];
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
      made.push(Object.getPrototypeOf(req) === app.request && Object.getPrototypeOf(res) === app.response);
    });
    try {
      const { port } = server.address() as AddressInfo;
      for (const id of ['1', '2']) {
        const answer = await fetch(`http://127.0.0.1:${port}/items/${id}?page=3`);
        expect(answer.status).toBe(200);
        expect(await answer.json()).toEqual({ id, page: '3', sameApp: true, host: '127.0.0.1' });
      }
      expect(made).toEqual([true, true]);
    } finally {
      await closed(server);
    }
  });

  test('a client that stops sending its body is answered 408 and its connection closed once the request timeout is over', async () => {
    const app = express();
    app.post('/items', express.json(), (req, res) => void res.json(req.body));
    const server = await listen(app, 0, '127.0.0.1', 1);
    try {
      const stalled = Buffer.from('POST /items HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
      expect((await exchange((server.address() as AddressInfo).port, stalled)).head).toMatch(/^HTTP\/1\.1 408 /);
    } finally {
      await closed(server);
    }
  });

  test('refuses with the listening error when the port is taken', async () => {
    const first = await listen(express(), 0, '127.0.0.1', 30);
    try {
      const { port } = first.address() as AddressInfo;
      await expect(listen(express(), port, '127.0.0.1', 30)).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await closed(first);
    }
  });

  test('is quiet once no request has come for the quiet time, and at the latest time however many come', async () => {
    // Requests as the server sees them, one every 10 ms at will: no network between the test and what it counts.
    const server = createServer();
    const idle = performance.now();
    await whenQuiet(server, 50, 5_000);
    expect(performance.now() - idle).toBeLessThan(1_000);
    const busy = performance.now();
    const arriving = setInterval(() => server.emit('request'), 10);
    try {
      await whenQuiet(server, 50, 600);
    } finally {
      clearInterval(arriving);
    }
    expect(performance.now() - busy).toBeGreaterThanOrEqual(600);
    expect(server.listenerCount('request')).toBe(0);
  });
});
