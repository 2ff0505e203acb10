import path from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import type { Sequelize } from 'sequelize';
import { loadDeclarations } from '../../src/registry.js';
import { migrationsDir, projectRoot } from '../../src/paths.js';
import { field } from '../../src/resource.js';
import { apiToken, credentials, useTestApp, type TestApp } from '../helpers/app.js';
import type { ResourceDeclaration } from '../../src/types/resource.js';

/**
 * If-Match protects against lost updates only if the check and the write
 * cannot be separated by another write: simultaneous edits that name the
 * same version must let exactly one through, on the compiled path (the Memo
 * fixture as declared: one UPDATE statement) and on the Sequelize path (the
 * same Memo with hooks and a detail action, written in a transaction).
 */
const FIXTURE_DIR = path.join(projectRoot, 'test', 'fixtures', 'memo');
const [memo] = await loadDeclarations(FIXTURE_DIR);
const projectDeclarations = await loadDeclarations();
const SIMULTANEOUS = 6;

const withHooks: ResourceDeclaration = {
  ...(memo as ResourceDeclaration),
  hooks: {
    beforeUpdate: (ctx) => {
      if (ctx.data.title === 'refused by a hook') ctx.refuse('title', 'refused');
    },
    beforeDestroy: () => undefined,
  },
  actions: {
    retitle: {
      detail: true,
      input: { title: field.string({ maxLength: 50 }) },
      run: async (ctx) => {
        await ctx.update({ title: ctx.data.title });
      },
    },
  },
};

function storedRow(sequelize: Sequelize, id: number): Promise<Record<string, unknown> | null> {
  return sequelize.query('SELECT * FROM memos WHERE id = :id', { replacements: { id }, plain: true, type: 'SELECT' }) as Promise<Record<string, unknown> | null>;
}

