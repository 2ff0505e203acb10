import { describe, expect, test } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { Router } from 'express';
import { apiToken, credentials, useTestApp } from '../../helpers/app.js';
import { cli } from '../../helpers/cli.js';
import { contractProblems, schemaValidator } from '../../helpers/contract.js';
import { createTestDatabase } from '../../helpers/database.js';

interface Layer {
  rawPath?: unknown;
  handle: Router & { stack?: Layer[] };
  route?: { path: string; methods: Record<string, boolean> };
}

/** Pages for people, not API routes: the admin, the browser login, the docs page and its files. */
const PAGES = ['/admin', '/api-auth', '/docs', '/static'];

/** Every route path the app's routers really hold, read from Express's own stack, with its mount point. */
function servedRoutes(app: { router: { stack: Layer[] } }): { path: string; methods: string[] }[] {
  const routes: { path: string; methods: string[] }[] = [];
  for (const layer of app.router.stack) {
    const mount = typeof layer.rawPath === 'string' ? layer.rawPath.replace(/\/$/, '') : '';
    if (PAGES.includes(mount) || !layer.handle.stack) continue;
    for (const inner of layer.handle.stack) {
      if (!inner.route) continue;
      const path = `${mount}${inner.route.path}`.replace(/:(\w+)/g, '{$1}').replace(/\/$/, '') || '/';
      routes.push({ path, methods: Object.keys(inner.route.methods) });
    }
  }
  return routes;
}

type Operation = {
  security?: Record<string, string[]>[]; parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, { schema: Schema }> }; responses: Record<string, { content?: Record<string, { schema: object & { anyOf?: object[] }; example?: unknown; examples?: Record<string, { value: unknown }> }> }>;
  'x-also-renders'?: string[];
};
type Description = {
  paths: Record<string, Record<string, Operation> & { $ref?: string; description?: string }>;
  components: { securitySchemes: Record<string, { type: string; scheme?: string }>; schemas?: Record<string, { required?: string[] }> };
  info: { title: string; description: string };
  tags: { name: string }[];
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

/** A path item's operations by method (not its `$ref` or `description`). */
const operationsOf = (item: Description['paths'][string]): [string, Operation][] =>
  Object.entries(item).flatMap(([method, operation]) => (METHODS.includes(method) && typeof operation === 'object' ? [[method, operation]] : []));

/** Every example in `document`: of parameters, request bodies and answers, and in schemas. */
function examples(document: Description): unknown[] {
  const found: unknown[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, entry] of Object.entries(value)) {
        if (key === 'example') found.push(entry);
        else if (key === 'examples') found.push(...Object.values(entry as Record<string, { value: unknown }>).map((named) => named.value));
        else visit(entry);
      }
    }
  };
  visit(document.paths);
  return found;
}
type Schema = { properties: Record<string, { maxLength?: number }>; required?: string[] };

const bare = (path: string): string => path.replace(/\/$/, '') || '/';

