import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import ts from 'typescript';
import { describedRoutes, siteMounts } from '../../../src/app.js';
import { clientSource } from '../../../src/openapi/client.js';
import { openApiDocument } from '../../../src/openapi/document.js';
import { projectRoot } from '../../../src/paths.js';
import { createTestClient, type TestClient } from '../../../src/testing/index.js';

/**
 * The installed openapi-fetch, which the generated file imports: linked into
 * the scratch folder, as an API user's project has it in its node_modules.
 */
function openapiFetchDir(): string {
  return path.dirname(createRequire(path.join(projectRoot, 'package.json')).resolve('openapi-fetch/package.json'));
}

/**
 * Code of an API user of the comment service. It is both type-checked and run:
 * each `@ts-expect-error` is a misuse that must fail to type-check (an error
 * that did not come would fail the check itself, as an unused directive).
 */
const COMMENTS_USAGE = `
import { createApiClient } from './client.js';

export async function roundTrip(baseUrl: string, token: string): Promise<{ id: number; title: string | undefined }> {
  const api = createApiClient({ baseUrl, headers: { Authorization: \`Bearer \${token}\` } });
  const created = await api.POST('/api/comments', { body: { title: 'Typed', body: 'Sent by the generated client.' } });
  const id = created.data?.comment.id;
  if (id === undefined) throw new Error(\`POST /api/comments answered \${created.response.status}\`);
  const read = await api.GET('/api/comments/{pk}', { params: { path: { pk: id } } });
  return { id, title: read.data?.comment.title };
}

export async function misuses(api: ReturnType<typeof createApiClient>): Promise<void> {
  // @ts-expect-error a path the API does not have
  await api.GET('/api/nothing');
  // @ts-expect-error a path parameter the path does not have
  await api.GET('/api/comments/{pk}', { params: { path: { id: 1 } } });
  // @ts-expect-error a comment without its title
  await api.POST('/api/comments', { body: { body: 'No title.' } });
  const { data } = await api.GET('/api/comments/{pk}', { params: { path: { pk: 1 } } });
  // @ts-expect-error a field comments do not have
  void data?.comment.nope;
}
`;

/** Code of an API user of the blog: its own paths, none of the comment service's. */
const BLOG_USAGE = `
import { createApiClient } from './client.js';

export async function postTitles(api: ReturnType<typeof createApiClient>): Promise<(string | undefined)[]> {
  const { data } = await api.GET('/api/posts', { params: { query: { sort: ['-created_at'] } } });
  // @ts-expect-error the blog has no comments
  await api.GET('/api/comments');
  return (data?.posts ?? []).map((post) => post.title);
}
`;

/** Generating two clients and compiling them take seconds on an idle machine, several times that on a busy one. */
const SLOW = 90_000;

/** The typed client of the application at `app`, as `declarest client` writes it. */
async function generate(client: TestClient): Promise<string> {
  return clientSource(openApiDocument(describedRoutes(siteMounts(client.services)), 'en'));
}

describe('the typed client generated from an application’s description', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'typed-client-'));
  let comments: TestClient;

  beforeAll(async () => {
    comments = await createTestClient();
    const blog = await createTestClient({ app: 'examples/blog' });
    try {
      for (const [name, client, usage] of [['comments', comments, COMMENTS_USAGE], ['blog', blog, BLOG_USAGE]] as const) {
        mkdirSync(path.join(dir, name));
        writeFileSync(path.join(dir, name, 'client.ts'), await generate(client));
        writeFileSync(path.join(dir, name, 'usage.ts'), usage);
      }
    } finally {
      await blog.close();
    }
    writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
    mkdirSync(path.join(dir, 'node_modules'));
    symlinkSync(openapiFetchDir(), path.join(dir, 'node_modules', 'openapi-fetch'), 'dir');
    }, SLOW);
  afterAll(async () => {
    await comments?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('type-checks with openapi-fetch in strict mode, and a wrong path, parameter, body or field does not', () => {
    // What `tsc --noEmit --strict --module nodenext` does, in process: a project of an API user's, ES modules on Node.
    const program = ts.createProgram(['comments/usage.ts', 'blog/usage.ts'].map((file) => path.join(dir, file)), {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
      const where = diagnostic.file ? `${path.relative(dir, diagnostic.file.fileName)}:${diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1} ` : '';
      return `${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
    });
    expect(problems).toEqual([]);
    }, SLOW);

  test('makes requests to the running service: a comment created with a token, then read back by its key', async () => {
    const alice = await comments.createUser('alice');
    const token = await comments.tokenFor(alice);
    const server = comments.app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const usage = (await import(pathToFileURL(path.join(dir, 'comments', 'usage.ts')).href)) as {
        roundTrip(baseUrl: string, token: string): Promise<{ id: number; title: string | undefined }>;
      };
      const { id, title } = await usage.roundTrip(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, token);
      expect(title).toBe('Typed');
      expect(await comments.services.registry.get('Comment').model.findByPk(id)).toMatchObject({ title: 'Typed', body: 'Sent by the generated client.' });
    } finally {
      // fetch keeps its connections open for the next request: closed here, so that the server stops now.
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
