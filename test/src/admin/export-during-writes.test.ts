import { beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { Filter, flat, type BaseResource } from 'adminjs';
import { useTestApp } from '../../helpers/app.js';
import { onPostgres } from '../../helpers/database.js';
import { createAdmin } from '../../../src/admin/index.js';
import { listRecords } from '../../../src/admin/export.js';
import { readsAfter, type ReadsAfter } from '../../../src/admin/keyset.js';
import { auditModel } from '../../../src/admin/audit.js';
import { AUDIT_LOG_TABLE_NAME } from '../../../src/db/audit-table.js';

const LOAD_TIMEOUT = 60_000;
/** Rows per read in these tests: small, so that a few rows make several batches to write between. */
const BATCH = 3;
const SEEDS = 13;
const SEED_BODY = 'seed';

/** A time of 2024-05-01 as SQL writes it, microseconds included: PostgreSQL keeps them, SQLite keeps the text. */
const sqlTime = (time: string): string => (onPostgres() ? `2024-05-01 ${time}+00` : `2024-05-01 ${time} +00:00`);

type Query = Record<string, string>;

/** The admin's resource `id`, as the export reads it. */
function exportable(id: string, t: ReturnType<typeof useTestApp>): BaseResource & ReadsAfter {
  const resource = createAdmin(t.services.registry, t.services.accounts).findResource(id);
  if (!readsAfter(resource)) throw new Error(`${id} cannot be exported`);
  return resource;
}
type Ids = Record<'root' | 'alice' | 'bob', number>;

interface SortCase {
  name: string;
  query: Query;
  /** The column a move writes, and values that place a row before every other and after every other (none: the sort has none). */
  moves?: (ids: Ids) => { column: string; front: unknown; back: unknown };
}

const CASES: SortCase[] = [
  { name: 'the id ascending', query: { sortBy: 'id', direction: 'asc' } },
  { name: 'the id descending, filtered on the id', query: { sortBy: 'id', direction: 'desc', 'filters.id.from': '1' } },
  {
    name: 'a time column descending, filtered on that column',
    query: { sortBy: 'updated_at', direction: 'desc', 'filters.updated_at.from': '2024-05-01T09:00:00.000Z' },
    moves: () => ({ column: 'updated_at', front: sqlTime('12:00:00.000500'), back: sqlTime('09:30:00.000500') }),
  },
  {
    name: 'a text column ascending, filtered on that column',
    query: { sortBy: 'title', direction: 'asc', 'filters.title': 'title' },
    moves: () => ({ column: 'title', front: 'title 0', back: 'title zz' }),
  },
  {
    name: 'a nullable column ascending (empty values last)',
    query: { sortBy: 'user_id', direction: 'asc' },
    moves: (ids) => ({ column: 'user_id', front: ids.root, back: null }),
  },
  {
    name: 'a nullable column descending (empty values first)',
    query: { sortBy: 'user_id', direction: 'desc' },
    moves: (ids) => ({ column: 'user_id', front: null, back: ids.root }),
  },
];

describe('the CSV export of a list written to between its batches', () => {
  const t = useTestApp(async (app) => {
    await app.createUser('root', { superuser: true, staff: true });
    await app.createUser('alice');
    await app.createUser('bob');
  });
  const comments = () => t.services.registry.get('Comment').model;
  const sql = (statement: string, bind: unknown[]) => t.services.registry.sequelize.query(statement, { bind });
  let resource: BaseResource & ReadsAfter;
  let ids: Ids;

  beforeAll(async () => {
    const id = async (name: string) => Number((await t.services.accounts.findByUsername(name))?.get('id'));
    ids = { root: await id('root'), alice: await id('alice'), bob: await id('bob') };
    resource = exportable('comments', t);
  }, LOAD_TIMEOUT);

  /** A row: its title, owner (or none) and update time, this last written by SQL. */
  const insert = async (title: string, owner: number | null, time: string, body = SEED_BODY): Promise<number> => {
    const id = Number((await comments().create({ title, body, user_id: owner })).get('id'));
    await sql('UPDATE comments SET updated_at = $1 WHERE id = $2', [sqlTime(time), id]);
    return id;
  };

  /**
   * Pairs of rows share a title, and an update time's millisecond (which
   * they tell apart by microseconds); two have no owner; the update times
   * are not in the ids' order. One row the body filter leaves out.
   */
  beforeEach(async () => {
    await comments().destroy({ where: {} });
    for (let index = 0; index < SEEDS; index += 1) {
      const shuffled = (index * 5) % SEEDS;
      const time = `10:00:00.${100 + 10 * Math.floor(shuffled / 2)}${shuffled % 2 ? '900' : '100'}`;
      const owner = index === 4 || index === 9 ? null : index % 2 ? ids.alice : ids.bob;
      await insert(`title ${String(Math.floor(index / 2)).padStart(2, '0')}`, owner, time);
    }
    await insert('title 99', ids.alice, '10:00:00.500000', 'noise');
  });

  /** The ids of the list as the admin shows it now. */
  const listed = async (query: Query): Promise<number[]> => {
    const { filters, sortBy, direction } = flat.unflatten(query) as { filters?: Record<string, unknown>; sortBy: string; direction: 'asc' | 'desc' };
    const records = await resource.find(new Filter(filters ?? {}, resource), { limit: 500, offset: 0, sort: { sortBy, direction } });
    return records.map((record) => Number(record.id()));
  };

  for (const { name, query, moves } of CASES) {
    test(`sorted by ${name}: every row there throughout is read once, in the list's order, whatever is inserted, moved or deleted meanwhile`, async () => {
      const fullQuery = { 'filters.body': SEED_BODY, ...query };
      const initial = await listed(fullQuery);
      expect(initial).toHaveLength(SEEDS);
      const move = moves?.(ids);
      const write = async (id: number, to: 'front' | 'back'): Promise<void> => {
        if (move) await sql(`UPDATE comments SET ${move.column} = $1 WHERE id = $2`, [move[to], id]);
        else await comments().update({ title: `title ${to}` }, { where: { id } });
      };
      const read: number[] = [];
      const written: number[] = [];
      const deleted: number[] = [];
      const inserted: number[] = [];
      for await (const record of listRecords(resource, fullQuery, BATCH)) {
        read.push(Number(record.id()));
        if (read.length === BATCH) {
          // A row read is deleted, the last row read moves to the front, the next row to read moves to the back.
          const now = await listed(fullQuery);
          const next = now[now.indexOf(read.at(-1)!) + 1]!;
          deleted.push(read[1]!);
          await comments().destroy({ where: { id: read[1] } });
          await write(read.at(-1)!, 'front');
          await write(next, 'back');
          written.push(read.at(-1)!, next);
        } else if (read.length === 2 * BATCH) {
          // New rows at the front and at the back.
          for (const to of ['front', 'back'] as const) {
            const id = await insert(`title new ${to}`, ids.alice, '11:00:00.000000');
            if (move) await sql(`UPDATE comments SET ${move.column} = $1 WHERE id = $2`, [move[to], id]);
            inserted.push(id);
          }
        } else if (read.length === 3 * BATCH) {
          // A row not read yet (the last one that was not moved) is deleted.
          const gone = (await listed(fullQuery)).filter((id) => !written.includes(id)).at(-1)!;
          deleted.push(gone);
          await comments().destroy({ where: { id: gone } });
        }
      }
      const throughout = initial.filter((id) => !written.includes(id) && !deleted.includes(id));
      const times = (id: number): number => read.filter((seen) => seen === id).length;
      expect(throughout.map(times)).toEqual(throughout.map(() => 1));
      expect(written.map(times)).toEqual([1, 1]);
      expect(new Set(read).size).toBe(read.length);
      expect(read).not.toContain(deleted[1]);
      // The rows there throughout, and the row moved ahead of the reading, come in the order of the list as it is now.
      const ordered = new Set([...throughout, written[1]!]);
      const final = await listed(fullQuery);
      expect(read.filter((id) => ordered.has(id))).toEqual(final.filter((id) => ordered.has(id)));
      expect(read.every((id) => initial.includes(id) || inserted.includes(id))).toBe(true);
    });
  }

  test('sorted by a nullable column, empty values come last ascending and first descending, on either database, a batch ending among them', async () => {
    await comments().update({ user_id: null }, { where: { id: (await listed({ sortBy: 'id', direction: 'asc' })).slice(0, 5) } });
    const owned = async (direction: 'asc' | 'desc') => {
      const rows = await comments().findAll({ where: { body: SEED_BODY }, order: [['id', direction]] });
      const owner = (row: (typeof rows)[number]) => row.get('user_id') as number | null;
      const values = rows.filter((row) => owner(row) !== null).sort((a, b) => (direction === 'asc' ? owner(a)! - owner(b)! : owner(b)! - owner(a)!));
      const empty = rows.filter((row) => owner(row) === null);
      return (direction === 'asc' ? [...values, ...empty] : [...empty, ...values]).map((row) => Number(row.get('id')));
    };
    for (const direction of ['asc', 'desc'] as const) {
      const query = { sortBy: 'user_id', direction, 'filters.body': SEED_BODY };
      const read: number[] = [];
      for await (const record of listRecords(resource, query, 2)) read.push(Number(record.id()));
      expect(read).toEqual(await owned(direction));
      expect(await listed(query)).toEqual(read);
    }
  });
});

describe("the CSV export of the audit log written to between its batches", () => {
  const t = useTestApp(async (app) => {
    await app.createUser('root', { superuser: true, staff: true });
  });
  let resource: BaseResource & ReadsAfter;
  const entries = () => auditModel(t.services.registry.sequelize);
  const sql = (statement: string, bind: unknown[]) => t.services.registry.sequelize.query(statement, { bind });
  /** An entry whose time, written by SQL, has microseconds. */
  const entry = async (time: string): Promise<number> => {
    const values = { created_at: new Date(), account_id: 1, account: 'root', action: 'edit', resource: 'invoices', record_id: '1', record_title: 'an invoice', changes: '{}' };
    const id = Number((await entries().create(values)).get('id'));
    await sql(`UPDATE ${AUDIT_LOG_TABLE_NAME} SET created_at = $1 WHERE id = $2`, [sqlTime(time), id]);
    return id;
  };

  beforeAll(() => {
    resource = exportable(AUDIT_LOG_TABLE_NAME, t);
  }, LOAD_TIMEOUT);

  for (const query of [{}, { sortBy: 'created_at', direction: 'desc' }] as Query[]) {
    test(`sorted ${query.sortBy ?? 'as it is by default, newest first'}: every entry there throughout is read once, in order, while new ones are written`, async () => {
      await entries().destroy({ where: {} });
      const initial: number[] = [];
      for (let index = 0; index < 10; index += 1) initial.push(await entry(`10:00:00.${100 + 10 * Math.floor(index / 2)}${index % 2 ? '900' : '100'}`));
      const read: number[] = [];
      for await (const record of listRecords(resource, query, BATCH)) {
        read.push(Number(record.id()));
        if (read.length % BATCH === 0) await entry('11:00:00.000000');
      }
      expect(read).toEqual([...initial].reverse());
    });
  }
});
