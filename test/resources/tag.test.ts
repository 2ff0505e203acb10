import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { Validator } from '@seriousme/openapi-schema-validator';
import { QueryTypes } from 'sequelize';
import { apiToken, credentials, useTestApp } from '../helpers/app.js';
import { adminAgent, submit, type Agent } from '../helpers/admin.js';
import { schemaValidator } from '../helpers/contract.js';
import { missingQueryIndexes } from '../../src/db/query-indexes.js';
import { loadDeclarations } from '../../src/registry.js';
import { applicationAt, frameworkLocalesDir, migrationsDir, projectRoot } from '../../src/paths.js';

/**
 * The proof that a new resource needs one file: `Tag` is declared in
 * test/fixtures/tag/tag.ts, its table made by the migration beside it, and
 * nothing else names it — not src/, not the `resources` catalogue.
 */
const FIXTURE_DIR = path.join(projectRoot, 'test', 'fixtures', 'tag');
const FIXTURE_MIGRATIONS = path.join(FIXTURE_DIR, 'migrations');
const SRC_DIR = path.join(projectRoot, 'src');

const projectDeclarations = await loadDeclarations();
const fixtureDeclarations = await loadDeclarations(FIXTURE_DIR);

const ADMIN_LOAD_TIMEOUT = 60_000;
const PAGINATED_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/;
const TOKEN_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

interface TagBody {
  id: number;
  name: string;
  description: string;
}

/** Every file under `dir`, recursively. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full) : [full];
  });
}

/**
 * What would name this resource in code: its name or table as a string
 * literal, its URL segment, or its fixture's folder. Not the English word
 * "tag" of HTML prose, nor OpenAPI's `tags` keyword.
 */
