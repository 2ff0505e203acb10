import { describe, expect, test } from '@jest/globals';
import comment from '../../resources/comment.js';
import { missingQueryIndexes, neededIndexes } from '../../src/db/query-indexes.js';
import { loadDeclarations } from '../../src/registry.js';
import { defineResource, field } from '../../src/resource.js';
import { createApp } from '../../src/app.js';
import { createServices } from '../../src/services.js';
import { testConfig, useTestApp } from '../helpers/app.js';
import type { ListQuery } from '../../src/types/declaration.js';

describe('list queries in the declarations', () => {
  test('the comment lists are filtered by owner, title and update time, searched in title and body, ordered by three fields', () => {
    expect(Object.keys(comment.query.filters)).toEqual(['user_id', 'title', 'updated_at']);
    expect(comment.query.search).toEqual(['title', 'body']);
    expect(comment.query.orderingFields).toEqual(['id', 'title', 'updated_at']);
    // The owner's id is shown by no list, and filtered all the same: the declaration says so.
    expect(comment.query.unshown).toEqual(['user_id']);
    expect(comment.sites.paginated.pagination).toEqual({ styles: ['limitOffset', 'cursor'] });
    expect(comment.sites.token.pagination).toEqual({ styles: ['page', 'cursor'] });
  });

  describe('every field a list filters, orders or searches by has its index, made by the migrations', () => {
    const t = useTestApp();

    test('none is missing', async () => {
      expect(await missingQueryIndexes(t.services.sequelize.getQueryInterface(), await loadDeclarations())).toEqual([]);
    });

    test('a declaration whose migration made none is told field by field', async () => {
      const needy = defineResource({
        name: 'Needy',
        table: 'comments',
        fields: { id: field.id(), body: field.text() },
        query: { filters: { body: ['exact'] }, search: ['body'], orderingFields: ['id'] },
      });
      expect(neededIndexes(needy)).toEqual({ ordered: new Set(['body']), text: new Set(['body']) });
      expect(await missingQueryIndexes(t.services.sequelize.getQueryInterface(), [needy])).toEqual([{ table: 'comments', field: 'body', kind: 'ordered' }]);
    });
  });

  test('a page style the site does not speak fails when the app is made', async () => {
    const odd = defineResource({
      name: 'Odd',
      table: 'odd',
      fields: { id: field.id() },
      sites: { token: { path: 'odd', actions: ['list'], fields: ['id'], pagination: { styles: ['limitOffset'] } } },
    });
    const services = await createServices(testConfig(), { declarations: [...(await loadDeclarations()), odd], migrate: false });
    try {
      expect(() => createApp(services)).toThrow('Odd: site token has no limitOffset pagination');
    } finally {
      await services.close();
    }
  });

  describe('mistakes fail when the declaration loads', () => {
    const declare = (query: ListQuery, extra: object = {}) =>
      defineResource({
        name: 'Broken',
        table: 'broken',
        fields: { id: field.id(), name: field.string(), secret: field.string({ hidden: true }), seen: field.datetime({ nullable: true }), page: field.string() },
        query,
        ...extra,
      });

    test.each<[string, ListQuery, string]>([
      ['an unknown field', { filters: { nope: ['exact'] } }, 'query.filters names unknown field "nope"'],
      ['a hidden field', { search: ['secret'] }, 'query.search names hidden field "secret"'],
      ['a lookup the kind has not', { filters: { name: ['gte'] } }, 'query.filters.name cannot use "gte" on a string field'],
      ['isnull on a field never null', { filters: { name: ['isnull'] } }, 'uses isnull on a field that is never null'],
      ['a search of no text', { search: ['seen'] }, 'names "seen", which is no text field'],
      ['a filter named like a query parameter', { filters: { page: ['exact'] } }, 'cannot filter "page"'],
      ['an expansion of no reference', { expand: ['name'] }, 'names "name", which is no relation'],
      ['ordering by a hidden field', { orderingFields: ['secret'] }, 'query.orderingFields names hidden field "secret"'],
    ])('%s', (_what, query, message) => {
      expect(() => declare(query)).toThrow(message);
    });

    test('a mistake in a declaration stops the services as the application\'s, not the database\'s', async () => {
      const orphan = defineResource({ name: 'Orphan', table: 'orphans', fields: { id: field.id(), parent: field.reference('Nowhere', { as: 'parent', onDelete: 'CASCADE' }) } });
      await expect(createServices(testConfig(), { declarations: [orphan], migrate: false })).rejects.toMatchObject({ name: 'ApplicationError', message: expect.stringContaining('Nowhere') });
    });

    test('a hidden reference cannot be expanded', () => {
      const fields = { id: field.id(), reviewer: field.reference('User', { as: 'reviewer', hidden: true, nullable: true, onDelete: 'SET NULL' }) };
      expect(() => defineResource({ name: 'Secretive', table: 'secretive', fields, query: { expand: ['reviewer'] } })).toThrow('names "reviewer", which is no relation');
    });

    test('a page size above its maximum is refused', () => {
      const sites = { paginated: { path: 'broken', actions: ['list'] as const, fields: ['id'], pagination: { pageSize: 10, maxPageSize: 5 } } };
      expect(() => declare({}, { sites })).toThrow('pageSize is above maxPageSize');
    });

    test.each([0, -1, 2.5])('a whole list of at most %s rows is refused', (maxWholeList) => {
      const sites = { token: { path: 'broken', actions: ['list'] as const, fields: ['id'], pagination: { maxWholeList } } };
      expect(() => declare({}, { sites })).toThrow('sites.token.pagination sizes must be positive integers');
    });

    test('a cursor cannot follow a field that may be null', () => {
      const sites = { paginated: { path: 'broken', actions: ['list'] as const, fields: ['id', 'seen'], pagination: { styles: ['cursor'] as const } } };
      expect(() => declare({ orderingFields: ['seen'] }, { sites })).toThrow('pages by cursor, so it cannot order by "seen"');
    });
  });
});
