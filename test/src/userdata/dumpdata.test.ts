import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from '@jest/globals';
import { manualClock } from '../../helpers/clock.js';
import { DJANGO_USERS, LARAVEL_USERS, PASSWORDS, useDataWorkspace, type DataWorkspace } from '../../helpers/userdata.js';

/** `DB::table('personal_access_tokens')->get()` of the Laravel application: tokens 7 and 8 of users 20 and 21, and 9 (expired). */
const SANCTUM_TOKENS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/sanctum_tokens_shared.json');
/** What the Laravel client of user 20 holds: `<id>|<secret>`. */
const NAKAMURA_TOKEN = '7|Nk7wQ2mZ9pLx4RtV8bYc3HsJ6dFg1KaE5uWq0OiP';

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
    expect(dumped).toMatchObject({ status: 0, stdout: `Wrote 6 object(s) to ${output} (auth.user: 6, personal_access_tokens.accesstoken: 0, comments.comment: 0).\n` });
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
      date_joined: '2025-04-01T09:30:00.123456Z',
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

/** Every column of every row of `table`, hidden ones too, in id order. */
function rows(data: DataWorkspace, table: 'comments' | 'personal_access_tokens'): Promise<Record<string, unknown>[]> {
  return data.withServices(async (services) => (await services.sequelize.query(`SELECT * FROM ${table} ORDER BY id`))[0] as Record<string, unknown>[]);
}

const json = (value: unknown) => JSON.stringify(value);
const comment = (pk: number | null, fields: Record<string, unknown>) => ({ model: 'comments.comment', pk, fields });

