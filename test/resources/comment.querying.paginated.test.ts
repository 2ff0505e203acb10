import { describe, expect, test } from '@jest/globals';
import { credentials, useTestApp } from '../helpers/app.js';
import { DRF_COMMENTS, local, seedComments } from '../helpers/querying.js';

interface Listed {
  count?: number;
  next: string | null;
  previous: string | null;
  results: Record<string, unknown>[];
}

/**
 * The comment list at the root, queried in Django REST Framework's words
 * (django-filter, SearchFilter, OrderingFilter, the three paginators), over
 * the six comments of the reference transcripts: each answer as DRF gave it.
 */
describe('querying the comment list at the root (Django REST Framework dialect)', () => {
  const alice = credentials('alice');
  let ids: number[] = [];
  let bob = 0;
  const t = useTestApp(async (t) => {
    await t.createUser('alice', { name: 'Alice' });
    bob = (await t.createUser('bob', { name: 'Bob' })).id;
    ids = await seedComments(t, DRF_COMMENTS);
  });

  const list = async (query: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Listed }> => {
    const res = await t.http.get(`/comments/${query}`).auth(...alice).set(headers);
    return { status: res.status, body: res.body as Listed };
  };
  /** The ids of the seeded comments by their place (1 = the oldest). */
  const seeded = (...places: number[]): number[] => places.map((place) => ids[place - 1] ?? -1);
  const idsOf = (body: Listed): unknown[] => body.results.map((item) => item.id);

  describe('search', () => {
    test('a term finds the comments whose title or body contains it, ignoring case', async () => {
      const { status, body } = await list('?search=spring');
      expect(status).toBe(200);
      expect(body.count).toBe(2);
      expect(idsOf(body)).toEqual(seeded(2, 1));
    });

    test('every term must be found, each in some field', async () => {
      const { body } = await list('?search=tea%20green');
      expect(idsOf(body)).toEqual(seeded(2));
    });

    test('a single Japanese character is found by a scan', async () => {
      const { body } = await list(`?search=${encodeURIComponent('桜')}`);
      expect(idsOf(body)).toEqual(seeded(4));
    });

    test('an empty search is no search, and stays in the links', async () => {
      const { body } = await list('?search=');
      expect(body.count).toBe(6);
      expect(local(body.next)).toBe('/comments/?page=2&search=');
    });

    test('a quoted phrase is one term, commas also separate terms', async () => {
      expect(idsOf((await list(`?search=${encodeURIComponent('"snow and"')}`)).body)).toEqual(seeded(5));
      expect(idsOf((await list('?search=spring,tea')).body)).toEqual(seeded(2));
    });

    test("the links escape as Python's urlencode does", async () => {
      const { body } = await list(`?x=${encodeURIComponent('*~ a')}`);
      expect(local(body.next)).toBe('/comments/?page=2&x=%2A~+a');
    });

    test('search, ordering and page size combine, and the links keep them sorted by name', async () => {
      const { body } = await list('?search=spring&ordering=id&page_size=1');
      expect(body.count).toBe(2);
      expect(idsOf(body)).toEqual(seeded(1));
      expect(local(body.next)).toBe('/comments/?ordering=id&page=2&page_size=1&search=spring');
    });
  });

  describe('ordering', () => {
    test('by an allowed field, ascending', async () => {
      const { body } = await list('?ordering=title');
      expect(idsOf(body)).toEqual(seeded(3, 1));
      expect(local(body.next)).toBe('/comments/?ordering=title&page=2');
    });

    test('by several fields, descending with a minus', async () => {
      const { body } = await list('?ordering=-id,title');
      expect(idsOf(body)).toEqual(seeded(6, 5));
      expect(local(body.next)).toBe('/comments/?ordering=-id%2Ctitle&page=2');
    });

    test('unknown names are ignored and the default order stays', async () => {
      const { body } = await list('?ordering=nope,body');
      expect(idsOf(body)).toEqual(seeded(6, 5));
    });

    test('every allowed field orders the whole list both ways', async () => {
      for (const field of ['id', 'title', 'updated_at']) {
        const ascending = (await list(`?ordering=${field}&page_size=5`)).body;
        const descending = (await list(`?ordering=-${field}&page_size=5`)).body;
        expect(ascending.results).toHaveLength(5);
        expect(idsOf(descending)[0]).toBe(field === 'title' ? seeded(4)[0] : seeded(6)[0]);
        expect(idsOf(ascending)[0]).toBe(field === 'title' ? seeded(3)[0] : seeded(1)[0]);
      }
    });
  });

  describe('filters', () => {
    test('exact title', async () => {
      expect(idsOf((await list('?title=Autumn')).body)).toEqual(seeded(3));
      expect((await list('?title=autumn')).body.count).toBe(0);
    });

    test('title__icontains ignores case', async () => {
      expect(idsOf((await list('?title__icontains=SPR')).body)).toEqual(seeded(2, 1));
    });

    test('title__in takes any of several titles', async () => {
      expect(idsOf((await list('?title__in=Autumn,summer')).body)).toEqual(seeded(6, 3));
    });

    test("an owner's comments", async () => {
      expect(idsOf((await list(`?user_id=${bob}`)).body)).toEqual(seeded(6, 5));
    });

    test('user_id__in takes several owners, and the links keep the list', async () => {
      const { body } = await list(`?user_id__in=1,${bob}`);
      expect(body.count).toBe(6);
      expect(local(body.next)).toBe(`/comments/?page=2&user_id__in=1%2C${bob}`);
    });

    test('a time range, with or without a zone, and a date alone', async () => {
      expect((await list('?updated_at__gte=2000-01-01T00:00:00')).body.count).toBe(6);
      // The third comment was written at 00:00:03 UTC (the site shows UTC by default).
      expect(idsOf((await list('?updated_at__lt=2024-01-01T00:00:03&page_size=5')).body)).toEqual(seeded(2, 1));
      expect(idsOf((await list('?updated_at__gt=2024-01-01T09:00:05%2B09:00')).body)).toEqual(seeded(6));
      expect((await list('?updated_at__lte=2024-01-01')).body.count).toBe(0);
    });

    test('empty values are no filter', async () => {
      expect((await list('?title=&user_id=&updated_at__gte=')).body.count).toBe(6);
    });

    test('filters combine with search', async () => {
      expect(idsOf((await list(`?search=tea&user_id=${bob}`)).body)).toEqual(seeded(5));
    });

    test('a reference is also filtered by its relation name, and isnull tells ownerless comments', async () => {
      expect((await list('?owner__isnull=true')).body.count).toBe(0);
      expect((await list('?user_id__isnull=false')).body.count).toBe(6);
      expect((await list(`?owner=${bob}`)).body.count).toBe(2);
      // A value that is no yes or no is no filter, as django-filter's BooleanFilter.
      expect((await list('?owner__isnull=maybe')).body.count).toBe(6);
    });
  });

  describe('field selection and expansion', () => {
    test('fields keeps the named fields, in their order, and ignores unknown names', async () => {
      const { body } = await list('?fields=title,id,password');
      expect(body.results[0]).toEqual({ id: ids[5], title: 'summer' });
    });

    test('fields naming nothing known shows every field', async () => {
      const { body } = await list('?fields=nope');
      expect(Object.keys(body.results[0] ?? {})).toEqual(['id', 'title', 'body', 'updated_at']);
    });

    test("expand=owner adds the owner's name", async () => {
      const { body } = await list('?expand=owner');
      expect(body.results[0]).toMatchObject({ id: ids[5], owner: 'Bob' });
      expect(Object.keys(body.results[0] ?? {})).toEqual(['id', 'title', 'body', 'updated_at', 'owner']);
    });

    test('a single comment takes fields and expand too', async () => {
      const res = await t.http.get(`/comments/${ids[0]}/?fields=title&expand=owner`).auth(...alice);
      expect(res.body).toEqual({ title: 'Spring', owner: 'Alice' });
    });
  });

  describe('bad values', () => {
    test("a filter value of the wrong kind is django-filter's 400, in Japanese", async () => {
      const res = await t.http.get('/comments/?user_id=abc').auth(...alice);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toBe('application/json');
      expect(res.body).toEqual({ user_id: ['数値を入力してください。'] });
    });

    test('a date that is no date names its parameter', async () => {
      expect((await list('?updated_at__gte=notadate')).body).toEqual({ updated_at__gte: ['日時を正しく入力してください。'] });
      expect((await list('?updated_at__gte=2026-02-30')).body).toEqual({ updated_at__gte: ['日時を正しく入力してください。'] });
    });

    test('several bad filters are reported together, in English when asked', async () => {
      const { status, body } = await list('?user_id=1.5&updated_at__gt=x&title__in=a', { 'Accept-Language': 'en' });
      expect(status).toBe(400);
      expect(body).toEqual({ user_id: ['Enter a whole number.'], updated_at__gt: ['Enter a valid date/time.'] });
    });

    test('more than 100 values in one filter are refused', async () => {
      const many = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
      expect((await list(`?user_id__in=${many}`)).body).toEqual({ user_id__in: ['値は 100 個までです。'] });
    });

    test('huge numbers, NUL characters, LIKE and SQL metacharacters are values like any other', async () => {
      expect((await list('?user_id=99999999999999999999999')).body.count).toBe(0);
      expect((await list('?user_id__in=-99999999999999999999,1')).body.count).toBe(4);
      expect((await list('?title=a%00b')).body).toEqual({ title: ['ヌル文字は使えません。'] });
      expect((await list('?search=%25')).body.count).toBe(0);
      expect((await list('?search=_')).body.count).toBe(0);
      expect((await list(`?title__icontains=${encodeURIComponent("'; DROP TABLE comments; --")}`)).body.count).toBe(0);
      expect((await list(`?search=${encodeURIComponent('") OR 1=1 --')}`)).body.count).toBe(0);
      expect((await list('?search=%00spring%00')).body.count).toBe(2);
    });

    test('a repeated parameter counts by its last value, as Django reads it', async () => {
      expect(idsOf((await list('?title=nothing&title=Autumn')).body)).toEqual(seeded(3));
      expect(idsOf((await list('?ordering=-id&ordering=title')).body)).toEqual(seeded(3, 1));
    });

    test('array-style and unknown parameters are ignored', async () => {
      expect((await list('?title[]=Autumn&foo=bar&title__regex=.*')).body.count).toBe(6);
    });
  });

  describe('limit and offset', () => {
    test('limit pages from the start, with the next offset in the link', async () => {
      const { body } = await list('?limit=2');
      expect(body).toMatchObject({ count: 6, previous: null });
      expect(idsOf(body)).toEqual(seeded(6, 5));
      expect(local(body.next)).toBe('/comments/?limit=2&offset=2');
    });

    test('the middle page links both ways; the second page back names no offset', async () => {
      const { body } = await list('?limit=2&offset=2');
      expect(idsOf(body)).toEqual(seeded(4, 3));
      expect(local(body.next)).toBe('/comments/?limit=2&offset=4');
      expect(local(body.previous)).toBe('/comments/?limit=2');
    });

    test('the last page has no next', async () => {
      const { body } = await list('?limit=2&offset=4');
      expect(idsOf(body)).toEqual(seeded(2, 1));
      expect(body.next).toBeNull();
      expect(local(body.previous)).toBe('/comments/?limit=2&offset=2');
    });

    test('a limit past the maximum is the maximum; a bad limit or offset, the default', async () => {
      const capped = (await list('?limit=100')).body;
      expect(capped.results).toHaveLength(5);
      expect(local(capped.next)).toBe('/comments/?limit=5&offset=5');
      expect(local((await list('?limit=abc')).body.next)).toBe('/comments/?limit=2&offset=2');
      expect(idsOf((await list('?offset=-1')).body)).toEqual(seeded(6, 5));
      expect((await list('?limit=0')).body.results).toHaveLength(2);
    });

    test('an offset past the end is an empty page whose previous link steps back by the limit', async () => {
      const { status, body } = await list('?offset=999');
      expect(status).toBe(200);
      expect(body).toMatchObject({ count: 6, next: null, results: [] });
      expect(local(body.previous)).toBe('/comments/?limit=2&offset=997');
      expect((await list('?offset=99999999999999999999999')).body.results).toEqual([]);
    });
  });

  describe('cursor', () => {
    const follow = async (link: string | null): Promise<Listed> => (await list(local(link)?.replace('/comments/', '') ?? '')).body;

    test('an empty cursor starts at the first page, with no count and no previous', async () => {
      const { status, body } = await list('?cursor=');
      expect(status).toBe(200);
      expect(Object.keys(body)).toEqual(['next', 'previous', 'results']);
      expect(idsOf(body)).toEqual(seeded(6, 5));
      expect(body.previous).toBeNull();
      expect(local(body.next)).toMatch(/^\/comments\/\?cursor=[A-Za-z0-9_-]+$/);
    });

    test('next and previous walk the whole list and back, the same pages each way', async () => {
      const forward: unknown[][] = [];
      let page = (await list('?cursor=')).body;
      forward.push(idsOf(page));
      while (page.next) {
        page = await follow(page.next);
        forward.push(idsOf(page));
      }
      expect(forward).toEqual([seeded(6, 5), seeded(4, 3), seeded(2, 1)]);
      const backward: unknown[][] = [idsOf(page)];
      while (page.previous) {
        page = await follow(page.previous);
        backward.push(idsOf(page));
      }
      expect(backward).toEqual([...forward].reverse());
      expect(page.previous).toBeNull();
    });

    test('page_size and ordering stay in the links, and order the pages', async () => {
      const sized = (await list('?cursor=&page_size=3')).body;
      expect(sized.results).toHaveLength(3);
      expect(local(sized.next)).toMatch(/^\/comments\/\?cursor=[^&]+&page_size=3$/);
      const byTitle = (await list('?cursor=&ordering=title')).body;
      expect(idsOf(byTitle)).toEqual(seeded(3, 1));
      expect(local(byTitle.next)).toMatch(/&ordering=title$/);
      expect(idsOf(await follow(byTitle.next))).toEqual(seeded(2, 6));
    });

    test("a cursor that is not one of this list's is DRF's 404", async () => {
      const expected = { detail: 'カーソルが不正です。' };
      for (const cursor of ['garbage', 'e30', Buffer.from('{"id":"1","_pointsToNextItems":true}').toString('base64url'), '%00']) {
        const res = await t.http.get(`/comments/?cursor=${cursor}`).auth(...alice);
        expect([res.status, res.body]).toEqual([404, expected]);
      }
      // A cursor of another order.
      const byTitle = (await list('?cursor=&ordering=title')).body;
      const cursor = new URL(byTitle.next ?? '').searchParams.get('cursor') ?? '';
      expect((await list(`?cursor=${cursor}`)).status).toBe(404);
    });

    test('a cursor survives rows written meanwhile: the next page starts after the last row seen', async () => {
      const first = (await list('?cursor=')).body;
      const created = await t.http.post('/comments/').auth(...alice).send({ title: 'new', body: 'meanwhile' });
      try {
        expect(idsOf(await follow(first.next))).toEqual(seeded(4, 3));
      } finally {
        await t.http.delete(`/comments/${created.body.id}/`).auth(...alice);
      }
    });
  });

  test('with no new parameter the list answers as the document says', async () => {
    const { body } = await list('');
    expect(Object.keys(body)).toEqual(['count', 'next', 'previous', 'results']);
    expect(body.count).toBe(6);
    expect(idsOf(body)).toEqual(seeded(6, 5));
    expect(local(body.next)).toBe('/comments/?page=2');
    expect(Object.keys(body.results[0] ?? {})).toEqual(['id', 'title', 'body', 'updated_at']);
  });

  test('OPTIONS names the filters, search and ordering fields', async () => {
    const res = await t.http.options('/comments/').auth(...alice);
    expect(res.body).toMatchObject({
      search_fields: ['title', 'body'],
      ordering_fields: ['id', 'title', 'updated_at'],
      expandable_fields: ['owner'],
    });
    expect(res.body.filters).toEqual(expect.arrayContaining(['user_id', 'user_id__in', 'title__icontains', 'updated_at__gte']));
  });

  describe('a field the site does not show (created_at) is neither filtered nor ordered by', () => {
    // Each comment was written a second after the one before (SEEDED_AT): the third at 00:00:03 UTC.
    test('created_at__lte is ignored as an unknown parameter, so no bisection reads a creation time', async () => {
      for (const query of ['?created_at__lte=2024-01-01T00:00:03', '?created_at__lte=2024-01-01', '?created_at__gt=2024-01-01T00:00:05', '?created_at=2024-01-01T00:00:01']) {
        const { status, body } = await list(`${query}&page_size=5`);
        expect([status, body.count, idsOf(body)]).toEqual([200, 6, seeded(6, 5, 4, 3, 2)]);
      }
      // Nor does a bad value of it tell that it is read.
      expect((await list('?created_at__lte=soon')).status).toBe(200);
    });

    test('ordering by it is ignored as an unknown name: the default order stays', async () => {
      expect(idsOf((await list('?ordering=created_at')).body)).toEqual(seeded(6, 5));
      expect(idsOf((await list('?ordering=-created_at,title')).body)).toEqual(seeded(3, 1));
      expect(idsOf((await list('?cursor=&ordering=created_at')).body)).toEqual(seeded(6, 5));
    });

    test('OPTIONS, the API description and the Filters form do not name it', async () => {
      const options = (await t.http.options('/comments/').auth(...alice)).body as { filters: string[]; ordering_fields: string[] };
      expect(options.filters.filter((name) => name.startsWith('created_at'))).toEqual([]);
      expect(options.ordering_fields).not.toContain('created_at');
      const description = (await t.http.get('/openapi.json')).body as { paths: Record<string, { get: { parameters: { name: string }[] } }> };
      const parameters = description.paths['/comments/']?.get.parameters.map((parameter) => parameter.name) ?? [];
      expect(parameters).toContain('updated_at__lte');
      expect(parameters.filter((name) => name.startsWith('created_at'))).toEqual([]);
      const page = await t.http.get('/comments/').auth(...alice).set('Accept', 'text/html');
      expect(page.text).toContain('name="updated_at__lte"');
      expect(page.text).toContain('ordering=-updated_at');
      expect(page.text).not.toContain('created_at');
    });

    test("the owner's id, which no list shows either, is filtered: the declaration names it in `unshown`", async () => {
      expect(idsOf((await list(`?user_id=${bob}`)).body)).toEqual(seeded(6, 5));
      expect((await t.http.options('/comments/').auth(...alice)).body.filters).toEqual(expect.arrayContaining(['user_id', 'owner__isnull']));
    });
  });
});

describe('cursor pages when the rows beyond are deleted meanwhile', () => {
  const alice = credentials('alice');
  let ids: number[] = [];
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    ids = await seedComments(t, DRF_COMMENTS);
  });
  const get = async (link: string | null): Promise<Listed> => (await t.http.get(local(link) ?? '').auth(...alice)).body as Listed;

  test('an empty page still links back to the page before it, the row the cursor stood on included', async () => {
    const first = await get('/comments/?cursor=');
    expect(first.results.map((item) => item.id)).toEqual([ids[5], ids[4]]);
    // Every row after the first page goes.
    await t.services.registry.get('Comment').model.destroy({ where: { id: ids.slice(0, 4) } });
    const empty = await get(first.next);
    expect(empty.results).toEqual([]);
    expect(empty.next).toBeNull();
    const back = await get(empty.previous);
    expect(back.results.map((item) => item.id)).toEqual([ids[5], ids[4]]);
    expect(back.previous).toBeNull();
  });
});
