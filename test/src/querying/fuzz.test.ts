import { describe, expect, test } from '@jest/globals';
import { apiToken, credentials, useTestApp } from '../../helpers/app.js';
import { LARAVEL_COMMENTS, seedComments } from '../../helpers/querying.js';
import { FUZZ_SEED as SEED, generator } from '../../helpers/random.js';

const REQUESTS = 600;

const DRF_NAMES = [
  'user_id', 'user_id__in', 'user_id__isnull', 'owner', 'owner__isnull', 'title', 'title__icontains', 'title__in',
  'created_at__gt', 'created_at__gte', 'updated_at__lt', 'updated_at__lte', 'search', 'ordering', 'fields', 'expand',
  'page', 'page_size', 'limit', 'offset', 'cursor', 'format', 'title__regex', 'title[]', 'user_id[0]',
];
const SPATIE_NAMES = [
  'filter[user_id]', 'filter[title]', 'filter[created_at]', 'filter[updated_at]', 'filter[search]', 'filter[body]', 'filter[user_id][]',
  'filter', 'filter[]', 'filter[title][x]', 'sort', 'sort[]', 'fields[comments]', 'fields[users]', 'fields', 'include', 'include[]',
  'page', 'per_page', 'cursor', 'format',
];
const VALUES = [
  '', '1', '2', '-1', '0', '1.5', '1e999', 'NaN', '99999999999999999999999999', '-99999999999999999999', '1,2', ',,,', '1,abc',
  'abc', '%', '_', '\\', "'", '"', '""', "' OR 1=1 --", '"; DROP TABLE comments; --', '%00', '\u0000', 'spring', 'SPRING', 'tea green',
  '"green tea"', '桜', '桜の季節', '👍👍👍', '\ud800', 'x'.repeat(5000), Array.from({ length: 300 }, (_, i) => i).join(','),
  'true', 'false', 'maybe', '2026-01-01', '2026-01-01T00:00:00', '2026-02-30', '>=2024-01-01T00:00:05Z', '<2024-01-01', '<>1', '=>1',
  '0001-01-01T00:00:00+14:00', '>=0001-01-01T00:00:00+14:00', '9999-12-31T23:59:59-14:00', '<=9999-12-31T23:59:59-14:00', '0001-01-01',
  '>=', 'last', '-id', 'id,-title', '--id', 'body', '-updated_at,id', 'title,id,secret', 'comments.id', 'owner', 'owner,comments',
  'garbage', 'e30', 'eyJpZCI6MSwiX3BvaW50c1RvTmV4dEl0ZW1zIjp0cnVlfQ', 'json', 'api', 'xml',
];

describe('list queries never fail: any mix of parameters and values gets an answer in the documented format', () => {
  let token = '';
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
    await t.createUser('bob');
    await seedComments(t, LARAVEL_COMMENTS);
    token = await apiToken(t, 'alice');
  });

  test(`${REQUESTS} random queries of both dialects (seed ${SEED})`, async () => {
    const random = generator(SEED);
    const failures: string[] = [];
    for (let i = 0; i < REQUESTS; i += 1) {
      const root = random.int(2) === 0;
      const names = root ? DRF_NAMES : SPATIE_NAMES;
      const search = new URLSearchParams();
      for (let n = 1 + random.int(4); n > 0; n -= 1) search.append(random.pick(names), random.pick(VALUES));
      const path = `${root ? '/comments/' : '/api/comments'}${random.int(8) === 0 ? '1' : ''}?${search.toString()}`;
      const request = t.http.get(path).set('Accept', random.pick(['application/json', 'text/html', '*/*']));
      const res = await (root ? request.auth(...credentials('alice')) : request.auth(token, { type: 'bearer' }));
      const allowed = root ? [200, 400, 404] : [200, 400, 404, 422];
      const json = (res.headers['content-type'] ?? '').startsWith('application/json');
      if (!allowed.includes(res.status) || (json && res.text !== '' && res.body === undefined)) failures.push(`${res.status} GET ${path}`);
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
