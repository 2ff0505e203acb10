import { describe, expect, test } from '@jest/globals';
import { DrfQueryDialect } from '../../../src/querying/drf.js';
import { offeredQuery } from '../../../src/querying/declaration.js';
import { SpatieQueryDialect } from '../../../src/querying/spatie.js';
import { querySpec } from '../../../src/querying/spec.js';
import { defineResource, field } from '../../../src/resource.js';
import { parseTimestamp } from '../../../src/timestamps.js';
import { translator } from '../../../src/i18n.js';
import { useTestApp } from '../../helpers/app.js';
import type { ListQuery } from '../../../src/types/declaration.js';
import type { SiteExposure } from '../../../src/types/resource.js';

/**
 * A site filters, searches and orders a list only by the fields it shows,
 * unless the declaration names a field in `unshown`: any other comparison
 * would let a client read a value the site never shows, one question at a time.
 */
const FIELDS = {
  id: field.id(),
  name: field.string(),
  notes: field.text(),
  stamped_at: field.datetime(),
  secret: field.string({ hidden: true }),
};

/** A root site that shows the name only, and a token site that also shows the notes and the stamp. */
const SITES = {
  paginated: { path: 'things', actions: ['list'], fields: ['id', 'name'] },
  token: { path: 'things', actions: ['list'], fields: ['id', 'name', 'notes', 'stamped_at'] },
} as const satisfies Record<string, SiteExposure>;

const declare = (query: ListQuery, sites: Record<string, SiteExposure> = SITES) => defineResource({ name: 'Thing', table: 'things', fields: FIELDS, query, sites });

describe('what each site offers of a list query', () => {
  const query: ListQuery = { filters: { name: ['exact'], stamped_at: ['lte'] }, search: ['name', 'notes'], orderingFields: ['id', 'stamped_at'] };
  /** What `site` offers of `query`, declared with `sites`. */
  const offeredOn = (site: keyof typeof SITES, declared: ListQuery, sites: Record<keyof typeof SITES, SiteExposure> = SITES): ListQuery =>
    offeredQuery(declare(declared, sites), sites[site]);

  test('a field one site shows and the other does not is offered on the first only', () => {
    expect(offeredOn('paginated', query)).toMatchObject({ filters: { name: ['exact'] }, search: ['name'], orderingFields: ['id'] });
    expect(offeredOn('token', query)).toMatchObject(query);
  });

  test('`unshown` on the resource opens a field on every site; on a site, on that site only', () => {
    expect(offeredOn('paginated', { ...query, unshown: ['stamped_at', 'notes'] })).toMatchObject(query);
    const sites = { ...SITES, paginated: { ...SITES.paginated, query: { unshown: ['stamped_at'] } } };
    expect(offeredOn('paginated', query, sites)).toMatchObject({ filters: query.filters, search: ['name'], orderingFields: ['id', 'stamped_at'] });
    expect(offeredOn('token', query, sites)).toMatchObject(query);
  });

  test('what compares no value is left as declared', () => {
    expect(offeredOn('paginated', { ...query, sparseFields: true, expand: [] })).toMatchObject({ sparseFields: true, expand: [] });
  });
});

