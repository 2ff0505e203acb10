/**
 * dumpdata: the application's rows as a Django fixture (`[{"model", "pk",
 * "fields"}]`, as `manage.py dumpdata --indent 2` writes it), which Django's
 * loaddata and this one read. The accounts are Django's `auth.user` entries;
 * every other resource's rows carry each column as stored (hidden ones too:
 * a dump is a backup) and each many-to-many's ids. Read a batch at a time,
 * from one consistent snapshot, so the memory stays flat whatever the size.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { Op, Transaction } from 'sequelize';
import { inDjangoFormat } from '../auth/hashers.js';
import { formatDecimal, fromStored } from '../cleaning.js';
import { microsecondOf, readStoredTime } from '../instant.js';
import { userModelOf, WITH_HIDDEN, type ResourceRegistry } from '../registry.js';
import { isColumn, type FieldDeclaration } from '../resource.js';
import { fixtureLabel } from './models.js';
import type { BoundResource } from '../types/resource.js';

/** Rows read per query. */
const BATCH_SIZE = 1000;
/** Django's first_name and last_name are 150 characters at most. */
const DJANGO_NAME_LENGTH = 150;

type StoredRow = Record<string, unknown>;
/** A batch of rows as fixture entries, each its JSON text. */
type Entries = (rows: readonly StoredRow[], transaction: Transaction) => Promise<string[]>;

export interface DumpCount {
  label: string;
  count: number;
}