describe('dumpdata: every resource, or those named', () => {
  const data = useDataWorkspace();

  /** Users and their Sanctum tokens loaded, and comments written through the API: one with an owner, one without. */
  async function service(): Promise<void> {
    expect((await data.manage(['loaddata', DJANGO_USERS, LARAVEL_USERS, SANCTUM_TOKENS])).status).toBe(0);
    await data.withHttp(async (http, services) => {
      const post = (title: string) => http.post('/api/comments').set('Authorization', `Bearer ${NAKAMURA_TOKEN}`).set('Accept', 'application/json').send({ title, body: 'Body of ' + title });
      expect((await post('first')).status).toBe(201);
      expect((await post('second')).status).toBe(201);
      // An imported comment keeps no owner.
      await services.registry.get('Comment').model.create({ title: 'orphan', body: 'No owner', user_id: null });
    });
  }

  test('then loaddata into a fresh database brings back every user, token and comment: the tokens still sign in, the comments keep their owners', async () => {
    await service();
    const output = data.file('all.json', '');
    const dumped = await data.manage(['dumpdata', '--output', output]);
    expect(dumped).toMatchObject({ status: 0, stdout: `Wrote 11 object(s) to ${output} (auth.user: 5, personal_access_tokens.accesstoken: 3, comments.comment: 3).\n` });
    const [comments, tokens] = [await rows(data, 'comments'), await rows(data, 'personal_access_tokens')];

    const fresh = await data.another();
    const loaded = await fresh.manage(['loaddata', output]);
    expect(loaded).toMatchObject({ status: 0, stderr: '' });
    expect(loaded.stdout).toBe(
      'Installed 5 user(s) from 1 file(s): 5 created, 0 updated.\nInstalled 3 access token(s): 3 created, 0 updated.\nInstalled 3 comments.comment object(s): 3 created, 0 updated.\n',
    );
    expect(await rows(fresh, 'comments')).toEqual(comments);
    expect(await rows(fresh, 'personal_access_tokens')).toEqual(tokens);
    await fresh.withHttp(async (http) => {
      const mine = await http.get('/api/user').set('Authorization', `Bearer ${NAKAMURA_TOKEN}`).set('Accept', 'application/json');
      expect(mine.body.user.email).toBe('nakamura@example.jp');
      const page = await http.get('/comments/?page_size=5').auth('yamada', PASSWORDS.yamada);
      expect(page.body.results.map((row: { title: string }) => row.title).sort()).toEqual(['first', 'orphan', 'second']);
    });
    // Loaded again: the same rows, replaced by themselves.
    expect((await fresh.manage(['loaddata', output])).stdout).toContain('Installed 3 comments.comment object(s): 0 created, 3 updated.');
    expect(await rows(fresh, 'comments')).toEqual(comments);
  });

  test("names models as Django does: an app's label, a model's, a table or a resource; --exclude leaves one out; the rows referred to come first", async () => {
    await service();
    const models = async (args: string[]) => {
      const run = await data.manage(['dumpdata', ...args]);
      expect(run).toMatchObject({ status: 0, stderr: '' });
      return [...new Set((JSON.parse(run.stdout) as FixtureEntry[]).map((entry) => entry.model))];
    };
    expect(await models([])).toEqual(['auth.user', 'personal_access_tokens.accesstoken', 'comments.comment']);
    expect(await models(['comments'])).toEqual(['comments.comment']);
    expect(await models(['Comment', 'auth'])).toEqual(['auth.user', 'comments.comment']);
    expect(await models(['comments.comment', 'users'])).toEqual(['auth.user', 'comments.comment']);
    expect(await models(['--exclude', 'personal_access_tokens', '-e', 'auth.user'])).toEqual(['comments.comment']);
    const unknown = await data.manage(['dumpdata', 'blog.post']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('Error: no model is called "blog.post" here. Name a model (or its first part), a table or a resource: auth.user, personal_access_tokens.accesstoken, comments.comment.');
  });

  test('keeps the microseconds of times written within one millisecond, so the rows come back in their order', async () => {
    const time = manualClock();
    time.install();
    try {
      await service();
    } finally {
      time.restore();
    }
    const dumped = JSON.parse((await data.manage(['dumpdata', 'comments'])).stdout) as FixtureEntry[];
    const times = dumped.map((entry) => String(entry.fields.updated_at));
    expect(times.filter((at) => /\.\d{6}Z$/.test(at)).length).toBeGreaterThan(0);
    const output = data.file('comments.json', JSON.stringify(dumped));
    const fresh = await data.another();
    expect((await fresh.manage(['loaddata', DJANGO_USERS, LARAVEL_USERS, output])).status).toBe(0);
    expect(await rows(fresh, 'comments')).toEqual(await rows(data, 'comments'));
  });

  test("loads the comments of the Django original's `dumpdata comments`, which have no owner", async () => {
    const original = data.file(
      'django-comments.json',
      json([
        comment(1, { title: 'はじめまして', body: '最初のコメントです。', created_at: '2025-04-01T09:30:00.123', updated_at: '2025-04-02T10:00:00.5' }),
        comment(2, { title: ' spaced ', body: 'kept as stored', created_at: '2025-04-03T00:00:00', updated_at: '2025-04-03T00:00:00' }),
      ]),
    );
    expect((await data.manage(['loaddata', original])).stdout).toContain('Installed 2 comments.comment object(s): 2 created, 0 updated.');
    const loaded = await data.withServices(async (services) => (await services.registry.get('Comment').model.findAll({ order: [['id', 'ASC']] })).map((row) => row.get({ plain: true })));
    expect(loaded).toMatchObject([
      { id: 1, title: 'はじめまして', user_id: null, created_at: new Date('2025-04-01T09:30:00.123Z'), updated_at: new Date('2025-04-02T10:00:00.500Z') },
      { id: 2, title: ' spaced ' },
    ]);
  });

  test('a bad comment record is told with its file, record and field, and nothing of the load is kept', async () => {
    const bad = data.file(
      'bad-comments.json',
      json([
        comment(1, { title: 'fine', body: 'fine', user_id: 10 }),
        comment(2, { title: 'x'.repeat(256), body: 'too long a title' }),
        comment(3, { title: 'whose?', body: 'no such owner', user_id: 999 }),
        comment(4, { body: 'no title' }),
        comment(1, { title: 'again', body: 'the same pk' }),
      ]),
    );
    const run = await data.manage(['loaddata', DJANGO_USERS, bad]);
    expect(run.status).toBe(1);
    expect(run.stderr.split('\n').filter((line) => line !== '')).toEqual([
      `${bad}, record 2, field "title": title may be at most 255 characters long.`,
      `${bad}, record 3, field "user_id": No auth.user has id 999 here: load it too (in the same command, or before).`,
      `${bad}, record 4, field "title": This field is required.`,
      `${bad}, record 5, field "pk": "1" is also in ${bad}, record 1.`,
      'Error: nothing was loaded; the database is as it was.',
    ]);
    expect(await data.users()).toEqual([]);
    expect(await rows(data, 'comments')).toEqual([]);
  });
});
