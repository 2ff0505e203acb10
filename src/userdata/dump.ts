import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { Op, Transaction } from 'sequelize';
import { inDjangoFormat } from '../auth/hashers.js';
import { userModelOf, WITH_HIDDEN, type ResourceRegistry } from '../registry.js';

/** Rows read per query: the dump's memory stays flat whatever the table's size. */
const BATCH_SIZE = 1000;
/** Django's first_name and last_name are 150 characters at most. */
const DJANGO_NAME_LENGTH = 150;

function isoTimestamp(value: unknown): string | null {
  return value instanceof Date ? value.toISOString() : value ? new Date(String(value)).toISOString() : null;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function truncate(value: string, maxLength: number): string {
  return [...value].slice(0, maxLength).join('');
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

/**
 * Writes every account as a Django `auth.user` fixture (the format of
 * `manage.py dumpdata auth.user --indent 2`), in id order, a batch of rows at a
 * time, from one consistent snapshot. Returns the number of users written.
 */
export async function dumpUsers(registry: ResourceRegistry, output: Writable): Promise<number> {
  const users = registry.users();
  const { usernameField, emailField, displayField } = userModelOf(users);
  const created = users.timestamps.created;
  const write = async (chunk: string): Promise<void> => {
    if (!output.write(chunk)) await once(output, 'drain');
  };
  const model = users.model.scope(WITH_HIDDEN);
  const options = { isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ };
  return registry.sequelize.transaction(options, async (transaction) => {
    let lastId = 0;
    let count = 0;
    await write('[');
    for (;;) {
      const rows = (await model.findAll({
        where: { id: { [Op.gt]: lastId } },
        order: [['id', 'ASC']],
        limit: BATCH_SIZE,
        transaction,
        raw: true,
      })) as unknown as Record<string, unknown>[];
      if (rows.length === 0) break;
      const entries = rows.map((row) => {
        const username = text(row[usernameField]);
        const [firstName, lastName] = djangoNames(text(row.first_name), text(row.last_name), text(row[displayField]), username);
        const entry = {
          model: 'auth.user',
          pk: Number(row.id),
          fields: {
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
          },
        };
        return JSON.stringify(entry, null, 2).replaceAll('\n', '\n  ');
      });
      await write(`${count === 0 ? '' : ','}\n  ${entries.join(',\n  ')}`);
      count += rows.length;
      lastId = Number(rows.at(-1)?.id);
    }
    await write(count === 0 ? ']\n' : '\n]\n');
    return count;
  });
}

