import { describe, expect, test } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Response } from 'supertest';
import { describedRoutes, siteMounts } from '../../../src/app.js';
import { openApiDocument } from '../../../src/openapi/document.js';
import { recordingAgent, useTestApp } from '../../helpers/app.js';
import { contractProblems } from '../../helpers/contract.js';
import { setCookieHeader } from '../../helpers/pages.js';

type Header = { required?: boolean; schema: { type: string } };
type Operation = {
  summary: string;
  tags: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: { required: boolean; content: Record<string, { schema: { properties: Record<string, unknown>; required?: string[] } }> };
  responses: Record<string, { headers?: Record<string, Header>; content?: Record<string, { schema: object }> }>;
  'x-also-renders'?: string[];
};
type Description = {
  tags: { name: string; description: string }[];
  paths: Record<string, Record<string, Operation> & { $ref?: string }>;
  components: { securitySchemes: Record<string, unknown> };
};

const AXIOS = { Accept: 'application/json, text/plain, */*', 'X-Requested-With': 'XMLHttpRequest' };
const JAPANESE = /[\u3040-\u30ff\u4e00-\u9fff]/;

/** The statuses each of Fortify's routes answers, as its tests provoke them. */
const STATUSES: Record<string, [string, string[]]> = {
  '/login': ['post', ['200', '302', '413', '419', '422', '429']],
  '/logout': ['post', ['204', '302', '401', '419']],
  '/user/password': ['put', ['200', '400', '401', '413', '415', '419', '422', '429']],
};

function xsrfCookie(res: Response): string {
  const found = setCookieHeader(res, 'XSRF-TOKEN');
  if (!found) throw new Error('no XSRF-TOKEN cookie');
  return decodeURIComponent(found.slice('XSRF-TOKEN='.length).split(';')[0] ?? '');
}

