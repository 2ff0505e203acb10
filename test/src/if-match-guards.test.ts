import path from 'node:path';
import { beforeAll, describe, expect, test } from '@jest/globals';
import { loadDeclarations } from '../../src/registry.js';
import { migrationsDir, projectRoot } from '../../src/paths.js';
import { field } from '../../src/resource.js';
import { apiToken, credentials, useTestApp, type TestApp } from '../helpers/app.js';
import type { ResourceDeclaration } from '../../src/types/resource.js';

/**
 * If-Match guards every edit path, not only PUT, PATCH and DELETE of a row
 * with an update time: a custom action whose own code writes elsewhere, and
 * a row with no update time to name (none declared, or none its reads show).
 * Simultaneous requests naming the same version: exactly one goes through.
 */
const MEMO_DIR = path.join(projectRoot, 'test', 'fixtures', 'memo');
const LEDGER_DIR = path.join(projectRoot, 'test', 'fixtures', 'ledger');
const [memo] = (await loadDeclarations(MEMO_DIR)) as [ResourceDeclaration];
const [ledger] = (await loadDeclarations(LEDGER_DIR)) as [ResourceDeclaration];
const projectDeclarations = await loadDeclarations();
const SIMULTANEOUS = 6;
const migrationDirs = [migrationsDir, path.join(MEMO_DIR, 'migrations'), path.join(LEDGER_DIR, 'migrations')];

/** Memos whose actions never update their row: one writes another row through `model`, one refuses. */
const memoWithActions: ResourceDeclaration = {
  ...memo,
  actions: {
    note: {
      detail: true,
      input: { code: field.string({ maxLength: 20 }) },
      run: async (ctx) => {
        await ctx.model('Memo').create({ code: ctx.data.code, title: `note on ${String(ctx.row?.get('id'))}` });
      },
    },
    reject: {
      detail: true,
      run: (ctx) => ctx.refuse('title', 'refused'),
    },
  },
};

/** The ledger written through Sequelize in a transaction (a hook), rather than as one compiled UPDATE. */
const ledgerWithHooks: ResourceDeclaration = { ...ledger, hooks: { beforeUpdate: () => undefined, beforeDestroy: () => undefined } };

/** Memos whose update time is a hidden field: no read selects it, so nothing read names a version. */
const HIDING = { fields: ['id', 'code', 'title', 'done'], retrieveFields: ['id', 'code', 'title', 'done'] };
const memoHidingItsTime: ResourceDeclaration = {
  ...memo,
  fields: { ...memo.fields, updated_at: { ...field.updatedAt(), hidden: true } },
  sites: { paginated: { ...memo.sites!.paginated!, ...HIDING }, token: { ...memo.sites!.token!, ...HIDING } },
};

function rootAuth(): Record<string, string> {
  return { Authorization: `Basic ${Buffer.from(credentials('alice').join(':')).toString('base64')}`, Accept: 'application/json' };
}

/** One site's way to a row, its answers' item and its error shape. */
interface SiteCase {
  site: string;
  row: (table: string, id: number) => string;
  auth: (token: string) => Record<string, string>;
  message: 'detail' | 'message';
  deleted: number;
}

const SITES: SiteCase[] = [
  { site: 'the token site', row: (table, id) => `/api/${table}/${id}`, auth: (token) => ({ Authorization: `Bearer ${token}`, Accept: 'application/json' }), message: 'message', deleted: 200 },
  { site: 'the root site', row: (table, id) => `/${table}/${id}/`, auth: () => rootAuth(), message: 'detail', deleted: 204 },
];

/** A test app with alice, these declarations and the fixtures' tables; `token()` is alice's API token. */
function appWith(declarations: ResourceDeclaration[]): { t: TestApp; token: () => string } {
  let token = '';
  const t = useTestApp(
    async (app) => {
      await app.createUser('alice');
    },
    {},
    { declarations: [...projectDeclarations, ...declarations], migrationDirs },
  );
  beforeAll(async () => {
    token = await apiToken(t, 'alice');
  });
  return { t, token: () => token };
}