function rootAuth(): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(credentials('alice').join(':')).toString('base64')}`, Accept: 'application/json' };
}

/** One site's way to a memo, its answers' item and its error shape. */
interface SiteCase {
  site: string;
  row: (id: number) => string;
  auth: (t: TestApp, token: string) => Record<string, string>;
  itemOf: (body: Record<string, unknown>) => Record<string, unknown>;
  message: 'detail' | 'message';
  deleted: number;
}

const SITES: SiteCase[] = [
  {
    site: 'the token site',
    row: (id) => `/api/memos/${id}`,
    auth: (_t, token) => ({ Authorization: `Bearer ${token}`, Accept: 'application/json' }),
    itemOf: (body) => body.data as Record<string, unknown>,
    message: 'message',
    deleted: 200,
  },
  {
    site: 'the root site',
    row: (id) => `/memos/${id}/`,
    auth: () => rootAuth(),
    itemOf: (body) => body,
    message: 'detail',
    deleted: 204,
  },
];

const PATHS = [
  { path: 'the compiled path', declaration: memo as ResourceDeclaration },
  { path: 'the Sequelize path (hooks)', declaration: withHooks },
];

describe.each(PATHS)('simultaneous writes under one If-Match on $path', ({ declaration }) => {
  let token = '';
  const t = useTestApp(
    async (app) => {
      await app.createUser('alice');
    },
    {},
    { declarations: [...projectDeclarations, declaration], migrationDirs: [migrationsDir, path.join(FIXTURE_DIR, 'migrations')] },
  );
  beforeAll(async () => {
    token = await apiToken(t, 'alice');
  });

  /** A new memo, and its ETag as `row` (a site's path to it) answers it. */
  async function newMemo(code: string, row: (id: number) => string = (id) => `/memos/${id}/`, headers = rootAuth()): Promise<{ id: number; etag: string }> {
    const created = await t.http.post('/memos/').auth(...credentials('alice')).send({ code, title: 'original' });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const read = await t.http.get(row(id)).set(headers);
    expect(read.status).toBe(200);
    return { id, etag: read.headers.etag as string };
  }

  describe.each(SITES)('on $site', ({ site, row, auth, itemOf, message, deleted }) => {
    const key = site.replace(/\W/g, '');

    test.each(['PATCH', 'PUT'] as const)('%s: exactly one succeeds, the others answer 412 in the site’s shape, and the row is the winner’s', async (method) => {
      const { id, etag } = await newMemo(`${key}-${method}`, row, auth(t, token));
      const answers = await Promise.all(
        Array.from({ length: SIMULTANEOUS }, (_, index) => {
          const body = { code: `${key}-${method}`, title: `writer ${index}` };
          const request = method === 'PATCH' ? t.http.patch(row(id)) : t.http.put(row(id));
          return request.set(auth(t, token)).set('If-Match', etag).send(body);
        }),
      );
      const won = answers.filter((answer) => answer.status === 200);
      expect(won).toHaveLength(1);
      for (const refused of answers.filter((answer) => answer.status !== 200)) {
        expect(refused.status).toBe(412);
        expect(Object.keys(refused.body)).toEqual([message]);
        expect(refused.body[message]).toContain('If-Match');
      }
      const [winner] = won;
      const read = await t.http.get(row(id)).set(auth(t, token));
      expect(itemOf(read.body).title).toBe(itemOf(winner!.body).title);
      expect(read.headers.etag).toBe(winner!.headers.etag);
      expect((await storedRow(t.services.sequelize, id))?.title).toBe(itemOf(winner!.body).title);
    });

    test('DELETE: exactly one deletes, the others answer 412 or 404, never a second delete of a changed row', async () => {
      const { id, etag } = await newMemo(`${key}-delete`, row, auth(t, token));
      const answers = await Promise.all([
        t.http.patch(row(id)).set(auth(t, token)).set('If-Match', etag).send({ title: 'edited' }),
        ...Array.from({ length: SIMULTANEOUS - 1 }, () => t.http.delete(row(id)).set(auth(t, token)).set('If-Match', etag)),
      ]);
      const [edit, ...deletes] = answers;
      const succeeded = answers.filter((answer) => answer.status === 200 || answer.status === deleted);
      expect(succeeded).toHaveLength(1);
      const stored = await storedRow(t.services.sequelize, id);
      if (edit!.status === 200) {
        // The edit won: the row stays, edited, and every delete was refused as stale.
        expect(stored?.title).toBe('edited');
        for (const refused of deletes) expect(refused.status).toBe(412);
      } else {
        expect(stored).toBeNull();
        expect([404, 412]).toContain(edit!.status);
        for (const refused of deletes.filter((answer) => answer.status !== deleted)) expect([404, 412]).toContain(refused.status);
      }
    });

    test.each([
      ['without If-Match', undefined],
      ['with If-Match: *', '*'],
    ])('DELETE %s, sent several times at once: one deletes, the others find it gone (404)', async (_case, ifMatch) => {
      const { id } = await newMemo(`${key}-gone${ifMatch ? '*' : ''}`, row, auth(t, token));
      const answers = await Promise.all(
        Array.from({ length: SIMULTANEOUS }, () => {
          const request = t.http.delete(row(id)).set(auth(t, token));
          return ifMatch ? request.set('If-Match', ifMatch) : request;
        }),
      );
      expect(answers.map((answer) => answer.status).sort()).toEqual([deleted, ...Array.from({ length: SIMULTANEOUS - 1 }, () => 404)].sort());
      expect(await storedRow(t.services.sequelize, id)).toBeNull();
    });
  });

  test('a PATCH that changes nothing answers the row with a new update time, and the ETag and stored row a GET then gives', async () => {
    const { id, etag } = await newMemo('unchanged');
    const before = await storedRow(t.services.sequelize, id);
    const patched = await t.http.patch(`/memos/${id}/`).auth(...credentials('alice')).set('If-Match', etag).send({ title: 'original', done: false });
    expect(patched.status).toBe(200);
    expect(patched.headers.etag).not.toBe(etag);
    const read = await t.http.get(`/memos/${id}/`).auth(...credentials('alice'));
    expect(patched.headers.etag).toBe(read.headers.etag);
    expect(patched.body).toEqual({ ...read.body, author: null });
    const { updated_at: updatedBefore, ...restBefore } = before ?? {};
    const { updated_at: updatedAfter, ...restAfter } = (await storedRow(t.services.sequelize, id)) ?? {};
    expect(restAfter).toEqual(restBefore);
    expect(updatedAfter).not.toEqual(updatedBefore);
  });
});

/** Counts the writes of the memos' title column: an `UPDATE OF title` trigger fires only for statements that set it. */
async function countTitleWrites(sequelize: Sequelize): Promise<() => Promise<number>> {
  await sequelize.query('CREATE TABLE title_writes (n INTEGER)');
  if (sequelize.getDialect() === 'postgres') {
    await sequelize.query('CREATE FUNCTION note_title_write() RETURNS trigger AS $$ BEGIN INSERT INTO title_writes VALUES (1); RETURN NEW; END $$ LANGUAGE plpgsql');
    await sequelize.query('CREATE TRIGGER memos_title_written AFTER UPDATE OF title ON memos FOR EACH ROW EXECUTE FUNCTION note_title_write()');
  } else {
    await sequelize.query('CREATE TRIGGER memos_title_written AFTER UPDATE OF title ON memos BEGIN INSERT INTO title_writes VALUES (1); END');
  }
  return async () => Number(((await sequelize.query('SELECT COUNT(*) AS n FROM title_writes', { plain: true, type: 'SELECT' })) as { n: unknown }).n);
}

describe.each(PATHS)('the version a write under If-Match names, on $path', ({ declaration }) => {
  const t = useTestApp(
    async (app) => {
      await app.createUser('alice');
    },
    {},
    { declarations: [...projectDeclarations, declaration], migrationDirs: [migrationsDir, path.join(FIXTURE_DIR, 'migrations')] },
  );
  const root = (id: number): string => `/memos/${id}/`;

  async function newMemo(code: string): Promise<number> {
    const created = await t.http.post('/memos/').auth(...credentials('alice')).send({ code, title: 'original' });
    expect(created.status).toBe(201);
    return created.body.id as number;
  }

  test('a row whose update time was written by SQL with microseconds still accepts its own ETag, for an update and a delete', async () => {
    const { sequelize } = t.services;
    const ids = [await newMemo('micro-1'), await newMemo('micro-2')];
    const written = sequelize.getDialect() === 'postgres' ? "'2026-01-02 03:04:05.678912+00'" : "'2026-01-02 03:04:05.678912 +00:00'";
    await sequelize.query(`UPDATE memos SET updated_at = ${written} WHERE id IN (${ids.join(', ')})`);
    const [edited, deleted] = ids as [number, number];
    const read = await t.http.get(root(edited)).auth(...credentials('alice'));
    const patched = await t.http.patch(root(edited)).auth(...credentials('alice')).set('If-Match', read.headers.etag as string).send({ title: 'edited' });
    expect(patched.status).toBe(200);
    expect(patched.body.title).toBe('edited');
    const other = await t.http.get(root(deleted)).auth(...credentials('alice'));
    expect((await t.http.delete(root(deleted)).auth(...credentials('alice')).set('If-Match', other.headers.etag as string)).status).toBe(204);
  });

  test('writes only the columns whose values change: an UPDATE OF trigger on another column does not fire', async () => {
    const titleWrites = await countTitleWrites(t.services.sequelize);
    const id = await newMemo('columns');
    const same = await t.http.patch(root(id)).auth(...credentials('alice')).send({ title: 'original', done: true });
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ title: 'original', done: true });
    expect(await titleWrites()).toBe(0);
    const changed = await t.http.patch(root(id)).auth(...credentials('alice')).send({ title: 'changed' });
    expect(changed.body.title).toBe('changed');
    expect(await titleWrites()).toBe(1);
  });

  test('a write refused after its version was checked leaves the row at that version: the same If-Match then succeeds', async () => {
    const id = await newMemo('refused');
    const etag = (await t.http.get(root(id)).auth(...credentials('alice'))).headers.etag as string;
    const refused = await t.http.patch(root(id)).auth(...credentials('alice')).set('If-Match', etag).send({ title: declaration === withHooks ? 'refused by a hook' : 'x'.repeat(51) });
    expect(refused.status).toBe(400);
    expect((await t.http.get(root(id)).auth(...credentials('alice'))).headers.etag).toBe(etag);
    const retried = await t.http.patch(root(id)).auth(...credentials('alice')).set('If-Match', etag).send({ title: 'accepted' });
    expect(retried.status).toBe(200);
  });
});

describe('a detail action under one If-Match, sent simultaneously', () => {
  const t = useTestApp(
    async (app) => {
      await app.createUser('alice');
    },
    {},
    { declarations: [...projectDeclarations, withHooks], migrationDirs: [migrationsDir, path.join(FIXTURE_DIR, 'migrations')] },
  );

  test('updates the row once: the others answer 412 and the row is the winner’s', async () => {
    const created = await t.http.post('/memos/').auth(...credentials('alice')).send({ code: 'action', title: 'original' });
    const id = created.body.id as number;
    const answers = await Promise.all(
      Array.from({ length: SIMULTANEOUS }, (_, index) =>
        t.http.post(`/memos/${id}/retitle/`).auth(...credentials('alice')).set('If-Match', created.headers.etag as string).send({ title: `action ${index}` }),
      ),
    );
    const won = answers.filter((answer) => answer.status === 200);
    expect(won).toHaveLength(1);
    for (const refused of answers.filter((answer) => answer.status !== 200)) expect(refused.status).toBe(412);
    const read = await t.http.get(`/memos/${id}/`).auth(...credentials('alice'));
    expect(read.body.title).toBe(won[0]!.body.title);
  });
});
