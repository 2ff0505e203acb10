/** What the blog's tests share: the application on a throwaway database, and requests to each site. */
import request, { type Test } from 'supertest';
import { createTestClient, type Requests, type TestClient, type TestClientOptions } from '../../../src/testing/index.js';
import type { AuthUser } from '../../../src/types/auth.js';

export const BLOG = 'examples/blog';

export function blogClient(options: Omit<TestClientOptions, 'app'> = {}): Promise<TestClient> {
  return createTestClient({ app: BLOG, ...options });
}

/** Requests that ask for JSON and English messages, as an API client does (Laravel answers HTML otherwise). */
export function asJson(requests: Requests): Requests {
  const wrapped = {} as Requests;
  for (const method of Object.keys(requests) as (keyof Requests)[]) {
    wrapped[method] = (path: string): Test => requests[method](path).set('Accept', 'application/json').set('Accept-Language', 'en');
  }
  return wrapped;
}

/** One user's requests on both sites: the root site forced-authenticated, /api with a real token. */
export interface Author {
  user: AuthUser;
  root: Requests;
  api: Requests;
}

export async function author(client: TestClient, username: string, spec: { staff?: boolean; superuser?: boolean } = {}): Promise<Author> {
  const user = await client.createUser(username, spec);
  return { user, root: asJson(client.actingAs(user)), api: asJson(client.withToken(await client.tokenFor(user))) };
}

/** Counts the SQL statements `work` sends (Sequelize reads its `logging` option at each query). */
export async function countQueries(client: TestClient, work: () => Promise<unknown>): Promise<number> {
  // Sequelize's types leave `options` out; each query reads `logging` from it.
  const { options } = client.services.sequelize as unknown as { options: { logging: false | ((sql: string) => void) } };
  const before = options.logging;
  let count = 0;
  options.logging = () => {
    count += 1;
  };
  try {
    await work();
  } finally {
    options.logging = before;
  }
  return count;
}

/** A browser signed in to the admin as `username` (its test password), ready for the AdminJS API its pages call. */
export async function adminAgent(client: TestClient, username: string): Promise<request.Agent> {
  await client.app.warm();
  const agent = request.agent(client.app);
  const login = await agent.post('/admin/login').set('Accept-Language', 'en').field('email', username).field('password', `${username}-password`);
  if (login.status !== 302 || login.headers.location !== '/admin') throw new Error(`admin login of ${username} refused: ${login.status}`);
  return agent;
}

/** Posts an admin record form (`<table>/actions/new`, `<table>/records/<id>/edit`) as its page does: multipart, field by field. */
export function adminForm(agent: request.Agent, path: string, fields: Record<string, string>): Test {
  const req = agent.post(`/admin/api/resources/${path}`).set('Accept-Language', 'en');
  for (const [name, value] of Object.entries(fields)) void req.field(name, value);
  return req;
}