function expectRefused(answers: { status: number; body: Record<string, unknown> }[], won: number, message: 'detail' | 'message'): void {
  for (const refused of answers.filter((answer) => answer.status !== won)) {
    expect(refused.status).toBe(412);
    expect(Object.keys(refused.body)).toEqual([message]);
    expect(refused.body[message]).toContain('If-Match');
  }
}

describe('a detail action under one If-Match that never updates its row', () => {
  const { t, token } = appWith([memoWithActions]);

  async function newMemo(code: string, site: SiteCase): Promise<{ id: number; etag: string }> {
    const created = await t.http.post('/memos/').auth(...credentials('alice')).send({ code, title: 'original' });
    const id = created.body.id as number;
    const read = await t.http.get(site.row('memos', id)).set(site.auth(token()));
    return { id, etag: read.headers.etag as string };
  }

  describe.each(SITES)('on $site', (site) => {
    const key = site.site.replace(/\W/g, '').slice(0, 8);

    test('runs once when sent simultaneously: the others answer 412 in the site’s shape and write nothing', async () => {
      const { id, etag } = await newMemo(`${key}-a`, site);
      const answers = await Promise.all(
        Array.from({ length: SIMULTANEOUS }, (_, index) => t.http.post(actionUrl(site, id, 'note')).set(site.auth(token())).set('If-Match', etag).send({ code: `${key}-n${index}` })),
      );
      expect(answers.filter((answer) => answer.status === 200)).toHaveLength(1);
      expectRefused(answers, 200, site.message);
      expect(await t.services.registry.get('Memo').model.count({ where: { title: `note on ${id}` } })).toBe(1);
    });

    test('once it ran, its tag no longer holds: the same If-Match again is refused', async () => {
      const { id, etag } = await newMemo(`${key}-b`, site);
      const note = (code: string) => t.http.post(actionUrl(site, id, 'note')).set(site.auth(token())).set('If-Match', etag).send({ code });
      expect((await note(`${key}-b1`)).status).toBe(200);
      expect((await note(`${key}-b2`)).status).toBe(412);
      expect(await t.services.registry.get('Memo').model.count({ where: { title: `note on ${id}` } })).toBe(1);
    });
  });

  test('a failing action gives the version back: the row keeps its tag, and the same If-Match then runs', async () => {
    const site = SITES[1]!;
    const { id, etag } = await newMemo('given-back', site);
    const rejected = await t.http.post(actionUrl(site, id, 'reject')).set(site.auth(token())).set('If-Match', etag);
    expect(rejected.status).toBe(400);
    expect((await t.http.get(site.row('memos', id)).set(site.auth(token()))).headers.etag).toBe(etag);
    const noted = await t.http.post(actionUrl(site, id, 'note')).set(site.auth(token())).set('If-Match', etag).send({ code: 'given-back-n' });
    expect(noted.status).toBe(200);
  });
});

function actionUrl(site: SiteCase, id: number, action: string): string {
  return site.site === 'the root site' ? `${site.row('memos', id)}${action}/` : `${site.row('memos', id)}/${action}`;
}

const LEDGERS = [
  { path: 'the compiled path', declaration: ledger },
  { path: 'the Sequelize path (hooks)', declaration: ledgerWithHooks },
];

