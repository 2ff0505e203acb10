import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { createTestDatabase } from '../helpers/database.js';
import { connectionRefused } from '../helpers/raw-http.js';
import { basicAuth, createUserWithCli, NPM_START, PRODUCTION_ENV, startServerProcess } from '../helpers/server.js';

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

interface SlowRequest {
  /** Resolves once the server has read the request's headers and half its body has been sent. */
  started: Promise<void>;
  /** Sends the rest of the body; resolves with the complete answer. */
  finish(): Promise<Answer>;
}

/** `POST /comments/` on a connection of its own, its body sent in two parts. */
function slowCreate(url: string, authorization: string): SlowRequest {
  const body = 'title=slow&body=in+flight';
  const half = Math.floor(body.length / 2);
  // Expect: 100-continue: the server's "100 Continue" says it has read the headers.
  const headers = { authorization, 'content-type': 'application/x-www-form-urlencoded', 'content-length': body.length, expect: '100-continue' };
  const req = http.request(new URL('comments/', url), { method: 'POST', agent: false, headers });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text }));
      res.on('error', reject);
    });
  });
  const started = new Promise<void>((resolve) =>
    req.once('continue', () => {
      req.write(body.slice(0, half));
      resolve();
    }),
  );
  req.flushHeaders();
  return { started, finish: () => (req.end(body.slice(half)), answer) };
}

/** Resolves once a new connection to `url` is refused. */
async function connectionsRefused(url: string): Promise<void> {
  const { hostname, port } = new URL(url);
  while (!(await connectionRefused(Number(port), hostname))) await new Promise((resolve) => setTimeout(resolve, 20));
}

/**
 * Opens `count` connections at once, each writing a request as soon as it is
 * connected; resolves when all are connected (the kernel has completed them,
 * whether or not the server has accepted them yet) with the status line each
 * gets, or the error that ends it.
 */
async function burst(url: string, count: number): Promise<Promise<string>[]> {
  const { hostname, port } = new URL(url);
  const connected: Promise<void>[] = [];
  const answers: Promise<string>[] = [];
  for (let i = 0; i < count; i += 1) {
    const socket = net.connect(Number(port), hostname);
    connected.push(once(socket, 'connect').then(() => void socket.write(`GET /comments/ HTTP/1.1\r\nHost: ${hostname}\r\nAccept: application/json\r\n\r\n`)));
    answers.push(
      new Promise((resolve) => {
        let head = '';
        socket.setEncoding('latin1');
        socket.on('data', (chunk: string) => (head += chunk));
        socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
        socket.on('close', () => resolve(head.split('\r\n', 1)[0] ?? ''));
      }),
    );
  }
  await Promise.all(connected);
  return answers;
}

describe.each([
  ['one process', '1'],
  ['two workers', '2'],
])('SIGTERM to a server of %s', (_name, workers) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-shutdown-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('lets a request in flight finish with its complete answer, says it is not ready, refuses new connections, and exits with status 0', async () => {
    const database = await createTestDatabase(`sqlite:${path.join(dir, 'db.sqlite3')}`);
    try {
      const env = { ...PRODUCTION_ENV, DATABASE_URL: database.url, WEB_CONCURRENCY: workers };
      await createUserWithCli(env, 'alice', 'alice-pw');
      const server = await startServerProcess(env);
      await server.waitForLog(() => server.servingPids().length === Number(workers));
      const slow = slowCreate(server.url, basicAuth('alice', 'alice-pw'));
      await slow.started;
      const { hostname, port } = new URL(server.url);
      const prober = net.connect(Number(port), hostname);
      await once(prober, 'connect');

      server.child.kill('SIGTERM');
      await connectionsRefused(server.url);
      // A load balancer's readiness probe, on a connection opened before the signal, once every worker has it.
      prober.write(`GET /readyz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
      const probe = (async () => {
        let text = '';
        for await (const chunk of prober) text += String(chunk);
        return text;
      })();
      const answer = await slow.finish();

      expect(await probe).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n[\s\S]*\{"status":"unavailable"\}$/);
      expect(answer.status).toBe(201);
      expect(JSON.parse(answer.body)).toMatchObject({ title: 'slow', body: 'in flight' });
      // Told so, a keep-alive client sends its next request on a new connection, not on this closing one.
      expect(answer.connection).toBe('close');
      expect(await server.exited).toBe(0);
    } finally {
      await database.drop();
    }
  }, 30_000);

  test('answers every connection completed before it, a burst the server had not yet accepted too', async () => {
    const database = await createTestDatabase(`sqlite:${path.join(dir, 'burst.sqlite3')}`);
    try {
      const server = await startServerProcess({ ...PRODUCTION_ENV, DATABASE_URL: database.url, WEB_CONCURRENCY: workers });
      await server.waitForLog(() => server.servingPids().length === Number(workers));
      const answers = await burst(server.url, 60);

      server.child.kill('SIGTERM');

      // 401: no credentials; what matters is that each was answered, none reset.
      expect(new Set(await Promise.all(answers))).toEqual(new Set(['HTTP/1.1 401 Unauthorized']));
      expect(await server.exited).toBe(0);
    } finally {
      await database.drop();
    }
  }, 30_000);
});

describe('SIGTERM to npm start, as a container runtime or a process manager sends it', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-npm-start-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('reaches the server, which stops as it does alone: no process of it is left', async () => {
    const database = await createTestDatabase(`sqlite:${path.join(dir, 'npm.sqlite3')}`);
    let group = 0;
    try {
      const server = await startServerProcess({ ...PRODUCTION_ENV, DATABASE_URL: database.url, WEB_CONCURRENCY: '2' }, NPM_START);
      group = server.pid;
      await server.waitForLog(() => server.servingPids().length === 2);

      process.kill(server.pid, 'SIGTERM');

      let timer: NodeJS.Timeout | undefined;
      const givenUp = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, 20_000, false)));
      const stopped = await Promise.race([connectionsRefused(server.url).then(() => true), givenUp]);
      clearTimeout(timer);
      expect(stopped).toBe(true);
      expect(await server.exited).toBe(0);
      // npm, the shell it ran the script in, the primary and its workers: the whole group is gone.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(() => process.kill(-group, 0)).toThrow(expect.objectContaining({ code: 'ESRCH' }));
    } finally {
      if (group > 0) {
        try {
          process.kill(-group, 'SIGKILL');
        } catch {
          // Gone, as it should be.
        }
      }
      await database.drop();
    }
  }, 60_000);
});
