import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, test } from '@jest/globals';
import { gracefulClose, type CloseTimings } from '../../src/shutdown.js';
import { connectionRefused } from '../helpers/raw-http.js';

const FAST: CloseTimings = { drainQuietMs: 20, drainMaxMs: 400, requestGraceMs: 5_000 };
const REQUEST = 'GET / HTTP/1.1\r\nHost: localhost\r\n\r\n';

interface Served {
  server: http.Server;
  port: number;
  close(): Promise<void>;
}

const opened: Served[] = [];

afterEach(() => {
  for (const { server } of opened.splice(0)) server.closeAllConnections();
});

/** A server whose handler is `handle` (by default: answers "ok"), made closable by gracefulClose. */
async function serve(timings: CloseTimings, handle = (_req: IncomingMessage, res: ServerResponse): void => void res.end('ok')): Promise<Served> {
  const server = http.createServer(handle);
  const close = gracefulClose(server, timings);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const served = { server, port: (server.address() as AddressInfo).port, close };
  opened.push(served);
  return served;
}

/** A client connection, and the server's side of it once the server has accepted it. */
async function acceptedConnection(served: Served): Promise<Socket> {
  const accepted = once(served.server, 'connection');
  const socket = net.connect(served.port, '127.0.0.1');
  socket.on('error', () => undefined);
  await accepted;
  return socket;
}

/** Everything the server sends on `socket` until it closes the connection. */
function untilClosed(socket: Socket): Promise<string> {
  let text = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (text += chunk));
  return new Promise((resolve) => socket.once('close', () => resolve(text)));
}

describe('closing a server gracefully', () => {
  test('answers a connection accepted before the stop whose request is read only after it, and says Connection: close', async () => {
    const served = await serve(FAST);
    const socket = await acceptedConnection(served);
    const closed = served.close();
    const answer = untilClosed(socket);
    socket.write(REQUEST);

    expect(await answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*\r\n\r\nok$/);
    await closed;
  });

  test('answers connections that arrive while it drains, then refuses new ones once they stop arriving', async () => {
    const served = await serve(FAST);
    const closed = served.close();
    const socket = net.connect(served.port, '127.0.0.1', () => socket.write(REQUEST));
    const answer = await untilClosed(socket);

    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n/);
    await closed;
    expect(await connectionRefused(served.port)).toBe(true);
  });

  test('stops accepting after the longest drain even while connections keep arriving', async () => {
    const served = await serve({ ...FAST, drainMaxMs: 150 });
    let arriving = true;
    const keepArriving = async (): Promise<void> => {
      while (arriving) {
        const socket = net.connect(served.port, '127.0.0.1', () => socket.end(REQUEST));
        socket.on('error', () => undefined);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    const arrivals = keepArriving();
    await served.close();
    arriving = false;
    await arrivals;

    expect(await connectionRefused(served.port)).toBe(true);
  });

  test('closes at once a keep-alive connection that is idle between requests', async () => {
    // A drain long enough to tell "at once" from "when the server closes".
    const served = await serve({ ...FAST, drainQuietMs: 1_000, drainMaxMs: 1_000 });
    const socket = await acceptedConnection(served);
    const answer = untilClosed(socket);
    socket.write(REQUEST);
    await once(socket, 'data');
    const closed = served.close();
    const first = await Promise.race([answer, closed.then(() => 'the server closed first')]);

    expect(first).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: keep-alive\r\n/);
    await closed;
  });

  test('lets a request in flight finish, its answer saying Connection: close', async () => {
    let release = (): void => undefined;
    const served = await serve(FAST, (_req, res) => {
      release = () => res.end('late');
    });
    const started = once(served.server, 'request');
    const socket = net.connect(served.port, '127.0.0.1', () => socket.write(REQUEST));
    const answer = untilClosed(socket);
    await started;
    const closed = served.close();
    release();

    expect(await answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*late$/);
    await closed;
  });

  test.each([
    ['no request', ''],
    ['half a request', 'GET / HTTP/1.1\r\nHo'],
  ])('cuts a connection that sends %s and no more within the grace, and then completes', async (_case, sent) => {
    const served = await serve({ ...FAST, requestGraceMs: 50 });
    const socket = await acceptedConnection(served);
    const answer = untilClosed(socket);
    socket.write(sent);
    await served.close();

    expect(await answer).toBe('');
  });

  test("answers a keep-alive connection's next request that was still arriving when the stop began", async () => {
    const served = await serve(FAST);
    const socket = await acceptedConnection(served);
    const answer = untilClosed(socket);
    socket.write(REQUEST);
    await once(socket, 'data');
    socket.write('GET /second HTTP/1.1\r\nHo');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const closed = served.close();
    socket.write('st: localhost\r\n\r\n');

    const answers = (await answer).split(/(?=HTTP\/1\.1 )/);
    expect(answers).toHaveLength(2);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n/);
    await closed;
  });

  test('answers the request in flight of a pipeline with Connection: close and then closes, leaving those behind it to be sent again', async () => {
    // RFC 9112 §9.3.2: a client that pipelines retries what a closed connection left unanswered.
    const waiting: (() => void)[] = [];
    const served = await serve(FAST, (req, res) => void waiting.push(() => res.end(req.url)));
    const socket = await acceptedConnection(served);
    const answer = untilClosed(socket);
    const first = once(served.server, 'request');
    socket.write(['/1', '/2', '/3'].map((path) => `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`).join(''));
    await first;
    const closed = served.close();
    waiting.shift()?.();

    expect(await answer).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*Connection: close\r\n[\s\S]*\r\n\r\n\/1$/);
    await closed;
  });
});
