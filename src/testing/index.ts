/**
 * Test utilities for applications built on the framework, as Django REST
 * Framework's APIClient (`force_authenticate`) and Laravel's HTTP tests
 * (`actingAs`): an application built on a throwaway database, and requests
 * sent as a given user or with a given token.
 *
 *   const client = await createTestClient({ app: 'examples/blog' });
 *   const alice = await client.createUser('alice');
 *   await client.actingAs(alice).get('/').expect(200);
 *   await client.close();
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { createApp, type App } from '../app.js';
import { FORCED_AUTHENTICATION } from '../authentication.js';
import { loadConfig } from '../config.js';
import type { Authenticated } from '../contracts.js';
import { applicationAt } from '../paths.js';
import { createServices, type Services } from '../services.js';
import { contractProblems, recordingHandler, type RecordedResponse } from './contract.js';
import { createTestDatabase } from './database.js';
import type { AuthUser } from '../types/auth.js';
import type { ResourceDeclaration } from '../types/resource.js';

export { createTestDatabase, onPostgres } from './database.js';

export interface TestClientOptions {
  /** The application's folder, absolute or relative to the working directory (default: the working directory, as `npm test` runs in it). */
  app?: string;
  /** Settings over the test defaults (NODE_ENV=test, fast password hashes, a throwaway database). */
  env?: Record<string, string>;
  /** Other declarations than the application's. */
  declarations?: readonly ResourceDeclaration[];
  /** Other migration folders than the application's. */
  migrationDirs?: readonly string[];
}

export interface TestUser {
  /** Default: `<username>-password`. */
  password?: string;
  /** Default: `<username>@example.com`. */
  email?: string;
  name?: string;
  staff?: boolean;
  superuser?: boolean;
}

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete' | 'options' | 'head';
/** Requests made one way (anonymous, as a user, with a token): supertest's, ready to `.send()` and `.expect()`. */
export type Requests = { [M in Method]: (path: string) => request.Test };

export interface TestClient {
  app: App;
  services: Services;
  /** Requests with no credentials. */
  anonymous: Requests;
  createUser(username: string, spec?: TestUser): Promise<AuthUser>;
  /** Requests authenticated as `user` on every site, with no password, token or CSRF check (DRF's force_authenticate). */
  actingAs(user: AuthUser): Requests;
  /** Requests carrying `Authorization: Bearer <token>`, authenticated as the API would. */
  withToken(token: string): Requests;
  /** A real API token of `user` (Sanctum's createToken), for withToken. */
  tokenFor(user: AuthUser): Promise<string>;
  /** Every answer given so far, as the client saw it. */
  responses: RecordedResponse[];
  /** What in those answers the application's own /openapi.json does not document (none, for a sound application). */
  undocumentedAnswers(): Promise<string[]>;
  /**
   * The application on a port of this machine, for a client that speaks HTTP
   * (a typed API client, fetch): its base URL. `close` stops it too.
   */
  serve(): Promise<string>;
  close(): Promise<void>;
}

/** An account with test defaults: `<username>@example.com`, password `<username>-password`. */
export function createTestUser(services: Services, username: string, spec: TestUser = {}): Promise<AuthUser> {
  return services.accounts.create({
    username,
    email: spec.email ?? `${username}@example.com`,
    name: spec.name,
    password: spec.password ?? `${username}-password`,
    isStaff: spec.staff,
    isSuperuser: spec.superuser,
  });
}

const METHODS: readonly Method[] = ['get', 'post', 'put', 'patch', 'delete', 'options', 'head'];
/** Carries a forced user from a request to the app; stripped before the app sees the request. */
const FORCED_HEADER = 'x-test-client-acting-as';
/** Fast hashes: the iteration count is part of a stored hash, so verification is unchanged. */
const TEST_ITERATIONS = '1000';

function requests(handler: (req: IncomingMessage, res: ServerResponse) => void, headers: Record<string, string> = {}): Requests {
  const made = {} as Requests;
  for (const method of METHODS) {
    made[method] = (path) => {
      const test = request(handler)[method](path);
      for (const [name, value] of Object.entries(headers)) test.set(name, value);
      return test;
    };
  }
  return made;
}

/** The application at `options.app` on its own database (in-memory SQLite, or a fresh PostgreSQL database under TEST_DATABASE_URL), migrated. */
export async function createTestClient(options: TestClientOptions = {}): Promise<TestClient> {
  const database = await createTestDatabase();
  const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: database.url, PASSWORD_HASH_ITERATIONS: TEST_ITERATIONS, ...options.env });
  let services: Services;
  try {
    services = await createServices(config, {
      application: applicationAt(options.app ?? '.'),
      ...(options.declarations ? { declarations: options.declarations } : {}),
      ...(options.migrationDirs ? { migrationDirs: options.migrationDirs } : {}),
    });
  } catch (error) {
    await database.drop();
    throw error;
  }
  const app = createApp(services);
  const forced = new Map<string, Authenticated>();
  const responses: RecordedResponse[] = [];
  const handler = recordingHandler((req: IncomingMessage, res: ServerResponse): void => {
    const key = req.headers[FORCED_HEADER];
    delete req.headers[FORCED_HEADER];
    const acting = typeof key === 'string' ? forced.get(key) : undefined;
    if (acting) Object.assign(req, { [FORCED_AUTHENTICATION]: acting });
    app(req as Parameters<App>[0], res as Parameters<App>[1]);
  }, responses);
  const servers: Server[] = [];
  return {
    app,
    services,
    anonymous: requests(handler),
    createUser: (username, spec) => createTestUser(services, username, spec),
    actingAs(user) {
      const key = randomUUID();
      forced.set(key, { user });
      return requests(handler, { [FORCED_HEADER]: key });
    },
    withToken(token) {
      return requests(handler, { Authorization: `Bearer ${token}` });
    },
    async tokenFor(user) {
      if (!services.tokens) throw new Error('this application declares no token model');
      return services.tokens.issue(user);
    },
    responses,
    async undocumentedAnswers() {
      if (responses.length === 0) return [];
      const description = (await request(app).get('/openapi.json')).body as Parameters<typeof contractProblems>[0];
      return contractProblems(description, responses);
    },
    async serve() {
      const server = createServer(handler);
      servers.push(server);
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async close() {
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
      await services.close();
      await database.drop();
    },
  };
}