/** ISO 8601 in UTC, with the microseconds a time has (Django's loaddata reads six digits; a time of its own millisecond keeps three). */
function isoTimestamp(value: unknown): string | null {
  if (value === null || value === undefined || value === '') return null;
  const date = value instanceof Date ? value : readStoredTime(String(value));
  // An Instant's JSON is its ISO text with six digits.
  return microsecondOf(date) === 0 ? date.toISOString() : date.toJSON();
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function truncate(value: string, maxLength: number): string {
  return [...value].slice(0, maxLength).join('');
}

/** An entry as `dumpdata --indent 2` lays it out inside the list. */
function entryText(model: string, pk: number, fields: Record<string, unknown>): string {
  return JSON.stringify({ model, pk, fields }, null, 2).replaceAll('\n', '\n  ');
}

/**
 * Django's first_name and last_name for a row. The display name is what
 * people see here, so it must survive the trip: when it is not Django's full
 * name of the row's first and last name, it goes whole into first_name, which
 * a load turns back into the same display name.
 */
function djangoNames(first: string, last: string, display: string, username: string): [string, string] {
  const fullName = [first, last].filter((part) => part !== '').join(' ');
  if (display === fullName || (fullName === '' && (display === '' || display === username))) return [first, last];
  return [truncate(display, DJANGO_NAME_LENGTH), ''];
}

/** Accounts as Django's `auth.user` entries, with exactly its fields. */
function userEntries(users: BoundResource): Entries {
  const { usernameField, emailField, displayField } = userModelOf(users);
  const created = users.timestamps.created;
  return async (rows) =>
    rows.map((row) => {
      const username = text(row[usernameField]);
      const [firstName, lastName] = djangoNames(text(row.first_name), text(row.last_name), text(row[displayField]), username);
      return entryText('auth.user', Number(row.id), {
        password: inDjangoFormat(text(row.password)),
        last_login: isoTimestamp(row.last_login),
        is_superuser: Boolean(row.is_superuser),
        username,
        first_name: firstName,
        last_name: lastName,
        email: text(row[emailField]),
        is_staff: Boolean(row.is_staff),
        is_active: Boolean(row.is_active),
        date_joined: created ? isoTimestamp(row[created]) : null,
        groups: [],
        user_permissions: [],
      });
    });
}

/** A column's value as a fixture holds it: times in ISO 8601 (UTC), decimals as text, JSON as itself. */
function fixtureValue(field: FieldDeclaration, stored: unknown, sqlite: boolean): unknown {
  const value = fromStored(field, stored, sqlite);
  if (value === null || value === undefined) return null;
  switch (field.kind) {
    case 'datetime':
      return isoTimestamp(value);
    case 'decimal':
      return formatDecimal(value, field.decimalPlaces);
    case 'boolean':
      return Boolean(value);
    case 'integer':
    case 'reference':
      return Number(value);
    default:
      return value;
  }
}

/** Any other resource's rows: every column but the id, and each many-to-many's ids (one query per such field and batch). */
function rowEntries(resource: BoundResource): Entries {
  const label = fixtureLabel(resource);
  const key = resource.model.primaryKeyAttribute;
  const sqlite = resource.model.sequelize?.getDialect() === 'sqlite';
  const fields = Object.entries(resource.declaration.fields).filter(([name, field]) => name !== key && (isColumn(field) || field.kind === 'manyToMany'));
  return async (rows, transaction) => {
    const links = new Map<string, Map<number, number[]>>();
    for (const [name, field] of fields) {
      const relation = field.kind === 'manyToMany' ? resource.relations.get(name) : undefined;
      if (relation?.kind !== 'manyToMany') continue;
      const { join } = relation;
      const pairs = (await join.model.findAll({
        attributes: [join.from, join.to],
        where: { [join.from]: rows.map((row) => row[key] as number) },
        order: [[join.from, 'ASC'], [join.to, 'ASC']],
        transaction,
        raw: true,
      })) as unknown as StoredRow[];
      const byRow = new Map<number, number[]>();
      for (const pair of pairs) byRow.set(Number(pair[join.from]), [...(byRow.get(Number(pair[join.from])) ?? []), Number(pair[join.to])]);
      links.set(name, byRow);
    }
    return rows.map((row) => {
      const pk = Number(row[key]);
      const values = Object.fromEntries(fields.map(([name, field]) => [name, field.kind === 'manyToMany' ? (links.get(name)?.get(pk) ?? []) : fixtureValue(field, row[name], sqlite)]));
      return entryText(label, pk, values);
    });
  };
}

/** A resource's rows in key order, a batch at a time (each batch starts after the last key of the one before). */
async function* batches(resource: BoundResource, transaction: Transaction): AsyncGenerator<StoredRow[]> {
  const key = resource.model.primaryKeyAttribute;
  const model = resource.model.scope(WITH_HIDDEN);
  let last = 0;
  for (;;) {
    const rows = (await model.findAll({ where: { [key]: { [Op.gt]: last } }, order: [[key, 'ASC']], limit: BATCH_SIZE, transaction, raw: true })) as unknown as StoredRow[];
    if (rows.length === 0) return;
    yield rows;
    last = Number(rows.at(-1)?.[key]);
  }
}

/**
 * Writes the rows of `resources` (in that order: loadOrder's, the rows a
 * resource refers to first) to `output` as one fixture. Returns how many
 * rows of each were written.
 */
export async function dumpResources(registry: ResourceRegistry, resources: readonly BoundResource[], output: Writable): Promise<DumpCount[]> {
  const write = async (chunk: string): Promise<void> => {
    if (!output.write(chunk)) await once(output, 'drain');
  };
  const options = { isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ };
  return registry.sequelize.transaction(options, async (transaction) => {
    const counts: DumpCount[] = [];
    let written = 0;
    await write('[');
    for (const resource of resources) {
      const entries = resource.declaration.userModel ? userEntries(resource) : rowEntries(resource);
      let count = 0;
      for await (const rows of batches(resource, transaction)) {
        await write(`${written === 0 ? '' : ','}\n  ${(await entries(rows, transaction)).join(',\n  ')}`);
        written += rows.length;
        count += rows.length;
      }
      counts.push({ label: fixtureLabel(resource), count });
    }
    await write(written === 0 ? ']\n' : '\n]\n');
    return counts;
  });
}
