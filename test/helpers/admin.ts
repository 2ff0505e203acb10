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
export async function adminLogin(t: Pick<TestApp, 'app'>, identifier: string, password: string, agent: Agent = request.agent(t.app)): Promise<{ agent: Agent; res: Response }> {
  const res = await agent.post('/admin/login').set('Accept-Language', 'en').field('email', identifier).field('password', password);
  return { agent, res };
}

/** An agent logged in to the admin; fails the test when the login is refused. */
export async function adminAgent(t: Pick<TestApp, 'app'>, identifier: string, password: string): Promise<Agent> {
  const { agent, res } = await adminLogin(t, identifier, password);
  if (res.status !== 302 || res.headers.location !== '/admin') throw new Error(`admin login of ${identifier} refused: ${res.status}`);
  return agent;
}

/** Once the admin has loaded: `root` (a superuser) and `staffer` (staff), created with createUser's default passwords, logged in. */
export async function staffAgents(t: Pick<TestApp, 'app'>): Promise<{ root: Agent; staffer: Agent }> {
  await t.app.warm();
  return { root: await adminAgent(t, 'root', 'root-password'), staffer: await adminAgent(t, 'staffer', 'staffer-password') };
}

/** Submits a record form to an AdminJS API route as its pages do. */
export function submit(agent: Agent, path: string, fields: Record<string, string>) {
  const req = agent.post(`/admin/api/resources/${path}`).set('Accept-Language', 'en');
  for (const [name, value] of Object.entries(fields)) void req.field(name, value);
  return req;
}

/** AdminJS's marker of a null value in a form (its params-to-form-data). */
const FORM_VALUE_NULL = '__FORM_VALUE_NULL__';

/**
 * Opens a record's edit form as its page does, and gives back the fields the
 * page would post on save: every param of the record (the row's version
 * among them), with `changes` typed over them.
 */
export async function openEditForm(agent: Agent, resource: string, id: string | number) {
  const res = await agent.get(`/admin/api/resources/${resource}/records/${id}/edit`).set('Accept-Language', 'en');
  if (res.status !== 200) throw new Error(`edit form of ${resource} ${id}: ${res.status}`);
  const params = res.body.record.params as Record<string, unknown>;
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(params)) fields[name] = value === null ? FORM_VALUE_NULL : String(value);
  return {
    params,
    /** Posts the form with `changes` typed in. */
    save: (changes: Record<string, string> = {}, language = 'en') => submit(agent, `${resource}/records/${id}/edit`, { ...fields, ...changes }).set('Accept-Language', language),
  };
}