describe("Laravel Fortify's routes in the OpenAPI description", () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice', { email: 'alice@example.com' });
  });
  const description = async (language = 'en'): Promise<Description> =>
    (await t.http.get('/openapi.json').set('Accept-Language', language)).body as Description;

  test('are listed under a tag of their own with every status they answer, in English and in Japanese', async () => {
    for (const [language, tag] of [['en', 'Browser session (Laravel Fortify)'], ['ja', 'ブラウザのセッション (Laravel Fortify)']] as const) {
      const { paths, tags } = await description(language);
      expect(tags.map((known) => known.name)).toContain(tag);
      for (const [path, [method, statuses]] of Object.entries(STATUSES)) {
        const operation = paths[path]?.[method];
        expect({ path, tags: operation?.tags, statuses: Object.keys(operation?.responses ?? {}) }).toEqual({ path, tags: [tag], statuses });
        expect(operation?.summary).toMatch(language === 'ja' ? JAPANESE : /^[^\u3040-\u30ff\u4e00-\u9fff]+$/);
        expect(paths[`${path}/`]?.$ref).toBe(`#/paths/${path.replace(/\//g, '~1')}`);
      }
      const result = await new Validator().validate(await description(language));
      expect(result.errors).toBeUndefined();
    }
  });

  test('say which headers always come: Retry-After on 429, Location on a redirect', async () => {
    const { paths } = await description();
    expect(paths['/login']?.post?.responses['429']?.headers?.['Retry-After']).toMatchObject({ required: true, schema: { type: 'integer' } });
    expect(paths['/user/password']?.put?.responses['429']?.headers?.['Retry-After']).toMatchObject({ required: true });
    expect(paths['/login']?.post?.responses['302']?.headers?.Location).toMatchObject({ required: true });
    expect(paths['/logout']?.post?.['x-also-renders']).toEqual(['text/html', 'text/plain']);
    expect(paths['/user/password']?.put?.['x-also-renders']).toBeUndefined();
  });

  test('ask for the browser session and its CSRF token with the sites’ own scheme, and for no credentials to log in', async () => {
    const { paths, components } = await description();
    expect(Object.keys(components.securitySchemes).sort()).toEqual(['basicAuth', 'bearerAuth', 'sessionCookie', 'tokenAuth']);
    expect(paths['/login']?.post?.security).toBeUndefined();
    expect(paths['/logout']?.post?.security).toEqual([{ sessionCookie: [] }]);
    expect(paths['/user/password']?.put?.security).toEqual([{ sessionCookie: [] }]);
    for (const [path, [method]] of Object.entries(STATUSES)) {
      expect(paths[path]?.[method]?.parameters).toEqual([expect.objectContaining({ name: 'X-XSRF-TOKEN', in: 'header' })]);
    }
  });

  test('describe the bodies they read, as JSON and as forms', async () => {
    const { paths } = await description();
    const login = paths['/login']?.post?.requestBody?.content;
    expect(Object.keys(login ?? {})).toEqual(['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data']);
    expect(Object.keys(login?.['application/json']?.schema.properties ?? {})).toEqual(['email', 'password', 'remember']);
    expect(login?.['application/x-www-form-urlencoded']?.schema.properties).toHaveProperty('_token');
    const update = paths['/user/password']?.put?.requestBody?.content['application/json']?.schema;
    expect(Object.keys(update?.properties ?? {})).toEqual(['current_password', 'password', 'password_confirmation', 'revoke_tokens']);
    expect(paths['/logout']?.post?.requestBody).toBeUndefined();
  });

  test('check the answers a SPA gets against the description: success, 302, 401, 419 and 422 pass', async () => {
    const agent = recordingAgent(t);
    const xsrf = xsrfCookie(await agent.get('/sanctum/csrf-cookie').set(AXIOS).expect(204));
    await agent.post('/logout').set(AXIOS).set('X-XSRF-TOKEN', xsrf).expect(401);
    await agent.post('/login').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ email: 'alice', password: 'wrong' }).expect(422);
    await agent.post('/login').set(AXIOS).send({ email: 'alice', password: 'alice-password' }).expect(419);
    const login = await agent.post('/login').set(AXIOS).set('X-XSRF-TOKEN', xsrf).send({ email: 'alice', password: 'alice-password' }).expect(200);
    const rotated = xsrfCookie(login);
    await agent.put('/user/password').set(AXIOS).set('X-XSRF-TOKEN', rotated).send({ current_password: 'wrong', password: 'x', password_confirmation: 'y' }).expect(422);
    await agent.post('/logout').set(AXIOS).set('X-XSRF-TOKEN', rotated).expect(204);
    await agent.post('/login').type('form').send({ _token: rotated, email: 'alice', password: 'wrong' }).expect(302);
    const fortify = t.responses.filter((answer) => answer.path in STATUSES);
    expect(fortify.map((answer) => answer.status)).toEqual([401, 422, 419, 200, 422, 204, 302]);
    expect(contractProblems(await description(), fortify)).toEqual([]);
  });

  test('fail an answer it does not document, such as a token in the login’s body or a status of its own', async () => {
    const answer = { method: 'POST', path: '/login', status: 200, contentType: 'application/json', headers: [], body: Buffer.from(JSON.stringify({ two_factor: false, token: '1|secret' })) };
    const document = await description();
    expect(contractProblems(document, [answer])).toEqual([expect.stringContaining('must NOT have additional properties')]);
    expect(contractProblems(document, [{ ...answer, status: 403, body: Buffer.from('{"message":"no"}') }])).toEqual([expect.stringContaining('status not described')]);
    expect(contractProblems(document, [{ ...answer, status: 429, body: Buffer.from('{"message":"wait","errors":{"email":["wait"]}}') }])).toEqual([
      'POST /login → 429: no Retry-After header',
    ]);
  });

  test('leave out the login and logout where no token site serves them, and keep the password update, which is always served', () => {
    const mounts = siteMounts(t.services).filter((mount) => mount.site.name !== 'token');
    const document = openApiDocument(describedRoutes(mounts), 'en');
    expect(document.paths['/login']).toBeUndefined();
    expect(document.paths['/logout']).toBeUndefined();
    expect(document.paths['/user/password']?.put?.security).toEqual([{ sessionCookie: [] }]);
  });
});
