import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { DJANGO_USERS, LARAVEL_USERS, PASSWORDS, useDataWorkspace } from '../../helpers/userdata.js';

/** The fields of Django's auth.user, in the order its serializer writes them. */
const DJANGO_FIELDS = [
  'password', 'last_login', 'is_superuser', 'username', 'first_name', 'last_name',
  'email', 'is_staff', 'is_active', 'date_joined', 'groups', 'user_permissions',
];

interface FixtureEntry {
  model: string;
  pk: number;
  fields: Record<string, unknown>;
}

describe('dumpdata: users as a Django fixture', () => {
  const data = useDataWorkspace();

  test('dumpdata then loaddata on a fresh database keeps every login and every name', async () => {
    const csv = data.file('csv.csv', 'username,email,name,password,is_staff\nsato,sato@example.jp,佐藤 健,佐藤のパスワード,yes\n');
    expect((await data.manage(['loaddata', DJANGO_USERS, LARAVEL_USERS, csv])).status).toBe(0);
    const output = data.file('dump.json', '');
    const dumped = await data.manage(['dumpdata', '--output', output]);
    expect(dumped).toMatchObject({ status: 0, stdout: `Wrote 6 user(s) to ${output}.\n` });
    expect(statSync(output).mode & 0o777).toBe(0o600);
    const source = await data.users();

    const fresh = await data.another();
    expect((await fresh.manage(['loaddata', output])).stdout).toBe('Installed 6 user(s) from 1 file(s): 6 created, 0 updated.\n');
    const copied = await fresh.users();
    const visible = (user: Record<string, unknown>) => [user.id, user.username, user.email, user.name, Boolean(user.is_staff), Boolean(user.is_active)];
    expect(copied.map(visible)).toEqual(source.map(visible));
    await fresh.withHttp(async (http) => {
      const logins: [string, string][] = [
        ['yamada@example.jp', PASSWORDS.yamada],
        ['suzuki@example.jp', PASSWORDS.suzuki],
        ['nakamura@example.jp', PASSWORDS['nakamura@example.jp']],
        ['kobayashi@example.jp', PASSWORDS['kobayashi@example.jp']],
        ['sato@example.jp', '佐藤のパスワード'],
      ];
      for (const [email, password] of logins) {
        expect([email, (await http.post('/api/login').send({ email, password })).status]).toEqual([email, 201]);
      }
      expect((await http.post('/api/login').send({ email: 'retired@example.jp', password: PASSWORDS.retired })).status).toBe(404);
    });
  });

  test("the fixture holds exactly Django's auth.user fields, bcrypt hashes in Django's bcrypt$ form", async () => {
    await data.manage(['loaddata', DJANGO_USERS, LARAVEL_USERS]);
    const run = await data.manage(['dumpdata']);
    expect(run.status).toBe(0);
    const entries = JSON.parse(run.stdout) as FixtureEntry[];
    expect(entries.map((entry) => [entry.model, entry.pk])).toEqual([
      ['auth.user', 10], ['auth.user', 11], ['auth.user', 12], ['auth.user', 20], ['auth.user', 21],
    ]);
    for (const entry of entries) expect(Object.keys(entry.fields)).toEqual(DJANGO_FIELDS);
    const [yamada, , , nakamura] = entries;
    const original = (JSON.parse(readFileSync(DJANGO_USERS, 'utf8')) as FixtureEntry[])[0];
    expect(yamada?.fields).toMatchObject({
      password: original?.fields.password,
      first_name: '太郎',
      last_name: '山田',
      date_joined: '2025-04-01T09:30:00.123Z',
      last_login: null,
      groups: [],
    });
    expect(nakamura?.fields).toMatchObject({ username: 'nakamura@example.jp', first_name: '中村 一郎', last_name: '' });
    expect(nakamura?.fields.password).toMatch(/^bcrypt\$\$2y\$10\$/);
  });

  test('an empty database dumps as an empty list', async () => {
    expect(await data.manage(['dumpdata'])).toMatchObject({ status: 0, stdout: '[]\n' });
  });

  test('an output file that cannot be written: status 1, a clear message, no partial file left', async () => {
    await data.manage(['loaddata', DJANGO_USERS]);
    const missing = path.join(path.dirname(data.file('x', '')), 'no-such-dir', 'dump.json');
    const run = await data.manage(['dumpdata', '--output', missing]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`Error: cannot write ${missing}:`);
    expect(existsSync(path.dirname(missing))).toBe(false);
    expect(readdirSync(path.dirname(data.file('x', ''))).filter((name) => name.includes('partial'))).toEqual([]);
  });
});