describe('a query that names a field no site would offer it on fails when the declaration loads', () => {
  const hidden = { paginated: SITES.paginated, token: { ...SITES.token, fields: ['id', 'name'] } } as const;

  test.each<[string, ListQuery, string]>([
    ['a filter', { filters: { stamped_at: ['lte'] } }, 'Resource Thing: query.filters names "stamped_at", which no site shows (paginated, token): show it, name it in query.unshown if its values are no secret, or leave it out'],
    ['a search field', { search: ['name', 'notes'] }, 'query.search names "notes", which no site shows'],
    ['an ordering', { orderingFields: ['stamped_at'] }, 'query.orderingFields names "stamped_at", which no site shows'],
  ])('%s on the resource', (_what, query, message) => {
    expect(() => declare(query, hidden)).toThrow(message);
  });

  test("a site's own query naming a field that site does not show", () => {
    const sites = { ...SITES, paginated: { ...SITES.paginated, query: { orderingFields: ['stamped_at'] } } };
    expect(() => declare({}, sites)).toThrow('sites.paginated.query.orderingFields names "stamped_at", which the site does not show: show it, name it in sites.paginated.query.unshown');
  });

  test('`unshown` takes known, visible fields that the query compares', () => {
    expect(() => declare({ filters: { stamped_at: ['lte'] }, unshown: ['nope'] }, hidden)).toThrow('query.unshown names unknown field "nope"');
    expect(() => declare({ filters: { stamped_at: ['lte'] }, unshown: ['secret'] }, hidden)).toThrow('query.unshown names hidden field "secret"');
    expect(() => declare({ filters: { stamped_at: ['lte'] }, unshown: ['stamped_at', 'notes'] }, hidden)).toThrow('query.unshown names "notes", which the query neither filters, searches nor orders by');
    const sites = { ...hidden, token: { ...hidden.token, query: { unshown: ['notes'] } } };
    expect(() => declare({ filters: { name: ['exact'] } }, sites)).toThrow('sites.token.query.unshown names "notes", which the query neither');
  });

  test('named in `unshown`, on the resource or on the one site that takes it, the same fields are accepted', () => {
    expect(() => declare({ filters: { stamped_at: ['lte'] }, search: ['notes'], orderingFields: ['stamped_at'], unshown: ['stamped_at', 'notes'] }, hidden)).not.toThrow();
    const sites = { ...hidden, token: { ...hidden.token, query: { unshown: ['stamped_at'] } } };
    expect(() => declare({ filters: { stamped_at: ['lte'] } }, sites)).not.toThrow();
  });

  test('a resource without sites offers nothing, so its query is only checked for itself', () => {
    expect(() => defineResource({ name: 'Siteless', table: 'siteless', fields: FIELDS, query: { filters: { stamped_at: ['lte'] } } })).not.toThrow();
  });
});

describe("each dialect's words for what a site offers", () => {
  const t = useTestApp();
  const en = translator('en', ['openapi', 'common']);
  const drf = new DrfQueryDialect(parseTimestamp);
  const spatie = new SpatieQueryDialect(parseTimestamp);
  const exposure = (query: ListQuery): SiteExposure => ({ path: 'comments', actions: ['list'], fields: ['id', 'title'], query });
  const spec = (query: ListQuery) => querySpec(t.services.registry.get('Comment'), exposure(query), ['id', 'title']);
  const compared: ListQuery = { filters: { title: ['exact'], created_at: ['lte'] }, search: ['title', 'body'], orderingFields: ['title', 'created_at'], unshown: [], sparseFields: false, expand: [] };

  test('OPTIONS and the API description name only the comparisons on shown fields', () => {
    const shown = spec(compared);
    expect(drf.metadata(shown)).toEqual({ filters: ['title'], search_fields: ['title'], ordering_fields: ['title'] });
    expect(spatie.metadata(shown)).toEqual({ allowed_filters: ['title', 'search'], allowed_sorts: ['title'] });
    expect(drf.listParameters(shown, en).map((parameter) => parameter.name)).toEqual(['title', 'search', 'ordering']);
    expect(spatie.listParameters(shown, en).map((parameter) => parameter.name)).toEqual(['filter[title]', 'filter[search]', 'sort']);
  });

  test('and those on the fields the exposure names in `unshown`', () => {
    const opened = spec({ ...compared, unshown: ['created_at', 'body'] });
    expect(drf.metadata(opened)).toEqual({ filters: ['title', 'created_at__lte'], search_fields: ['title', 'body'], ordering_fields: ['title', 'created_at'] });
    expect(spatie.metadata(opened)).toEqual({ allowed_filters: ['title', 'created_at', 'search'], allowed_sorts: ['title', 'created_at'] });
  });
});