const NAMES_THE_FIXTURE = /(['"`])Tag\1|(['"`])tags\2|\/tags\b|fixtures\/tag\b/;

const names = (list: readonly TagBody[]): string[] => list.map((tag) => tag.name);

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The object at `keys` in a JSON document; fails naming the first key that is missing. */
function dig(value: unknown, ...keys: string[]): JsonObject {
  let current = value;
  for (const [index, key] of keys.entries()) {
    if (!isObject(current) || !(key in current)) throw new Error(`the description has no ${keys.slice(0, index + 1).join(' → ')}`);
    current = current[key];
  }
  if (!isObject(current)) throw new Error(`${keys.join(' → ')} is not an object`);
  return current;
}

/** An answer's body checked against the schema the description gives it: the errors, none when it matches. */
function schemaErrors(schema: JsonObject, body: unknown): unknown[] {
  const validate = schemaValidator().compile(schema);
  return validate(body) ? [] : [...(validate.errors ?? [])];
}

describe('a resource declared in one file (test/fixtures/tag)', () => {
  test('the fixture folder holds exactly one declaration, Tag, which the project itself does not load', () => {
    expect(fixtureDeclarations.map((declaration) => declaration.name)).toEqual(['Tag']);
    expect(projectDeclarations.map((declaration) => declaration.name)).not.toContain('Tag');
  });

  test('nothing under src/ names it, so it is served with no change in the framework', () => {
    // The framework's catalogues hold OpenAPI's `tags` among their keys: the next test reads them as catalogues.
    const files = filesUnder(SRC_DIR).filter((file) => !file.startsWith(frameworkLocalesDir + path.sep));
    expect(files.length).toBeGreaterThan(20);
    // The pattern does recognise the resource where it is named: in its own declaration, and in every form code would use.
    expect(readFileSync(path.join(FIXTURE_DIR, 'tag.ts'), 'utf8')).toMatch(NAMES_THE_FIXTURE);
    for (const naming of ["get('Tag')", 'table: "tags"', 'app.use(`/tags`)', "'/api/tags/:pk'", "import('../test/fixtures/tag/tag.js')"]) {
      expect(naming).toMatch(NAMES_THE_FIXTURE);
    }
    for (const other of ["t('tags.service')", 'document.tags.push(tag)', 'an HTML <script> tag', "'Tags'", "'stags'"]) {
      expect(other).not.toMatch(NAMES_THE_FIXTURE);
    }
    const naming = files.filter((file) => NAMES_THE_FIXTURE.test(readFileSync(file, 'utf8')));
    expect(naming.map((file) => path.relative(projectRoot, file))).toEqual([]);
  });

  test("the resources catalogues, the framework's and the comment service's, have no entry for it in any language", () => {
    const catalogues = [frameworkLocalesDir, applicationAt('.').locales].flatMap((dir) => {
      const languages = readdirSync(dir);
      expect(languages).toEqual(expect.arrayContaining(['en', 'ja']));
      return languages.map((language) => JSON.parse(readFileSync(path.join(dir, language, 'resources.json'), 'utf8')) as Record<string, unknown>);
    });
    expect(catalogues.some((catalogue) => 'comment' in catalogue)).toBe(true);
    for (const catalogue of catalogues) expect(Object.keys(catalogue)).not.toContain('tag');
  });

  describe('served by a test app with the project declarations and migrations plus the fixture', () => {
    const alice = credentials('alice');
    let bearer: string;

    const t = useTestApp(
      async (app) => {
        await app.createUser('alice');
        await app.createUser('stella', { staff: true, name: 'Stella Staff' });
      },
      {},
      { declarations: [...projectDeclarations, ...fixtureDeclarations], migrationDirs: [migrationsDir, FIXTURE_MIGRATIONS] },
    );
    beforeAll(async () => {
      bearer = await apiToken(t, 'alice');
    });
    beforeEach(async () => {
      await t.services.registry.get('Tag').model.destroy({ where: {} });
    });

    const paginatedCreate = (fields: Record<string, string>) => t.http.post('/tags/').auth(...alice).type('form').send(fields);
    const tokenCreate = (fields: Record<string, string>) =>
      t.http.post('/api/tags').auth(bearer, { type: 'bearer' }).set('Accept', 'application/json').type('form').send(fields);

    describe('its table', () => {
      test('is made by the fixture migration, applied after the project ones', async () => {
        const applied = await t.services.sequelize.query<{ name: string }>('SELECT name FROM schema_migrations ORDER BY name', {
          type: QueryTypes.SELECT,
        });
        const appliedNames = applied.map((row) => row.name);
        expect(appliedNames).toContain('0002_create_comments');
        expect(appliedNames.at(-1)).toBe('0100_create_tags');
        const columns = await t.services.sequelize.getQueryInterface().describeTable('tags');
        expect(Object.keys(columns).sort()).toEqual(['created_at', 'description', 'id', 'name', 'updated_at']);
      });

      test('holds what the model writes, with the clock filling both timestamps', async () => {
        const row = await t.services.registry.get('Tag').model.create({ name: 'direct' });
        const [stored] = await t.services.sequelize.query<{ name: string; description: string }>(
          'SELECT name, description FROM tags WHERE id = :id',
          { type: QueryTypes.SELECT, replacements: { id: row.get('id') } },
        );
        expect(stored).toEqual({ name: 'direct', description: '' });
        expect(row.get('created_at')).toBeInstanceOf(Date);
        expect(row.get('updated_at')).toEqual(row.get('created_at'));
      });
    });

    describe('the paginated site (HTTP Basic, at the root)', () => {
      test('the API root links to its list beside the comments', async () => {
        const res = await t.http.get('/').auth(...alice);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({
          comments: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/comments\/$/),
          tags: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/tags\/$/),
        });
      });

      test('creating answers 201 with exactly the exposed fields, the description defaulting to empty', async () => {
        const res = await paginatedCreate({ name: 'alpha' });
        expect(res.status).toBe(201);
        expect(Object.keys(res.body)).toEqual(['id', 'name', 'description', 'updated_at']);
        expect(res.body).toMatchObject({ name: 'alpha', description: '' });
        expect(res.body.updated_at).toMatch(PAGINATED_TIMESTAMP);
      });

      test('lists in pages of 2 in the declared order (name, then id), with count, next and previous', async () => {
        for (const name of ['cherry', 'apple', 'banana']) await paginatedCreate({ name }).expect(201);
        const first = await t.http.get('/tags/').auth(...alice);
        expect(first.status).toBe(200);
        expect(Object.keys(first.body)).toEqual(['count', 'next', 'previous', 'results']);
        expect(first.body.count).toBe(3);
        expect(names(first.body.results)).toEqual(['apple', 'banana']);
        expect(first.body.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/tags\/\?page=2$/);
        expect(first.body.previous).toBeNull();
        const second = await t.http.get('/tags/?page=2').auth(...alice);
        expect(names(second.body.results)).toEqual(['cherry']);
        expect(second.body.next).toBeNull();
        expect(second.body.previous).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/tags\/$/);
      });

      test('page_size chooses the page length up to 5', async () => {
        for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) await paginatedCreate({ name }).expect(201);
        const three = await t.http.get('/tags/?page_size=3').auth(...alice);
        expect(names(three.body.results)).toEqual(['a', 'b', 'c']);
        expect(three.body.next).toMatch(/\/tags\/\?page=2&page_size=3$/);
        const capped = await t.http.get('/tags/?page_size=100').auth(...alice);
        expect(capped.body.count).toBe(6);
        expect(names(capped.body.results)).toEqual(['a', 'b', 'c', 'd', 'e']);
      });

      test("a name over the site's rule of 12 characters is a 400 naming the field, in Japanese and English", async () => {
        const res = await paginatedCreate({ name: 'n'.repeat(13), description: 'too long a name' });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ name: ['nameの最大文字数は12文字です'] });
        const english = await t.http.post('/tags/').auth(...alice).set('Accept-Language', 'en').type('form').send({ name: 'n'.repeat(13) });
        expect(english.body).toEqual({ name: ['name may be at most 12 characters long.'] });
        expect((await paginatedCreate({ name: 'n'.repeat(12) })).status).toBe(201);
        expect((await t.http.get('/tags/').auth(...alice)).body.count).toBe(1);
      });

      test('a missing name is a 400 under the name key only', async () => {
        const res = await paginatedCreate({ description: 'nameless' });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({ name: ['この項目は必須です。'] });
      });

      test('OPTIONS describes the list by the declared name and the fields by their names', async () => {
        const res = await t.http.options('/tags/').auth(...alice).set('Accept-Language', 'en');
        expect(res.status).toBe(200);
        expect(res.body.name).toBe('Tag List');
        expect(res.body.actions.POST).toEqual({
          id: { type: 'integer', required: false, read_only: true, label: 'id' },
          name: { type: 'string', required: true, read_only: false, label: 'name', max_length: 12 },
          description: { type: 'string', required: false, read_only: false, label: 'description' },
          updated_at: { type: 'datetime', required: false, read_only: true, label: 'updated_at' },
        });
      });

      test('a tag is read back, replaced, patched and deleted by its pk', async () => {
        const { body: created } = await paginatedCreate({ name: 'first', description: 'one' });
        const read = await t.http.get(`/tags/${created.id}/`).auth(...alice);
        expect(read.status).toBe(200);
        expect(read.body).toEqual(created);

        const put = await t.http.put(`/tags/${created.id}/`).auth(...alice).type('form').send({ name: 'replaced', description: 'two' });
        expect(put.status).toBe(200);
        expect(put.body).toMatchObject({ id: created.id, name: 'replaced', description: 'two' });

        const patch = await t.http.patch(`/tags/${created.id}/`).auth(...alice).send({ description: 'three' });
        expect(patch.status).toBe(200);
        expect(patch.body).toMatchObject({ id: created.id, name: 'replaced', description: 'three' });

        const tooLong = await t.http.patch(`/tags/${created.id}/`).auth(...alice).send({ name: 'x'.repeat(13) });
        expect(tooLong.status).toBe(400);
        expect(tooLong.body).toEqual({ name: ['nameの最大文字数は12文字です'] });

        const deleted = await t.http.delete(`/tags/${created.id}/`).auth(...alice);
        expect(deleted.status).toBe(204);
        expect(deleted.text).toBe('');
        const gone = await t.http.get(`/tags/${created.id}/`).auth(...alice);
        expect(gone.status).toBe(404);
        expect(gone.body).toEqual({ detail: '見つかりませんでした。' });
      });

      test('an unknown pk is 404 for every method', async () => {
        for (const method of ['get', 'put', 'patch', 'delete'] as const) {
          const res = await t.http[method]('/tags/9999/').auth(...alice).type('form').send({ name: 'x' });
          expect([method, res.status, res.body]).toEqual([method, 404, { detail: '見つかりませんでした。' }]);
        }
      });

      test('no credentials: 401 with the Basic challenge, for the list and for a tag', async () => {
        const { body: created } = await paginatedCreate({ name: 'private' });
        for (const url of ['/tags/', `/tags/${created.id}/`]) {
          const res = await t.http.get(url);
          expect(res.status).toBe(401);
          expect(res.headers['www-authenticate']).toBe('Basic realm="api"');
          expect(res.body).toEqual({ detail: '認証情報が含まれていません。' });
        }
        expect((await t.http.post('/tags/').type('form').send({ name: 'anon' })).status).toBe(401);
        expect((await t.http.get('/tags/').auth(...alice)).body.count).toBe(1);
      });
    });

    describe('the token site (bearer tokens, under /api)', () => {
      test("creating answers 201 with the tag under Laravel's default key, data", async () => {
        const res = await tokenCreate({ name: 'alpha', description: 'first' });
        expect(res.status).toBe(201);
        expect(Object.keys(res.body)).toEqual(['data']);
        expect(Object.keys(res.body.data)).toEqual(['id', 'name', 'description', 'created_at']);
        expect(res.body.data).toMatchObject({ name: 'alpha', description: 'first' });
        expect(res.body.data.created_at).toMatch(TOKEN_TIMESTAMP);
      });

      test('lists every tag under data, unpaginated, in its own declared order (newest id first)', async () => {
        for (const name of ['one', 'two', 'three']) await tokenCreate({ name }).expect(201);
        const res = await t.http.get('/api/tags').auth(bearer, { type: 'bearer' });
        expect(res.status).toBe(200);
        expect(Object.keys(res.body)).toEqual(['data']);
        expect(names(res.body.data)).toEqual(['three', 'two', 'one']);
      });

      test("takes names up to the column's 30 characters, the paginated site's rule not applying", async () => {
        const res = await tokenCreate({ name: 'x'.repeat(30) });
        expect(res.status).toBe(201);
        const read = await t.http.get(`/tags/${res.body.data.id}/`).auth(...alice);
        expect(read.body.name).toBe('x'.repeat(30));
      });

      test('a name over 30 characters is a 422 with the message and the errors naming the field', async () => {
        const res = await tokenCreate({ name: 'x'.repeat(31) });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({
          message: 'The name field must not be greater than 30 characters.',
          errors: { name: ['The name field must not be greater than 30 characters.'] },
        });
      });

      test('a missing name is a 422 naming it', async () => {
        const res = await tokenCreate({ description: 'nameless' });
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ message: 'The name field is required.', errors: { name: ['The name field is required.'] } });
      });

      test('a tag is read, updated and deleted (200 []) by its pk, and an unknown pk names the model', async () => {
        const { body: created } = await tokenCreate({ name: 'first' });
        const id = created.data.id as number;
        const auth = (req: ReturnType<typeof t.http.get>) => req.auth(bearer, { type: 'bearer' }).set('Accept', 'application/json');
        expect((await auth(t.http.get(`/api/tags/${id}`))).body).toEqual(created);
        const patched = await auth(t.http.patch(`/api/tags/${id}`)).send({ description: 'patched' });
        expect(patched.status).toBe(200);
        expect(patched.body.data).toMatchObject({ id, name: 'first', description: 'patched' });
        const deleted = await auth(t.http.delete(`/api/tags/${id}`));
        expect(deleted.status).toBe(200);
        expect(deleted.body).toEqual([]);
        const gone = await auth(t.http.get(`/api/tags/${id}`));
        expect(gone.status).toBe(404);
        expect(gone.body).toEqual({ message: `No query results for model [Tag] ${id}` });
        const japanese = await auth(t.http.get(`/api/tags/${id}`)).set('Accept-Language', 'ja');
        expect(japanese.body).toEqual({ message: `Tag ${id} は見つかりません。` });
      });

      test('no token: 401 Unauthenticated', async () => {
        const res = await t.http.get('/api/tags').set('Accept', 'application/json');
        expect(res.status).toBe(401);
        expect(res.body).toEqual({ message: 'Unauthenticated.' });
      });
    });

    describe('its lists, queried as declared (filters, search, ordering, cursor)', () => {
      const seed = async (): Promise<void> => {
        for (const [name, description] of [['Rust', 'systems'], ['rusty', 'old iron'], ['Go', 'gophers'], ['TypeScript', 'typed js']] as const) {
          await paginatedCreate({ name, description }).expect(201);
        }
      };
      const bearerGet = (query: string) => t.http.get(`/api/tags${query}`).auth(bearer, { type: 'bearer' }).set('Accept', 'application/json');

      test('every field its lists filter, order or search by has the index its migration made', async () => {
        expect(await missingQueryIndexes(t.services.sequelize.getQueryInterface(), fixtureDeclarations)).toEqual([]);
      });

      test("the root site: search, name__icontains, ordering and a cursor in DRF's words", async () => {
        await seed();
        const get = async (query: string) => (await t.http.get(`/tags/${query}`).auth(...alice)).body;
        expect(names((await get('?search=rust&page_size=5')).results)).toEqual(['Rust', 'rusty']);
        expect(names((await get('?search=iron')).results)).toEqual(['rusty']);
        expect(names((await get('?name__icontains=T&page_size=5')).results)).toEqual(['Rust', 'TypeScript', 'rusty']);
        expect(names((await get('?ordering=-name')).results)).toEqual(['rusty', 'TypeScript']);
        const first = await get('?cursor=');
        expect(Object.keys(first)).toEqual(['next', 'previous', 'results']);
        expect(names(first.results)).toEqual(['Go', 'Rust']);
        const next = new URL(first.next as string);
        expect(names((await get(next.search)).results)).toEqual(['TypeScript', 'rusty']);
      });

      test("the token site: filter[name], filter[search] and sort in spatie's words; unknown names are its 400", async () => {
        await seed();
        expect(names((await bearerGet('?filter[name]=rust')).body.data)).toEqual(['rusty', 'Rust']);
        expect(names((await bearerGet('?filter[search]=gopher')).body.data)).toEqual(['Go']);
        expect(names((await bearerGet('?sort=name')).body.data)).toEqual(['Go', 'Rust', 'TypeScript', 'rusty']);
        const unknown = await bearerGet('?filter[description]=x');
        expect(unknown.status).toBe(400);
        expect(unknown.body).toEqual({ message: 'Requested filter(s) `description` are not allowed. Allowed filter(s) are `name, created_at, search`.' });
      });

      test('created_at, which only the token site shows, is filtered and ordered by there only; the root site ignores it', async () => {
        await seed();
        const get = async (query: string) => (await t.http.get(`/tags/${query}`).auth(...alice)).body;
        expect(names((await get('?created_at__gte=2999-01-01T00:00:00&page_size=5')).results)).toEqual(['Go', 'Rust', 'TypeScript', 'rusty']);
        expect(names((await get('?ordering=-created_at&page_size=5')).results)).toEqual(['Go', 'Rust', 'TypeScript', 'rusty']);
        expect((await t.http.options('/tags/').auth(...alice)).body).toMatchObject({ filters: ['name', 'name__icontains'], ordering_fields: ['name'] });
        expect((await bearerGet('?filter[created_at]=>=2999-01-01T00:00:00Z')).body.data).toEqual([]);
        expect(names((await bearerGet('?sort=-created_at')).body.data)).toEqual(['TypeScript', 'Go', 'rusty', 'Rust']);
      });
    });

    describe('the admin site', () => {
      let staff: Agent;
      beforeAll(async () => {
        await t.app.warm();
        staff = await adminAgent(t, 'stella', 'stella-password');
      }, ADMIN_LOAD_TIMEOUT);

      test('lists the tags made through the APIs, under the declared name', async () => {
        await paginatedCreate({ name: 'fromapi', description: 'made over Basic' }).expect(201);
        const res = await staff.get('/admin/api/resources/tags/actions/list').set('Accept-Language', 'en');
        expect(res.status).toBe(200);
        const records = res.body.records as { params: Record<string, unknown>; title: string }[];
        expect(records.map((record) => record.params.name)).toEqual(['fromapi']);
        expect(records[0]?.title).toBe('fromapi');
        const page = await staff.get('/admin/resources/tags').set('Accept-Language', 'en');
        expect(page.status).toBe(200);
        expect(page.text).toContain('"tags":"Tag"');
      });

      test('a tag created by staff shows up on both APIs', async () => {
        const res = await submit(staff, 'tags/actions/new', { name: 'fromadmin', description: 'made by staff' });
        expect(res.status).toBe(200);
        expect(res.body.notice).toEqual({ message: 'successfullyCreated', type: 'success' });
        const paginated = await t.http.get('/tags/').auth(...alice);
        expect(paginated.body.results).toEqual([expect.objectContaining({ name: 'fromadmin', description: 'made by staff' })]);
        const token = await t.http.get('/api/tags').auth(bearer, { type: 'bearer' });
        expect(token.body.data).toEqual([expect.objectContaining({ name: 'fromadmin', description: 'made by staff' })]);
      });

      test("the admin saves through the column's rules: a 31-character name is refused and nothing is saved", async () => {
        const res = await submit(staff, 'tags/actions/new', { name: 'x'.repeat(31) });
        expect(Object.keys(res.body.record.errors)).toEqual(['name']);
        expect(await t.services.registry.get('Tag').model.count()).toBe(0);
      });
    });

    describe('the OpenAPI description (GET /openapi.json)', () => {
      let document: JsonObject;
      /** The same document with every `$ref` replaced by what it points at. */
      let resolved: JsonObject;
      let validity: { valid: boolean; errors?: unknown };
      beforeAll(async () => {
        const res = await t.http.get('/openapi.json');
        expect(res.status).toBe(200);
        document = res.body as JsonObject;
        const validator = new Validator();
        validity = await validator.validate(structuredClone(document));
        resolved = validator.resolveRefs();
      });

      const operation = (path: string, method: string) => dig(resolved, 'paths', path, method);
      const requestSchema = (path: string, type: string) => dig(operation(path, 'post'), 'requestBody', 'content', type, 'schema');
      const responseSchema = (path: string, method: string, status: string) =>
        dig(operation(path, method), 'responses', status, 'content', 'application/json', 'schema');

      test('is a valid OpenAPI 3.1 document', () => {
        expect(validity).toEqual({ valid: true });
        expect(document.openapi).toMatch(/^3\.1\./);
      });

      test('has the list and detail paths of both sites, with the methods their actions allow', () => {
        const paths = dig(document, 'paths');
        expect(Object.keys(paths)).toEqual(expect.arrayContaining(['/tags/', '/tags/{pk}/', '/api/tags', '/api/tags/{pk}']));
        for (const list of ['/tags/', '/api/tags']) {
          expect(Object.keys(dig(paths, list))).toEqual(expect.arrayContaining(['get', 'post']));
        }
        for (const detail of ['/tags/{pk}/', '/api/tags/{pk}']) {
          expect(Object.keys(dig(paths, detail))).toEqual(expect.arrayContaining(['get', 'put', 'patch', 'delete']));
        }
      });

      test("describes the POST body with the fields and each site's maxLength, only the name required", () => {
        for (const [path, maxLength] of [
          ['/tags/', 12],
          ['/api/tags', 30],
        ] as const) {
          for (const type of ['application/json', 'application/x-www-form-urlencoded']) {
            const schema = requestSchema(path, type);
            expect([path, type, Object.keys(dig(schema, 'properties'))]).toEqual([path, type, ['name', 'description']]);
            expect(dig(schema, 'properties', 'name')).toMatchObject({ type: 'string', maxLength });
            expect(dig(schema, 'properties', 'description')).not.toHaveProperty('maxLength');
            expect(schema.required).toEqual(['name']);
          }
        }
      });

      test('names its operations by the declared name, in English and in Japanese', async () => {
        const japanese = await t.http.get('/openapi.json').set('Accept-Language', 'ja');
        expect(japanese.status).toBe(200);
        for (const [language, described] of [
          ['en', document],
          ['ja', japanese.body as JsonObject],
        ] as const) {
          for (const path of ['/tags/', '/tags/{pk}/', '/api/tags', '/api/tags/{pk}']) {
            const summary = dig(described, 'paths', path, 'get').summary;
            expect([language, path, summary]).toEqual([language, path, expect.stringMatching(/^Tag\b/)]);
            expect([language, path, summary]).not.toEqual([language, path, expect.stringMatching(/resources:|undefined/)]);
          }
        }
      });

      test('documents the answers the sites give for it', async () => {
        const created = await paginatedCreate({ name: 'described', description: 'by the document' });
        expect(created.status).toBe(201);
        expect(schemaErrors(responseSchema('/tags/', 'post', '201'), created.body)).toEqual([]);
        const page = await t.http.get('/tags/').auth(...alice);
        expect(schemaErrors(responseSchema('/tags/', 'get', '200'), page.body)).toEqual([]);
        const refused = await paginatedCreate({ name: 'n'.repeat(13) });
        expect(refused.status).toBe(400);
        expect(schemaErrors(responseSchema('/tags/', 'post', '400'), refused.body)).toEqual([]);

        const token = await tokenCreate({ name: 'described too' });
        expect(token.status).toBe(201);
        expect(schemaErrors(responseSchema('/api/tags', 'post', '201'), token.body)).toEqual([]);
        const list = await t.http.get('/api/tags').auth(bearer, { type: 'bearer' });
        expect(schemaErrors(responseSchema('/api/tags', 'get', '200'), list.body)).toEqual([]);
        const invalid = await tokenCreate({ name: 'x'.repeat(31) });
        expect(invalid.status).toBe(422);
        expect(schemaErrors(responseSchema('/api/tags', 'post', '422'), invalid.body)).toEqual([]);
      });
    });
  });
});
