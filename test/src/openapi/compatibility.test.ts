import { describe, expect, test } from '@jest/globals';
import { useTestApp } from '../../helpers/app.js';
import { compareDescriptions, describeChange, type ContractChange, type OpenApiDescription } from '../../../src/openapi/compatibility.js';

type Json = Record<string, unknown>;

/** A comment as the tiny documents below answer it. */
const comment = (): Json => ({
  type: 'object',
  properties: { id: { type: 'integer' }, title: { type: 'string' }, owner: { type: ['string', 'null'] } },
  required: ['id', 'title'],
});

/** What a client sends to create one. */
const commentBody = (): Json => ({
  type: 'object',
  properties: { title: { type: 'string', minLength: 1, maxLength: 10 }, status: { enum: ['draft', 'published'] } },
  required: ['title'],
});

/** A small description: a list, a create and a detail, with the parts the tests change. */
function description(): { paths: Record<string, Record<string, Json>> } & OpenApiDescription {
  return {
    paths: {
      '/comments/': {
        get: {
          operationId: 'comments_list',
          summary: 'List comments',
          tags: ['comments'],
          parameters: [{ name: 'page', in: 'query', schema: { type: 'integer', minimum: 1 } }],
          responses: {
            '200': {
              description: 'OK',
              content: {
                'application/json': { schema: { type: 'object', properties: { results: { type: 'array', items: comment() } }, required: ['results'] } },
              },
            },
            '404': { description: 'Not found', content: { 'application/json': { schema: { type: 'object', properties: { detail: { type: 'string' } } } } } },
          },
        },
        post: {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: commentBody() }, 'multipart/form-data': { schema: commentBody() } },
          },
          responses: { '201': { description: 'Created', content: { 'application/json': { schema: { type: 'object', properties: { comment: comment() } } } } } },
        },
      },
      '/comments/{pk}/': {
        get: {
          parameters: [{ name: 'pk', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: { '200': { description: 'OK', content: { 'application/json': { schema: comment() } } } },
        },
        delete: { responses: { '204': { description: 'Deleted' } } },
      },
    },
  };
}

/** The description after `change`, on a copy. */
function changed(change: (document: ReturnType<typeof description>) => void): ReturnType<typeof description> {
  const document = description();
  change(document);
  return document;
}

/** Walks a chain of keys into a JSON value of the test's own making. */
function at(value: unknown, ...keys: (string | number)[]): Json {
  let node = value;
  for (const key of keys) node = (node as Record<string | number, unknown>)[key];
  return node as Json;
}

const breaking = (changes: ContractChange[]): ContractChange[] => changes.filter((change) => change.kind === 'breaking');