describe('the OpenAPI description', () => {
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
  });
  const description = async (language = 'en'): Promise<Description> =>
    (await t.http.get('/openapi.json').set('Accept-Language', language)).body as Description;

  test('is served as JSON and is a valid OpenAPI 3.1 document, in English and in Japanese', async () => {
    const res = await t.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    for (const language of ['en', 'ja']) {
      const result = await new Validator().validate(await description(language));
      expect(result.errors).toBeUndefined();
      expect(result.valid).toBe(true);
    }
    expect((await description('ja')).info.title).toBe('コメントサービス');
  });

  test('documents every route the routers serve, and every documented path is served', async () => {
    const served = servedRoutes(t.app as unknown as { router: { stack: Layer[] } });
    const documented = Object.entries((await description()).paths).filter(([, item]) => !item.$ref).map(([path]) => bare(path));
    expect(served.map((route) => route.path)).toEqual(expect.arrayContaining(['/api/login', '/sanctum/csrf-cookie', '/comments/{pk}', '/', '/healthz']));
    expect([...new Set(served.map((route) => route.path))].sort()).toEqual([...documented].sort());
  });

  test("lists the root API first, then the token API, Fortify's browser session, and the service's routes", async () => {
    const { tags, paths } = await description();
    expect(tags.map((tag) => tag.name)).toEqual(['Paginated API', 'Token API', 'Browser session (Laravel Fortify)', 'Service']);
    expect(Object.keys(paths).slice(0, 3)).toEqual(['/', '/comments/', '/comments/{pk}/']);
    expect((await description('ja')).tags[0]?.name).toBe('ページ分割 API');
  });

  test('lists each operation once: HEAD and OPTIONS are said once for every path, not as operations', async () => {
    const document = await description();
    const operations = Object.values(document.paths).flatMap((item) => Object.keys(item).filter((key) => METHODS.includes(key)));
    expect(operations).not.toContain('head');
    expect(operations).not.toContain('options');
    expect(document.info.description).toMatch(/HEAD answers every path that answers GET/);
    expect(document.components.schemas?.Metadata?.required).toEqual(['name', 'description', 'renders', 'parses']);
  });

  test('describes each path in its other spelling too, as a reference to the first, which answers alike', async () => {
    const { paths } = await description();
    expect(paths['/comments']).toEqual({ $ref: '#/paths/~1comments~1', description: 'The same as /comments/, in the other spelling.' });
    expect(paths['/comments/{pk}']?.$ref).toBe('#/paths/~1comments~1%7Bpk%7D~1');
    expect(paths['/api/comments/']?.$ref).toBe('#/paths/~1api~1comments');
    expect(paths['/healthz/']?.$ref).toBe('#/paths/~1healthz');
    expect(paths['/openapi.json/']).toBeUndefined();
    const alice = credentials('alice');
    await t.http.post('/comments').auth(...alice).send({ title: 'slashless', body: 'no slash' }).expect(201);
    await t.http.get('/comments').auth(...alice).expect(200);
    await t.http.head('/comments').auth(...alice).expect(200);
    await t.http.options('/comments').auth(...alice).expect(200);
    await t.http.get('/api/comments/').set('Accept', 'application/json').auth(await apiToken(t, 'alice'), { type: 'bearer' }).expect(200);
    const answered = t.responses.filter((answer) => ['/comments', '/api/comments/'].includes(answer.path));
    expect(answered.map((answer) => answer.method)).toEqual(['POST', 'GET', 'HEAD', 'OPTIONS', 'GET']);
    expect(contractProblems(await description(), answered)).toEqual([]);
  });

  test('lists for each path exactly the methods it answers: any other method is refused', async () => {
    const { paths } = await description();
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;
    for (const [path, item] of Object.entries(paths).filter(([, item]) => !item.$ref)) {
      const concrete = path.replace('{pk}', '1');
      // Routes beside the sites are plain Express routes: another method falls through to the root site's 404,
      // and Express answers their OPTIONS itself. A site's path answers HEAD as its GET, and OPTIONS always.
      const plain = ['/healthz', '/readyz', '/openapi.json', '/login', '/logout', '/user/password'].includes(path);
      for (const method of methods.filter((method) => !(plain && method === 'OPTIONS'))) {
        const req = t.http[method === 'DELETE' ? 'delete' : (method.toLowerCase() as 'get')](concrete).set('Accept', 'application/json');
        // Signed in, so that the method is what decides (a token site's request needs a fresh token: logout revokes it).
        if (path.startsWith('/api/')) req.auth(await apiToken(t, 'alice'), { type: 'bearer' });
        else req.auth(...credentials('alice'));
        const res = await req;
        const refused = res.status === 405 || (plain && res.status === 404);
        const described = method === 'OPTIONS' || Boolean(item[method === 'HEAD' ? 'get' : method.toLowerCase()]);
        expect({ path, method, described }).toEqual({ path, method, described: !refused });
      }
    }
  });

  test('has examples that match their own schemas', async () => {
    const ajv = schemaValidator();
    let checked = 0;
    for (const item of Object.values((await description()).paths)) {
      for (const [, operation] of operationsOf(item)) {
        for (const response of Object.values(operation.responses)) {
          const json = response.content?.['application/json'];
          if (!json) continue;
          const values = [json.example, ...Object.values(json.examples ?? {}).map((example) => example.value)].filter((value) => value !== undefined);
          for (const value of values) {
            expect({ value, valid: ajv.validate(json.schema, value), errors: ajv.errorsText(ajv.errors) }).toEqual({ value, valid: true, errors: 'No errors' });
            checked += 1;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  test('fills every slot of the messages it quotes, in both languages', async () => {
    for (const language of ['en', 'ja']) expect(JSON.stringify(await description(language))).not.toMatch(/\{\{\w+\}\}/);
  });

  test("gives its examples in the reader's language: none Japanese on the English page, the declared ones on the Japanese page", async () => {
    const examplesOf = (document: Description): string => JSON.stringify(examples(document));
    expect(examplesOf(await description('en'))).not.toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
    const japanese = await description('ja');
    expect(examplesOf(japanese)).toContain('はじめまして');
    expect(examplesOf(japanese)).toContain('認証情報が含まれていません。');
    const english = await description('en');
    expect(english.paths['/comments/']?.post?.requestBody?.content['application/json']?.schema.properties.title).toMatchObject({ example: 'Hello' });
    expect(english.paths['/api/comments']?.get?.responses['401']?.content?.['application/json']?.example).toEqual({ message: 'Unauthenticated.' });
  });

  test('shows a list as one page of one row: the count is the number of results, with no neighbouring page', async () => {
    for (const language of ['en', 'ja']) {
      const { paths } = await description(language);
      const page = paths['/comments/']?.get?.responses['200']?.content?.['application/json']?.example as { count: number; next: unknown; previous: unknown; results: unknown[] };
      expect(page).toMatchObject({ count: 1, next: null, previous: null });
      expect(page.results).toHaveLength(page.count);
      expect(paths['/api/comments']?.get?.responses['200']?.content?.['application/json']?.example).toEqual({
        comments: [expect.objectContaining({ id: 1, title: language === 'en' ? 'Hello' : 'はじめまして' })],
      });
    }
  });

  test('describes answers in JSON only, so that a generated client types them as JSON; other pages are named apart', async () => {
    const { paths } = await description();
    const types = Object.values(paths).flatMap((item) =>
      operationsOf(item).flatMap(([, operation]) => Object.values(operation.responses).flatMap((response) => Object.keys(response.content ?? {}))),
    );
    expect(new Set(types)).toEqual(new Set(['application/json']));
    expect(paths['/comments/']?.get?.['x-also-renders']).toEqual(['text/html']);
    expect(paths['/healthz']?.get?.['x-also-renders']).toBeUndefined();
  });

  test('asks each site for its own schemes, and nothing of the login', async () => {
    const { paths, components } = await description();
    expect(components.securitySchemes.basicAuth).toMatchObject({ type: 'http', scheme: 'basic' });
    expect(components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(components.securitySchemes.sessionCookie).toMatchObject({ type: 'apiKey' });
    expect(components.securitySchemes.tokenAuth).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(paths['/comments/']?.get?.security).toEqual([{ sessionCookie: [] }, { basicAuth: [] }, { tokenAuth: [] }]);
    // A bearer token first: one that checks out decides over the session cookie sent with it.
    expect(paths['/api/comments']?.post?.security).toEqual([{ bearerAuth: [] }, { sessionCookie: [] }]);
    expect(paths['/api/login']?.post?.security).toBeUndefined();
  });

  test("describes request bodies with each site's limits, all required on create and PUT, none on PATCH", async () => {
    const { paths } = await description();
    const body = (path: string, method: string, type = 'application/json'): Schema | undefined => paths[path]?.[method]?.requestBody?.content[type]?.schema;
    expect(body('/comments/', 'post')).toMatchObject({ properties: { title: { maxLength: 10 }, body: { maxLength: 15 } }, required: ['title', 'body'] });
    expect(body('/comments/{pk}/', 'put', 'multipart/form-data')?.required).toEqual(['title', 'body']);
    expect(body('/comments/{pk}/', 'patch')?.required).toBeUndefined();
    expect(body('/api/comments', 'post', 'application/x-www-form-urlencoded')).toMatchObject({ properties: { title: { maxLength: 255 }, body: { maxLength: 65_535 } } });
  });

  test('describes each page style a list offers, its default first', async () => {
    const { paths } = await description();
    const bodies = (path: string): Schema[] => (paths[path]?.get?.responses['200']?.content?.['application/json']?.schema?.anyOf ?? []) as Schema[];
    expect(bodies('/comments/').map((body) => body.required)).toEqual([
      ['count', 'next', 'previous', 'results'],
      ['count', 'next', 'previous', 'results'],
      ['next', 'previous', 'results'],
    ]);
    expect(bodies('/api/comments').map((body) => body.required)).toEqual([['comments'], ['comments', 'links', 'meta'], ['comments', 'links', 'meta']]);
  });

  test("documents every query parameter a list or a row understands, in its site's words", async () => {
    const { paths } = await description();
    const names = (path: string): string[] => (paths[path]?.get?.parameters ?? []).filter((parameter) => parameter.in !== 'header').map((parameter) => parameter.name);
    expect(names('/comments/')).toEqual([
      'user_id', 'owner', 'user_id__in', 'owner__in', 'user_id__isnull', 'owner__isnull',
      'title', 'title__icontains', 'title__in',
      'updated_at__gt', 'updated_at__gte', 'updated_at__lt', 'updated_at__lte',
      'search', 'ordering', 'fields', 'expand', 'page', 'page_size', 'limit', 'offset', 'cursor', 'format',
    ]);
    expect(names('/comments/{pk}/')).toEqual(['pk', 'fields', 'expand', 'format']);
    expect(names('/api/comments')).toEqual([
      'filter[user_id]', 'filter[title]', 'filter[updated_at]', 'filter[search]',
      'sort', 'fields[comments]', 'fields', 'include', 'page', 'per_page', 'cursor', 'format',
    ]);
    expect(names('/api/comments/{pk}')).toEqual(['pk', 'fields[comments]', 'fields', 'include', 'format']);
    // A list with nothing to ask keeps only its pages.
    expect(names('/api/user')).toEqual(['format']);
  });

  test('fails an answer that shows a field it does not document, such as a password hash', async () => {
    const leaked = { id: 1, title: 'x', body: 'y', updated_at: '2026-01-15T09:30:00.250000', password: 'pbkdf2_sha256$600000$salt$hash' };
    const answer = { method: 'GET', path: '/comments/1/', status: 200, contentType: 'application/json', body: Buffer.from(JSON.stringify(leaked)) };
    const problems = contractProblems(await description(), [answer]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('must NOT have additional properties');
    expect(contractProblems(await description(), [{ ...answer, path: '/nowhere/1', status: 200 }])).toEqual(['GET /nowhere/1 → 200: path not described']);
  });

  test('is printed by `manage openapi` as GET /openapi.json serves it', async () => {
    const database = await createTestDatabase();
    try {
      const run = await cli(['openapi', '--language', 'ja'], { env: { DATABASE_URL: database.url, NODE_ENV: 'test' } });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual(await description('ja'));
    } finally {
      await database.drop();
    }
  });
});
