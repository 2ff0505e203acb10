import { afterAll, beforeAll } from '@jest/globals';
import request from 'supertest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createServices, type ServiceOptions, type Services } from '../../src/services.js';
import { createTestDatabase } from './database.js';
import { createTestUser } from '../../src/testing/index.js';
import { contractProblems, recordingHandler, type RecordedResponse } from './contract.js';
import type { AuthUser } from '../../src/types/auth.js';

/** Fast hashes: the iteration count is part of the stored hash, so verification is unchanged. */
export const TEST_ITERATIONS = 1000;

export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({ NODE_ENV: 'test', DATABASE_URL: 'sqlite::memory:', PASSWORD_HASH_ITERATIONS: String(TEST_ITERATIONS), ...env });
}

export interface UserSpec {
  password?: string;
  email?: string;
  name?: string;
  staff?: boolean;
  superuser?: boolean;
  active?: boolean;
}

/** What a test may change in the app it gets: other declarations and migrations. */
export type TestAppOptions = Pick<ServiceOptions, 'declarations' | 'migrationDirs'>;

export interface TestApp {
  app: App;
  services: Services;
  http: ReturnType<typeof request>;
  /** Every answer given through `http`, for the contract check. */
  responses: RecordedResponse[];
  createUser(username: string, spec?: UserSpec): Promise<AuthUser>;
  close(): Promise<void>;
}

/** A fresh app over its own database (in-memory SQLite, or PostgreSQL under test:pg), migrated. */
export async function createTestApp(env: Record<string, string> = {}, options: TestAppOptions = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const services = await createServices(testConfig({ DATABASE_URL: database.url, ...env }), options);
  const app = createApp(services);
  const responses: RecordedResponse[] = [];
  return {
    app,
    services,
    http: request(recordingHandler(app, responses)),
    responses,
    async createUser(username, spec = {}) {
      const user = await createTestUser(services, username, spec);
      if (spec.active === false) {
        await services.registry.users().model.update({ is_active: false }, { where: { id: user.id } });
      }
      return user;
    },
    async close() {
      await services.close();
      await database.drop();
    },
  };
}

/**
 * One app for the tests of a describe block: made (and `setup` run) before
 * them, closed after them. The returned object forwards to that app.
 */
export function useTestApp(
  setup: (app: TestApp) => Promise<void> = async () => undefined,
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): TestApp {
  let current: TestApp | undefined;
  beforeAll(async () => {
    current = await createTestApp(env, options);
    await setup(current);
  });
  afterAll(async () => {
    if (!current) return;
    // Every answer the block's tests got must be one the API description documents.
    const problems = await describedAnswerProblems(current);
    await current.close();
    if (problems.length > 0) throw new Error(`answers the OpenAPI description does not document:\n${problems.join('\n')}`);
  });
  const app = (): TestApp => {
    if (!current) throw new Error('the test app is used outside its describe block');
    return current;
  };
  return {
    get app() {
      return app().app;
    },
    get services() {
      return app().services;
    },
    get http() {
      return app().http;
    },
    get responses() {
      return app().responses;
    },
    createUser: (username, spec) => app().createUser(username, spec),
    close: () => app().close(),
  };
}

/** A cookie jar on `t`'s app whose answers, as `t.http`'s, are recorded for the contract check. */
export function recordingAgent(t: Pick<TestApp, 'app' | 'responses'>): ReturnType<typeof request.agent> {
  return request.agent(recordingHandler(t.app, t.responses));
}

/** A host the app answers to: ALLOWED_HOSTS may leave out the loopback address supertest names. */
function allowedHost(config: Config): string | undefined {
  return config.allowedHosts.find((pattern) => pattern !== '*')?.replace(/^\./, '');
}

/** What in the answers `t` gave the API description it serves does not document (see contractProblems). */
export async function describedAnswerProblems(t: Pick<TestApp, 'app' | 'responses' | 'services'>): Promise<string[]> {
  if (t.responses.length === 0) return [];
  const host = allowedHost(t.services.config);
  const get = request(t.app).get('/openapi.json');
  const description = (await (host === undefined ? get : get.set('Host', host))).body as Parameters<typeof contractProblems>[0];
  return contractProblems(description, t.responses);
}

/** `[username, password]` for supertest's `.auth()`, matching createUser's default password. */
export function credentials(username: string): [string, string] {
  return [username, `${username}-password`];
}

/** A bearer token from `POST /api/login` with the password createUser gave `username`. */
export async function apiToken(t: Pick<TestApp, 'http'>, username: string, email = `${username}@example.com`): Promise<string> {
  const res = await t.http.post('/api/login').type('form').send({ email, password: `${username}-password` });
  if (res.status !== 201) throw new Error(`login of ${username} failed: ${res.status} ${res.text}`);
  return res.body.token as string;
}
