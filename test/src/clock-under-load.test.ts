import { afterEach, beforeEach, describe, expect, test } from '@jest/globals';
import { useTestApp } from '../helpers/app.js';
import { manualClock } from '../helpers/clock.js';

/**
 * A busy process keeps real time: requests that only read never move the
 * time the next write is stamped with, nor a token's expiry.
 */
describe('time on a busy process', () => {
  const t = useTestApp(async (t) => {
    await t.createUser('alice');
  });
  const time = manualClock();
  beforeEach(() => time.install());
  afterEach(() => time.restore());

  const login = async (extra: Record<string, unknown> = {}): Promise<Record<string, string>> => {
    const res = await t.http.post('/api/login').send({ email: 'alice@example.com', password: 'alice-password', ...extra });
    expect(res.status).toBe(201);
    return { Authorization: `Bearer ${res.body.token as string}`, Accept: 'application/json' };
  };

  /** Many bearer reads in one millisecond of the clock (the manual clock does not move by itself). */
  const busyReads = async (auth: Record<string, string>, count: number): Promise<void> => {
    for (let i = 0; i < count; i += 1) expect((await t.http.get('/api/user').set(auth)).status).toBe(200);
  };

  test('a comment written after a hundred reads in one millisecond is stamped in that millisecond', async () => {
    const auth = await login();
    await busyReads(auth, 100);
    const created = await t.http.post('/api/comments').set(auth).send({ title: 'after the rush', body: 'text' });
    expect(created.status).toBe(201);
    expect(created.body.comment.updated_at.slice(0, 23)).toBe(new Date(time.now()).toISOString().slice(0, 23));
  }, 60_000);

  test('a one-minute token read a hundred times in its last 50 ms is still let in until its minute is over', async () => {
    const auth = await login({ expires_in: 1 });
    time.advance(59_950);
    await busyReads(auth, 100);
    expect((await t.http.get('/api/user').set(auth)).status).toBe(200);
    time.advance(50);
    expect((await t.http.get('/api/user').set(auth)).status).toBe(401);
  }, 60_000);

  test('writes within one millisecond keep their order, microseconds apart, newest first', async () => {
    const auth = await login();
    const ids: number[] = [];
    for (const title of ['first', 'second', 'third']) {
      ids.push((await t.http.post('/api/comments').set(auth).send({ title, body: 'text' })).body.comment.id as number);
    }
    // Updated in the reverse order: the newest update comes first on the root site.
    for (const id of [...ids].reverse()) expect((await t.http.patch(`/api/comments/${id}`).set(auth).send({ body: 'edited' })).status).toBe(200);
    const list = await t.http.get('/comments/?page_size=5').auth('alice', 'alice-password');
    expect(list.body.results.slice(0, 3).map((row: { id: number }) => row.id)).toEqual(ids);
    const times = list.body.results.slice(0, 3).map((row: { updated_at: string }) => row.updated_at);
    expect(new Set(times.map((at: string) => at.slice(0, 23))).size).toBe(1);
    expect([...times].sort().reverse()).toEqual(times);
  });

  test('a cursor walks rows written within one millisecond once each, in order', async () => {
    const auth = await login();
    for (const title of ['a', 'b', 'c', 'd']) expect((await t.http.post('/api/comments').set(auth).send({ title, body: 'same ms' })).status).toBe(201);
    const everyRow = await t.http.get('/comments/?page_size=5').auth('alice', 'alice-password');
    const expected = everyRow.body.results.map((row: { id: number }) => row.id);
    const walked: number[] = [];
    let next: string | null = '/comments/?cursor=&page_size=1';
    while (next && walked.length <= expected.length) {
      const page = await t.http.get(next.replace(/^https?:\/\/[^/]+/, '')).auth('alice', 'alice-password');
      expect(page.status).toBe(200);
      walked.push(...page.body.results.map((row: { id: number }) => row.id));
      next = page.body.next as string | null;
    }
    expect(walked.slice(0, expected.length)).toEqual(expected);
  });

  test('a row changed twice within one millisecond takes a conditional write with its current tag, and refuses its former one', async () => {
    const auth = await login();
    const id = (await t.http.post('/api/comments').set(auth).send({ title: 'v1', body: 'text' })).body.comment.id as number;
    const first = await t.http.patch(`/api/comments/${id}`).set(auth).send({ title: 'v2' });
    const second = await t.http.patch(`/api/comments/${id}`).set(auth).send({ title: 'v3' });
    expect(second.headers.etag).not.toBe(first.headers.etag);
    const current = await t.http.get(`/api/comments/${id}`).set(auth);
    expect(current.headers.etag).toBe(second.headers.etag);
    expect((await t.http.patch(`/api/comments/${id}`).set(auth).set('If-Match', first.headers.etag as string).send({ title: 'stale' })).status).toBe(412);
    expect((await t.http.patch(`/api/comments/${id}`).set(auth).set('If-Match', current.headers.etag as string).send({ title: 'v4' })).status).toBe(200);
  });

  test('a filter by the time a list shows finds the rows of that microsecond, on either side of it', async () => {
    const auth = await login();
    for (const title of ['x', 'y', 'z']) expect((await t.http.post('/api/comments').set(auth).send({ title, body: 'filtered' })).status).toBe(201);
    const shown = (await t.http.get('/comments/?page_size=3').auth('alice', 'alice-password')).body.results as { id: number; updated_at: string }[];
    const [newest, middle, oldest] = shown as [{ id: number; updated_at: string }, { id: number; updated_at: string }, { id: number; updated_at: string }];
    const ids = async (query: string): Promise<number[]> => {
      const res = await t.http.get(`/comments/?page_size=5&${query}`).auth('alice', 'alice-password');
      expect(res.status).toBe(200);
      return (res.body.results as { id: number }[]).map((row) => row.id).filter((id) => [newest.id, middle.id, oldest.id].includes(id));
    };
    expect(await ids(`updated_at__gte=${encodeURIComponent(middle.updated_at)}`)).toEqual([newest.id, middle.id]);
    expect(await ids(`updated_at__gt=${encodeURIComponent(middle.updated_at)}`)).toEqual([newest.id]);
    expect(await ids(`updated_at__lte=${encodeURIComponent(middle.updated_at)}`)).toEqual([middle.id, oldest.id]);
  });
});
