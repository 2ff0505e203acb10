import { describe, expect, test } from '@jest/globals';
import { apiToken, useTestApp } from '../helpers/app.js';
import { LARAVEL_COMMENTS, local, seedComments } from '../helpers/querying.js';

type Item = Record<string, unknown>;
interface Paged {
  comments: Item[];
  links: { first: string | null; last: string | null; prev: string | null; next: string | null };
  meta: Record<string, unknown>;
}

/**
 * The comment list under /api, queried in spatie/laravel-query-builder's
 * words, over the nine comments of the Laravel reference transcripts.
 */
describe('querying the comment list under /api (spatie dialect)', () => {
  let token = '';
  let ids: number[] = [];
  const t = useTestApp(async (t) => {
    await t.createUser('alice', { name: 'Alice' });
    await t.createUser('bob', { name: 'Bob' });
    ids = await seedComments(t, LARAVEL_COMMENTS);
    token = await apiToken(t, 'alice');
  });

  const get = (query: string, path = '/api/comments') => t.http.get(`${path}${query}`).auth(token, { type: 'bearer' }).set('Accept', 'application/json');
  const listed = async (query: string): Promise<unknown[]> => {
    const res = await get(query);
    expect(res.status).toBe(200);
    return (res.body.comments as Item[]).map((item) => item.id);
  };
  const seeded = (...places: number[]): number[] => places.map((place) => ids[place - 1] ?? -1);

  describe('filters', () => {
    test('filter[title] is a partial match ignoring case; commas give any of them', async () => {
      expect(await listed('?filter[title]=spring')).toEqual(seeded(1, 2));
      expect(await listed('?filter[title]=spring,rain')).toEqual(seeded(1, 2, 9));
    });

    test('% and _ are literal characters', async () => {
      expect(await listed('?filter[title]=50%25')).toEqual(seeded(5));
      expect(await listed('?filter[title]=snake_')).toEqual(seeded(6));
      expect(await listed('?filter[title]=e_c')).toEqual(seeded(6));
    });

    test('filter[user_id] is exact; commas give any of them', async () => {
      expect(await listed('?filter[user_id]=2')).toEqual(seeded(7, 8, 9));
      expect(await listed('?filter[user_id]=1,2')).toEqual(seeded(1, 2, 3, 4, 5, 6, 7, 8, 9));
      expect(await listed('?filter[user_id][]=2&filter[user_id][]=1')).toHaveLength(9);
    });

    test('filters combine', async () => {
      expect(await listed('?filter[title]=spring&filter[user_id]=1')).toEqual(seeded(1, 2));
    });

    test('times take spatie\'s dynamic operators, each of them holding', async () => {
      expect(await listed('?filter[updated_at]=>=2024-01-01T00:00:08Z')).toEqual(seeded(8, 9));
      expect(await listed(`?filter[updated_at]=${encodeURIComponent('>2024-01-01T00:00:02Z,<2024-01-01T00:00:05Z')}`)).toEqual(seeded(3, 4));
      expect(await listed('?filter[updated_at]=<=2024-01-01 00:00:01')).toEqual(seeded(1));
    });

    test('filter[search] finds every term in the title or the body', async () => {
      expect(await listed('?filter[search]=tea')).toEqual(seeded(2, 7));
      expect(await listed('?filter[search]=tea%20snow')).toEqual(seeded(7));
    });

    test('an empty filter is no filter, except NULL for a nullable field that declares isnull', async () => {
      expect(await listed('?filter[title]=')).toHaveLength(9);
      expect(await listed('?filter[user_id]=')).toEqual([]);
    });

    test("an unknown filter is spatie's 400", async () => {
      const res = await get('?filter[body]=tea');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: 'Requested filter(s) `body` are not allowed. Allowed filter(s) are `user_id, title, updated_at, search`.',
      });
    });

    test("a value of the wrong kind is Laravel's 422 naming filter.<field>", async () => {
      const res = await get('?filter[user_id]=abc');
      expect(res.status).toBe(422);
      expect(res.body).toEqual({
        message: 'The filter.user id field must be a number.',
        errors: { 'filter.user_id': ['The filter.user id field must be a number.'] },
      });
      const operator = await get('?filter[updated_at]=<>2024-01-01');
      expect(operator.status).toBe(422);
      expect(operator.body.errors).toEqual({ 'filter.updated_at': ['The filter.updated at field must start with one of: >=, <=, >, <.'] });
      expect((await get('?filter[updated_at]=>=yesterday')).body.errors).toEqual({ 'filter.updated_at': ['The filter.updated at field must be a valid date.'] });
    });

    test('a partial filter takes at most ten values too short for the text index, each a scan of the table; longer ones up to a hundred', async () => {
      const short = (count: number) => Array.from({ length: count }, (_, i) => `q${i}`.slice(0, 2)).join(',');
      expect(await listed(`?filter[title]=${short(10)},spring`)).toEqual(seeded(1, 2));
      const res = await get(`?filter[title]=${short(11)}`);
      expect(res.status).toBe(422);
      expect(res.body.errors).toEqual({ 'filter.title': ['The filter.title field must not have more than 10 items shorter than 3 characters.'] });
      const long = Array.from({ length: 100 }, (_, i) => `spring${i}`).join(',');
      expect((await get(`?filter[title]=${long}`)).status).toBe(200);
    });

    test('filter given as plain text is ignored, as spatie does', async () => {
      expect(await listed('?filter=title')).toHaveLength(9);
    });
  });

  describe('sorting', () => {
    test('sort=-id reverses the list; sort=title orders by the bytes of the title', async () => {
      expect(await listed('?sort=-id')).toEqual(seeded(9, 8, 7, 6, 5, 4, 3, 2, 1));
      expect(await listed('?sort=title')).toEqual(seeded(5, 3, 1, 9, 6, 2, 8, 7, 4));
      expect(await listed('?sort=-updated_at,id')).toEqual(seeded(9, 8, 7, 6, 5, 4, 3, 2, 1));
    });

    test("an unknown sort is spatie's 400, named without its minus", async () => {
      const res = await get('?sort=-body');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Requested sort(s) `body` is not allowed. Allowed sort(s) are `id, title, updated_at`.' });
    });
  });

  describe('fields and includes', () => {
    test('fields[comments] shows only the named fields', async () => {
      const res = await get('?fields[comments]=id,title');
      expect(res.body.comments[0]).toEqual({ id: ids[0], title: 'Spring' });
      expect((await get('?fields=title')).body.comments[0]).toEqual({ title: 'Spring' });
    });

    test("an unknown field is spatie's 400, with the type before each name", async () => {
      const res = await get('?fields[comments]=id,body,secret');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        message: 'Requested field(s) `comments.secret` are not allowed. Allowed field(s) are `comments.id, comments.title, comments.body, comments.updated_at`.',
      });
      expect((await get('?fields[users]=name')).body.message).toMatch(/^Requested field\(s\) `users.name` are not allowed/);
    });

    test("include=owner adds the owner's name", async () => {
      const res = await get('?include=owner&filter[title]=autumn');
      expect(res.body).toEqual({
        comments: [{ id: ids[2], title: 'Autumn', body: 'red leaves', updated_at: '2024-01-01T00:00:03.000000Z', owner: 'Alice' }],
      });
    });

    test("an unknown include is spatie's 400", async () => {
      const res = await get('?include=comments');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ message: 'Requested include(s) `comments` are not allowed. Allowed include(s) are `owner`.' });
    });

    test('a single comment takes fields and include too', async () => {
      const res = await get('?fields[comments]=title', `/api/comments/${ids[0]}`);
      expect(res.body).toEqual({ comment: { title: 'Spring' } });
      expect((await get('?include=nope', `/api/comments/${ids[0]}`)).status).toBe(400);
    });
  });

  describe('pages (Laravel paginate)', () => {
    const page = async (query: string): Promise<Paged> => {
      const res = await get(query);
      expect(res.status).toBe(200);
      return res.body as Paged;
    };

    test('per_page gives the first page with links and meta', async () => {
      const body = await page('?per_page=2');
      expect(body.comments.map((item) => item.id)).toEqual(seeded(1, 2));
      expect(Object.keys(body)).toEqual(['comments', 'links', 'meta']);
      expect({ first: local(body.links.first), last: local(body.links.last), prev: body.links.prev, next: local(body.links.next) }).toEqual({
        first: '/api/comments?per_page=2&page=1',
        last: '/api/comments?per_page=2&page=5',
        prev: null,
        next: '/api/comments?per_page=2&page=2',
      });
      const { links, path, ...meta } = body.meta;
      expect(meta).toEqual({ current_page: 1, from: 1, last_page: 5, per_page: 2, to: 2, total: 9 });
      expect(local(path as string)).toBe('/api/comments');
      expect((links as Item[]).map((link) => [link.label, local(link.url as string | null), link.active])).toEqual([
        ['&laquo; Previous', null, false],
        ['1', '/api/comments?per_page=2&page=1', true],
        ['2', '/api/comments?per_page=2&page=2', false],
        ['3', '/api/comments?per_page=2&page=3', false],
        ['4', '/api/comments?per_page=2&page=4', false],
        ['5', '/api/comments?per_page=2&page=5', false],
        ['Next &raquo;', '/api/comments?per_page=2&page=2', false],
      ]);
    });

    test('a middle page links both ways, and the page comes last in the links', async () => {
      const body = await page('?page=3&per_page=2');
      expect(body.comments.map((item) => item.id)).toEqual(seeded(5, 6));
      expect(local(body.links.prev)).toBe('/api/comments?per_page=2&page=2');
      expect(local(body.links.next)).toBe('/api/comments?per_page=2&page=4');
      expect(body.meta).toMatchObject({ current_page: 3, from: 5, to: 6 });
    });

    test('the last page has no next; a page past it is empty', async () => {
      const last = await page('?page=5&per_page=2');
      expect(last.comments.map((item) => item.id)).toEqual(seeded(9));
      expect(last.links.next).toBeNull();
      const beyond = await page('?page=50&per_page=2');
      expect(beyond.comments).toEqual([]);
      expect(beyond.meta).toMatchObject({ current_page: 50, from: null, to: null, total: 9 });
      expect(local(beyond.links.prev)).toBe('/api/comments?per_page=2&page=49');
    });

    test('a page that is no positive number is page 1, with the default 15 a page', async () => {
      for (const query of ['?page=0', '?page=-1', '?page=abc', '?page=99999999999999999999999&per_page=0']) {
        const body = await page(query);
        expect(body.meta.per_page).toBe(15);
        if (!query.includes('9999')) expect(body.meta).toMatchObject({ current_page: 1, last_page: 1, total: 9 });
      }
      expect(local((await page('?page=0')).links.first)).toBe('/api/comments?page=1');
    });

    test('per_page past the maximum is the maximum; one that is no number, the default', async () => {
      expect((await page('?per_page=1000')).meta.per_page).toBe(100);
      expect((await page('?per_page=abc')).meta.per_page).toBe(15);
      expect((await page('?per_page=-1')).meta.per_page).toBe(15);
    });

    test('the links keep the filters, in the order sent', async () => {
      const body = await page('?filter[title]=s&page=1&per_page=2');
      expect(body.meta.total).toBe(5);
      expect(local(body.links.next)).toBe('/api/comments?filter%5Btitle%5D=s&per_page=2&page=2');
    });

    test("the links rebuild the client's parameters as PHP reads them: arrays together, RFC 3986 escapes", async () => {
      const body = await page(`?filter[title]=s&per_page=1&filter[user_id]=1&x=${encodeURIComponent('*~ a')}`);
      expect(local(body.links.next)).toBe('/api/comments?filter%5Btitle%5D=s&filter%5Buser_id%5D=1&per_page=1&x=%2A~%20a&page=2');
    });

    test('many pages are linked as Laravel does: the first two, a window, the last two', async () => {
      const body = await page('?per_page=1&page=5');
      const labels = (body.meta.links as Item[]).map((link) => link.label);
      expect(labels).toEqual(['&laquo; Previous', '1', '2', '3', '4', '5', '6', '7', '8', '9', 'Next &raquo;']);
    });
  });

  describe('cursor pages (Laravel cursorPaginate)', () => {
    test('a cursor walks the list both ways in its order', async () => {
      const first = (await get('?cursor=&per_page=4&sort=-id')).body as Paged;
      expect(first.comments.map((item) => item.id)).toEqual(seeded(9, 8, 7, 6));
      expect(first.links).toMatchObject({ first: null, last: null, prev: null });
      expect(first.meta).toMatchObject({ per_page: 4, prev_cursor: null });
      expect(local(first.links.next)).toBe(`/api/comments?per_page=4&sort=-id&cursor=${String(first.meta.next_cursor)}`);
      const second = (await get(local(first.links.next)?.replace('/api/comments', '') ?? '')).body as Paged;
      expect(second.comments.map((item) => item.id)).toEqual(seeded(5, 4, 3, 2));
      const third = (await get(local(second.links.next)?.replace('/api/comments', '') ?? '')).body as Paged;
      expect(third.comments.map((item) => item.id)).toEqual(seeded(1));
      expect(third.links.next).toBeNull();
      const back = (await get(local(third.links.prev)?.replace('/api/comments', '') ?? '')).body as Paged;
      expect(back.comments.map((item) => item.id)).toEqual(seeded(5, 4, 3, 2));
    });

    test('a damaged cursor is a 404 in JSON', async () => {
      const res = await get('?cursor=bm9wZQ');
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ message: 'The cursor is invalid.' });
    });
  });

  test('with no new parameter the list is the whole list, as the document says', async () => {
    const res = await get('');
    expect(Object.keys(res.body)).toEqual(['comments']);
    expect((res.body.comments as Item[]).map((item) => item.id)).toEqual(seeded(1, 2, 3, 4, 5, 6, 7, 8, 9));
  });

  test('OPTIONS names what may be asked, in spatie\'s words', async () => {
    const res = await t.http.options('/api/comments').auth(token, { type: 'bearer' });
    expect(res.body).toMatchObject({
      allowed_filters: ['user_id', 'title', 'updated_at', 'search'],
      allowed_sorts: ['id', 'title', 'updated_at'],
      allowed_fields: ['comments.id', 'comments.title', 'comments.body', 'comments.updated_at'],
      allowed_includes: ['owner'],
    });
  });

  describe('a field the site does not show (created_at) is neither filtered nor sorted by', () => {
    test("filter[created_at] is spatie's 400 for a filter not allowed, so no bisection reads a creation time", async () => {
      for (const query of ['?filter[created_at]=<=2024-01-01T00:00:03Z', '?filter[created_at]=>2024-01-01T00:00:05Z&filter[title]=spring', '?filter[created_at]=']) {
        const res = await get(query);
        expect([res.status, res.body]).toEqual([400, { message: 'Requested filter(s) `created_at` are not allowed. Allowed filter(s) are `user_id, title, updated_at, search`.' }]);
      }
    });

    test("sort=created_at is spatie's 400 for a sort not allowed", async () => {
      for (const query of ['?sort=created_at', '?sort=-created_at,id', '?sort=created_at&per_page=2']) {
        const res = await get(query);
        expect([res.status, res.body]).toEqual([400, { message: 'Requested sort(s) `created_at` is not allowed. Allowed sort(s) are `id, title, updated_at`.' }]);
      }
    });

    test('the API description and the Filters form do not name it', async () => {
      const description = (await t.http.get('/openapi.json')).body as { paths: Record<string, { get: { parameters: { name: string; schema: { items?: { enum?: string[] } } }[] } }> };
      const parameters = description.paths['/api/comments']?.get.parameters ?? [];
      expect(parameters.map((parameter) => parameter.name)).toContain('filter[updated_at]');
      expect(parameters.map((parameter) => parameter.name)).not.toContain('filter[created_at]');
      expect(parameters.find((parameter) => parameter.name === 'sort')?.schema.items?.enum).toEqual(['id', '-id', 'title', '-title', 'updated_at', '-updated_at']);
      const page = await t.http.get('/api/comments').auth(token, { type: 'bearer' }).set('Accept', 'text/html');
      expect(page.text).toContain('name="filter[updated_at]"');
      expect(page.text).not.toContain('created_at');
    });

    test("the owner's id, which no list shows either, is filtered: the declaration names it in `unshown`", async () => {
      expect(await listed('?filter[user_id]=2&sort=-id')).toEqual(seeded(9, 8, 7));
    });
  });
});