describe('compareDescriptions', () => {
  test('finds no change between identical descriptions', () => {
    expect(compareDescriptions(description(), description())).toEqual([]);
  });

  test('ignores texts: summaries, descriptions, examples, operation ids, tags', () => {
    const current = changed((document) => {
      const list = at(document.paths, '/comments/', 'get');
      list.summary = 'Every comment';
      list.operationId = 'listComments';
      list.tags = ['other'];
      at(list, 'responses', '200').description = 'The comments';
      at(list, 'responses', '200', 'content', 'application/json').example = { results: [] };
      at(list, 'responses', '200', 'content', 'application/json', 'schema', 'properties', 'results').description = 'A page';
    });
    expect(compareDescriptions(description(), current)).toEqual([]);
  });

  test('a removed path is breaking', () => {
    const current = changed((document) => {
      delete document.paths['/comments/{pk}/'];
    });
    expect(compareDescriptions(description(), current)).toEqual([{ kind: 'breaking', where: '/comments/{pk}/', what: 'path removed' }]);
  });

  test('a path parameter renamed is the same path, not a removed one', () => {
    const current = changed((document) => {
      const item = document.paths['/comments/{pk}/'];
      delete document.paths['/comments/{pk}/'];
      document.paths['/comments/{id}/'] = item as Record<string, Json>;
      at(item, 'get', 'parameters', 0).name = 'id';
    });
    expect(compareDescriptions(description(), current)).toEqual([]);
  });

  test('a removed method is breaking', () => {
    const current = changed((document) => {
      delete document.paths['/comments/{pk}/']?.delete;
    });
    expect(compareDescriptions(description(), current)).toEqual([{ kind: 'breaking', where: 'DELETE /comments/{pk}/', what: 'method removed' }]);
  });

  test('a removed response status is breaking, an error status as much as a success', () => {
    const current = changed((document) => {
      delete at(document.paths, '/comments/', 'get', 'responses')['404'];
      delete at(document.paths, '/comments/{pk}/', 'delete', 'responses')['204'];
      at(document.paths, '/comments/{pk}/', 'delete', 'responses')['200'] = { description: 'Deleted' };
    });
    expect(compareDescriptions(description(), current)).toEqual([
      { kind: 'breaking', where: 'GET /comments/', what: 'response 404 removed' },
      { kind: 'breaking', where: 'DELETE /comments/{pk}/', what: 'response 204 removed' },
      { kind: 'additive', where: 'DELETE /comments/{pk}/', what: 'new response 200' },
    ]);
  });

  test('a removed response field is breaking, found inside arrays', () => {
    const current = changed((document) => {
      delete at(document.paths, '/comments/', 'get', 'responses', '200', 'content', 'application/json', 'schema', 'properties', 'results', 'items', 'properties').title;
    });
    const changes = compareDescriptions(description(), current);
    expect(changes).toEqual([{ kind: 'breaking', where: 'GET /comments/ → 200', what: 'response field `results[].title` removed' }]);
    expect(changes.map(describeChange)).toEqual(['breaking: GET /comments/ → 200: response field `results[].title` removed']);
  });

  test('a renamed wrapper key shows as the removal of the old one', () => {
    const current = changed((document) => {
      const schema = at(document.paths, '/comments/', 'post', 'responses', '201', 'content', 'application/json', 'schema');
      schema.properties = { data: comment() };
    });
    expect(compareDescriptions(description(), current)).toEqual([
      { kind: 'breaking', where: 'POST /comments/ → 201', what: 'response field `comment` removed' },
      { kind: 'additive', where: 'POST /comments/ → 201', what: 'new response field `data`' },
    ]);
  });

  test('a response field that may now be null or of another type is breaking; one that can no longer be null is not', () => {
    const current = changed((document) => {
      const fields = at(document.paths, '/comments/{pk}/', 'get', 'responses', '200', 'content', 'application/json', 'schema', 'properties');
      fields.title = { type: ['string', 'null'] };
      fields.id = { type: 'string' };
      fields.owner = { type: 'string' };
    });
    expect(compareDescriptions(description(), current)).toEqual([
      { kind: 'breaking', where: 'GET /comments/{pk}/ → 200', what: 'response field `id` may now be string' },
      { kind: 'additive', where: 'GET /comments/{pk}/ → 200', what: 'response field `id` is no longer integer' },
      { kind: 'breaking', where: 'GET /comments/{pk}/ → 200', what: 'response field `title` may now be null' },
      { kind: 'additive', where: 'GET /comments/{pk}/ → 200', what: 'response field `owner` is no longer null' },
    ]);
  });

  test('a response field no longer required is breaking: it may be absent', () => {
    const current = changed((document) => {
      at(document.paths, '/comments/{pk}/', 'get', 'responses', '200', 'content', 'application/json', 'schema').required = ['id'];
    });
    expect(compareDescriptions(description(), current)).toEqual([
      { kind: 'breaking', where: 'GET /comments/{pk}/ → 200', what: 'response field `title` may now be absent' },
    ]);
  });

  test('a request field that accepts fewer types is breaking (the reverse of a response)', () => {
    const current = changed((document) => {
      for (const mediaType of ['application/json', 'multipart/form-data']) {
        at(document.paths, '/comments/', 'post', 'requestBody', 'content', mediaType, 'schema', 'properties').title = { type: 'integer' };
      }
    });
    expect(breaking(compareDescriptions(description(), current))).toEqual([
      { kind: 'breaking', where: 'POST /comments/ request body', what: 'request field `title` no longer accepts string' },
    ]);
  });

  test('a newly required request field is breaking, and names the media type when only one changed', () => {
    const current = changed((document) => {
      at(document.paths, '/comments/', 'post', 'requestBody', 'content', 'application/json', 'schema').required = ['title', 'status'];
      const form = at(document.paths, '/comments/', 'post', 'requestBody', 'content', 'multipart/form-data', 'schema');
      at(form, 'properties').body = { type: 'string' };
      form.required = ['title', 'body'];
    });
    expect(compareDescriptions(description(), current)).toEqual([
      { kind: 'breaking', where: 'POST /comments/ request body (application/json)', what: 'request field `status` now required' },
      { kind: 'breaking', where: 'POST /comments/ request body (multipart/form-data)', what: 'new required request field `body`' },
    ]);
  });

  test('a new required parameter, or one that becomes required, is breaking', () => {
    const current = changed((document) => {
      const list = at(document.paths, '/comments/', 'get');
      list.parameters = [
        { name: 'page', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } },
        { name: 'owner', in: 'query', required: true, schema: { type: 'integer' } },
      ];
    });
    expect(compareDescriptions(description(), current)).toEqual([
      { kind: 'breaking', where: 'GET /comments/', what: 'query parameter `page` now required' },
      { kind: 'breaking', where: 'GET /comments/', what: 'new required query parameter `owner`' },
    ]);
  });

  test('a narrower limit on a request field or a parameter is breaking', () => {
    const current = changed((document) => {
      for (const mediaType of ['application/json', 'multipart/form-data']) {
        at(document.paths, '/comments/', 'post', 'requestBody', 'content', mediaType, 'schema', 'properties').title = { type: 'string', minLength: 2, maxLength: 8 };
      }
      at(document.paths, '/comments/', 'get', 'parameters', 0).schema = { type: 'integer', minimum: 1, maximum: 100 };
    });
    expect(compareDescriptions(description(), current)).toEqual([
      { kind: 'breaking', where: 'GET /comments/', what: '`maximum` 100 added to query parameter `page`' },
      { kind: 'breaking', where: 'POST /comments/ request body', what: '`maxLength` of request field `title` lowered from 10 to 8' },
      { kind: 'breaking', where: 'POST /comments/ request body', what: '`minLength` of request field `title` raised from 1 to 2' },
    ]);
  });

  test('a removed enum value of a request field is breaking', () => {
    const current = changed((document) => {
      for (const mediaType of ['application/json', 'multipart/form-data']) {
        at(document.paths, '/comments/', 'post', 'requestBody', 'content', mediaType, 'schema', 'properties').status = { enum: ['draft'] };
      }
    });
    expect(compareDescriptions(description(), current)).toEqual([
      { kind: 'breaking', where: 'POST /comments/ request body', what: 'request field `status` no longer has the value `published`' },
    ]);
  });

  test('a removed request media type is breaking', () => {
    const current = changed((document) => {
      delete at(document.paths, '/comments/', 'post', 'requestBody', 'content')['multipart/form-data'];
    });
    expect(compareDescriptions(description(), current)).toEqual([
      { kind: 'breaking', where: 'POST /comments/', what: 'request media type `multipart/form-data` no longer accepted' },
    ]);
  });

  test('a removed query parameter is breaking: the server refuses it, or answers as if it was not sent', () => {
    const current = changed((document) => {
      at(document.paths, '/comments/', 'get').parameters = [];
    });
    expect(compareDescriptions(description(), current)).toEqual([{ kind: 'breaking', where: 'GET /comments/', what: 'query parameter `page` removed' }]);
  });

  test('a removed request field is breaking: the server no longer reads it', () => {
    const current = changed((document) => {
      for (const mediaType of ['application/json', 'multipart/form-data']) {
        delete at(document.paths, '/comments/', 'post', 'requestBody', 'content', mediaType, 'schema', 'properties').status;
      }
    });
    expect(compareDescriptions(description(), current)).toEqual([
      { kind: 'breaking', where: 'POST /comments/ request body', what: 'request field `status` removed (no longer read)' },
    ]);
  });

  test('a way to authenticate no longer accepted is breaking', () => {
    const accepted = changed((document) => {
      at(document.paths, '/comments/', 'get').security = [{ sessionCookie: [] }, { basicAuth: [] }];
    });
    const current = changed((document) => {
      at(document.paths, '/comments/', 'get').security = [{ sessionCookie: [] }];
    });
    expect(compareDescriptions(accepted, current)).toEqual([
      { kind: 'breaking', where: 'GET /comments/', what: 'authentication by basicAuth no longer accepted' },
    ]);
  });

  test('alternatives (anyOf) are matched by shape, not by place', () => {
    const page = (): Json => ({ type: 'object', properties: { count: { type: 'integer' }, results: { type: 'array', items: comment() } } });
    const cursor = (): Json => ({ type: 'object', properties: { next_cursor: { type: ['string', 'null'] }, results: { type: 'array', items: comment() } } });
    const withAlternatives = (alternatives: Json[]): ReturnType<typeof description> =>
      changed((document) => {
        at(document.paths, '/comments/', 'get', 'responses', '200', 'content', 'application/json').schema = { anyOf: alternatives };
      });
    expect(compareDescriptions(withAlternatives([page(), cursor()]), withAlternatives([cursor(), page()]))).toEqual([]);

    const shorter = cursor();
    delete at(shorter, 'properties').next_cursor;
    expect(compareDescriptions(withAlternatives([page(), cursor()]), withAlternatives([shorter, page()]))).toEqual([
      { kind: 'breaking', where: 'GET /comments/ → 200', what: 'response field `next_cursor` removed' },
    ]);
    expect(breaking(compareDescriptions(withAlternatives([page()]), withAlternatives([page(), cursor()])))).toEqual([
      { kind: 'breaking', where: 'GET /comments/ → 200', what: 'response body may now take a new shape (`anyOf` #2)' },
    ]);
  });

  test('follows $refs into the components', () => {
    const withComponents = (fields: Json): OpenApiDescription => ({
      paths: {
        '/c': { get: { responses: { '200': { description: 'OK', content: { 'application/json': { schema: { $ref: '#/components/schemas/Comment' } } } } } } },
      },
      components: { schemas: { Comment: { type: 'object', properties: fields } } },
    });
    expect(compareDescriptions(withComponents({ id: { type: 'integer' } }), withComponents({ id: { type: 'integer' } }))).toEqual([]);
    expect(compareDescriptions(withComponents({ id: { type: 'integer' } }), withComponents({}))).toEqual([
      { kind: 'breaking', where: 'GET /c → 200', what: 'response field `id` removed' },
    ]);
  });

  test('reports additions as additive only', () => {
    const current = changed((document) => {
      document.paths['/tags/'] = { get: { responses: { '200': { description: 'OK' } } } };
      at(document.paths, '/comments/{pk}/').put = { responses: { '200': { description: 'OK' } } };
      at(document.paths, '/comments/', 'get', 'responses')['429'] = { description: 'Too many requests' };
      at(document.paths, '/comments/{pk}/', 'get', 'responses', '200', 'content', 'application/json', 'schema', 'properties').body = { type: 'string' };
      (at(document.paths, '/comments/', 'get').parameters as Json[]).push({ name: 'owner', in: 'query', schema: { type: 'integer' } });
      at(document.paths, '/comments/', 'get', 'parameters', 0).schema = { type: 'integer', minimum: 0 };
      for (const mediaType of ['application/json', 'multipart/form-data']) {
        at(document.paths, '/comments/', 'post', 'requestBody', 'content', mediaType).schema = {
          type: 'object',
          properties: {
            title: { type: 'string', minLength: 1, maxLength: 20 },
            status: { enum: ['draft', 'published', 'archived'] },
            body: { type: 'string' },
          },
          required: ['title'],
        };
      }
    });
    const changes = compareDescriptions(description(), current);
    expect(breaking(changes)).toEqual([]);
    expect(changes.map(describeChange)).toEqual([
      'additive: GET /comments/: `minimum` of query parameter `page` lowered from 1 to 0',
      'additive: GET /comments/: new optional query parameter `owner`',
      'additive: GET /comments/: new response 429',
      'additive: POST /comments/ request body: `maxLength` of request field `title` raised from 10 to 20',
      'additive: POST /comments/ request body: request field `status` has a new value `archived`',
      'additive: POST /comments/ request body: new optional request field `body`',
      'additive: GET /comments/{pk}/ → 200: new response field `body`',
      'additive: PUT /comments/{pk}/: new method',
      'additive: /tags/: new path',
    ]);
  });
});

