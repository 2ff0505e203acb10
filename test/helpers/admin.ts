import request from 'supertest';
import type { Response } from 'supertest';
import type { TestApp } from './app.js';
import { setCookieHeader } from './pages.js';

export type Agent = ReturnType<typeof request.agent>;

/** The admin's session cookie header of a response, if it set one. */
export function adminCookie(res: Response): string | undefined {
  return setCookieHeader(res, 'admin_sessionid');
}

/** Posts the admin's login form as its page does (multipart, like AdminJS's own form). */
export async function adminLogin(t: Pick<TestApp, 'app'>, identifier: string, password: string, agent: Agent = request.agent(t.app)) {
  const res = await agent.post('/admin/login').set('Accept-Language', 'en').field('email', identifier).field('password', password);
  return { agent, res };
}

/** An agent logged in to the admin; fails the test when the login is refused. */
export async function adminAgent(t: Pick<TestApp, 'app'>, identifier: string, password: string): Promise<Agent> {
  const { agent, res } = await adminLogin(t, identifier, password);
  if (res.status !== 302 || res.headers.location !== '/admin') throw new Error(`admin login of ${identifier} refused: ${res.status}`);
  return agent;
}

/** Submits a record form to an AdminJS API route as its pages do. */
export function submit(agent: Agent, path: string, fields: Record<string, string>) {
  const req = agent.post(`/admin/api/resources/${path}`).set('Accept-Language', 'en');
  for (const [name, value] of Object.entries(fields)) void req.field(name, value);
  return req;
}