describe.each(LEDGERS)('simultaneous writes under one If-Match to a row with no update time, on $path', ({ declaration }) => {
  const { t, token } = appWith([declaration]);

  async function newLedger(title: string, site: SiteCase): Promise<{ id: number; etag: string }> {
    const created = await t.http.post('/ledgers/').auth(...credentials('alice')).send({ title });
    expect(created.status).toBe(201);
    const id = created.body.id as number;
    const read = await t.http.get(site.row('ledgers', id)).set(site.auth(token()));
    return { id, etag: read.headers.etag as string };
  }

  describe.each(SITES)('on $site', (site) => {
    test.each(['PATCH', 'PUT'] as const)('%s: exactly one writes, the others answer 412 in the site’s shape', async (method) => {
      const { id, etag } = await newLedger('original', site);
      const answers = await Promise.all(
        Array.from({ length: SIMULTANEOUS }, (_, index) => {
          const request = method === 'PATCH' ? t.http.patch(site.row('ledgers', id)) : t.http.put(site.row('ledgers', id));
          return request.set(site.auth(token())).set('If-Match', etag).send({ title: `writer ${index}`, balance: index });
        }),
      );
      const won = answers.filter((answer) => answer.status === 200);
      expect(won).toHaveLength(1);
      expectRefused(answers, 200, site.message);
      const read = await t.http.get(site.row('ledgers', id)).set(site.auth(token()));
      expect(read.headers.etag).toBe(won[0]!.headers.etag);
      const winner = (won[0]!.body.data ?? won[0]!.body) as Record<string, unknown>;
      expect((await t.services.registry.get('Ledger').model.findByPk(id))?.get('balance')).toBe(winner.balance);
    });

    test('DELETE: exactly one of an edit and deletes goes through', async () => {
      const { id, etag } = await newLedger('doomed', site);
      const answers = await Promise.all([
        t.http.patch(site.row('ledgers', id)).set(site.auth(token())).set('If-Match', etag).send({ title: 'edited' }),
        ...Array.from({ length: SIMULTANEOUS - 1 }, () => t.http.delete(site.row('ledgers', id)).set(site.auth(token())).set('If-Match', etag)),
      ]);
      const [edit, ...deletes] = answers;
      expect(answers.filter((answer) => answer.status === 200 || answer.status === site.deleted)).toHaveLength(1);
      const stored = await t.services.registry.get('Ledger').model.findByPk(id);
      if (edit!.status === 200) {
        expect(stored?.get('title')).toBe('edited');
        for (const refused of deletes) expect(refused.status).toBe(412);
      } else {
        expect(stored).toBeNull();
        for (const refused of answers.filter((answer) => answer.status !== site.deleted)) expect([404, 412]).toContain(refused.status);
      }
    });
  });

  test('a stale tag is refused before anything is written, and the current one is accepted', async () => {
    const site = SITES[1]!;
    const { id, etag } = await newLedger('sequential', site);
    expect((await t.http.patch(site.row('ledgers', id)).set(site.auth(token())).set('If-Match', etag).send({ title: 'first' })).status).toBe(200);
    expect((await t.http.patch(site.row('ledgers', id)).set(site.auth(token())).set('If-Match', etag).send({ title: 'second' })).status).toBe(412);
    expect((await t.services.registry.get('Ledger').model.findByPk(id))?.get('title')).toBe('first');
  });
});

describe('simultaneous writes under one If-Match to a row whose reads hide its update time', () => {
  const { t, token } = appWith([memoHidingItsTime]);

  test.each(SITES)('PATCH on $site: exactly one writes, the others answer 412', async (site) => {
    const code = `hidden-${site.deleted}`;
    const created = await t.http.post('/memos/').auth(...credentials('alice')).send({ code, title: 'original' });
    const id = created.body.id as number;
    expect(created.body.updated_at).toBeUndefined();
    const etag = (await t.http.get(site.row('memos', id)).set(site.auth(token()))).headers.etag as string;
    const answers = await Promise.all(
      Array.from({ length: SIMULTANEOUS }, (_, index) => t.http.patch(site.row('memos', id)).set(site.auth(token())).set('If-Match', etag).send({ title: `writer ${index}` })),
    );
    const won = answers.filter((answer) => answer.status === 200);
    expect(won).toHaveLength(1);
    expectRefused(answers, 200, site.message);
    const winner = (won[0]!.body.data ?? won[0]!.body) as Record<string, unknown>;
    expect((await t.services.registry.get('Memo').model.findByPk(id))?.get('title')).toBe(winner.title);
  });
});