describe('compareDescriptions on the application’s own description', () => {
  const t = useTestApp();
  const served = async (): Promise<{ paths: Record<string, Record<string, unknown>> }> =>
    (await t.http.get('/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };

  test('finds no change between the description and itself', async () => {
    expect(compareDescriptions(await served(), await served())).toEqual([]);
  });

  test('finds a response field deleted from a copy, as breaking', async () => {
    const accepted = await served();
    const current = structuredClone(accepted);
    const detail = at(current.paths, '/comments/{pk}/', 'get', 'responses', '200', 'content', 'application/json', 'schema', 'properties');
    expect(detail.title).toBeDefined();
    delete detail.title;
    expect(compareDescriptions(accepted, current)).toEqual([
      { kind: 'breaking', where: 'GET /comments/{pk}/ → 200', what: 'response field `title` removed' },
    ]);
  });

  test('finds a field deleted from one of a list’s alternatives (its pagination styles), and only that', async () => {
    const accepted = await served();
    const current = structuredClone(accepted);
    const alternatives = at(current.paths, '/comments/', 'get', 'responses', '200', 'content', 'application/json', 'schema').anyOf as Json[];
    expect(alternatives.length).toBeGreaterThan(1);
    delete at(alternatives[alternatives.length - 1], 'properties', 'results', 'items', 'properties').title;
    expect(compareDescriptions(accepted, current)).toEqual([
      { kind: 'breaking', where: 'GET /comments/ → 200', what: 'response field `results[].title` removed' },
    ]);
  });

  test('finds a renamed wrapper key of the JSON:API-style site', async () => {
    const accepted = await served();
    const current = structuredClone(accepted);
    const wrapper = at(current.paths, '/api/comments/{pk}', 'get', 'responses', '200', 'content', 'application/json', 'schema');
    const fields = at(wrapper, 'properties');
    fields.data = fields.comment;
    delete fields.comment;
    wrapper.required = (wrapper.required as string[] | undefined)?.map((name) => (name === 'comment' ? 'data' : name));
    expect(breaking(compareDescriptions(accepted, current)).map(describeChange)).toEqual([
      'breaking: GET /api/comments/{pk} → 200: response field `comment` removed',
    ]);
  });
});
