import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from '@jest/globals';
import { DJANGO_USERS, LARAVEL_USERS, useDataWorkspace, type DataWorkspace } from '../../helpers/userdata.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures');
/** `DB::table('personal_access_tokens')->get()` of the Laravel application, as JSON: tokens 7 and 8 of users 20 and 21, and 9 (expired). */
const SANCTUM_TOKENS = path.join(fixtures, 'sanctum_tokens_shared.json');
/** `manage.py dumpdata authtoken.token` of the Django project: keys of users 10, 11 and 12 (inactive). */
const DRF_TOKENS = path.join(fixtures, 'drf_tokens_shared.json');

/** What the Laravel clients hold: `<id>|<secret>`, the export holding the SHA-256 of each secret. */
const SANCTUM_CLIENTS = {
  nakamura: '7|Nk7wQ2mZ9pLx4RtV8bYc3HsJ6dFg1KaE5uWq0OiP',
  kobayashi: '8|Kb3vT9nQ2wXe7RmL5zPa8YcU1sHj4DgF6kNo0IrE',
  expired: '9|Ex9pQ2mZ7wLx4RtV8bYc3HsJ6dFg1KaE5uWq0OiZ',
};
/** What the DRF clients hold: the key itself. */
const DRF_KEYS = { yamada: '9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b', suzuki: 'f3a1c2d4e5b60718293a4b5c6d7e8f9011223344', retired: '0123456789abcdef0123456789abcdef01234567' };

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const json = (value: unknown): string => JSON.stringify(value);
/** A timestamp as the database driver returns it (a Date from PostgreSQL, text from SQLite), in ISO form. */
const iso = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString();

/** Every column of every token row, hash included, in id order. */
function tokenRows(data: DataWorkspace): Promise<Record<string, unknown>[]> {
  return data.withServices(
    async (services) =>
      (await services.registry.tokens()!.model.scope('withHidden').findAll({ order: [['id', 'ASC']], raw: true })) as unknown as Record<string, unknown>[],
  );
}

const sanctumRow = (fields: Record<string, unknown>) => ({
  id: 40,
  tokenable_type: 'App\\Models\\User',
  tokenable_id: 20,
  name: 'new-phone',
  token: sha256('another-secret'),
  abilities: '["*"]',
  last_used_at: null,
  expires_at: null,
  created_at: '2025-05-05 10:00:00',
  updated_at: '2025-05-05 10:00:00',
  ...fields,
});
const drfKey = (pk: unknown, fields: Record<string, unknown> = {}) => ({ model: 'authtoken.token', pk, fields: { user: 10, created: '2025-04-02T10:00:00', ...fields } });

describe('loaddata: access tokens brought over from Laravel Sanctum and Django REST Framework', () => {
  const data = useDataWorkspace();

  test("a Sanctum export loaded with its users keeps each client's <id>|<secret> working at /api/user", async () => {
    const run = await data.manage(['loaddata', LARAVEL_USERS, SANCTUM_TOKENS]);
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toBe('Installed 2 user(s) from 2 file(s): 2 created, 0 updated.\nInstalled 3 access token(s): 3 created, 0 updated.\n');
    await data.withHttp(async (http) => {
      const user = (token: string) => http.get('/api/user').set('Authorization', `Bearer ${token}`).set('Accept', 'application/json');
      expect((await user(SANCTUM_CLIENTS.nakamura)).body.user.email).toBe('nakamura@example.jp');
      expect((await user(SANCTUM_CLIENTS.kobayashi)).body.user.email).toBe('kobayashi@example.jp');
      // Its own expiry came along.
      expect((await user(SANCTUM_CLIENTS.expired)).status).toBe(401);
      // And its abilities: this one may read, not write.
      const reader = { Authorization: `Bearer ${SANCTUM_CLIENTS.kobayashi}`, Accept: 'application/json' };
      expect((await http.get('/api/comments').set(reader)).status).toBe(200);
      expect((await http.post('/api/comments').set(reader).send({ title: 't', body: 'b' })).status).toBe(403);
    });
    const rows = await tokenRows(data);
    expect(rows.map((row) => [row.id, row.tokenable_id, row.name, row.abilities, row.token])).toEqual([
      [7, 20, 'nakamura-iphone', '["*"]', sha256(SANCTUM_CLIENTS.nakamura.slice(2))],
      [8, 21, 'kobayashi-reader', '["comments:read"]', sha256(SANCTUM_CLIENTS.kobayashi.slice(2))],
      [9, 20, 'nakamura-old-laptop', '["*"]', sha256(SANCTUM_CLIENTS.expired.slice(2))],
    ]);
    expect(iso(rows[0]?.created_at)).toBe('2025-05-02T09:00:00.000Z');
  });

  test('users and tokens of both systems load in one command, whatever the order of the files', async () => {
    const run = await data.manage(['loaddata', DRF_TOKENS, SANCTUM_TOKENS, DJANGO_USERS, LARAVEL_USERS]);
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toBe('Installed 5 user(s) from 4 file(s): 5 created, 0 updated.\nInstalled 6 access token(s): 6 created, 0 updated.\n');
    // The DRF keys, which have no id of their own, come after every Sanctum id.
    expect((await tokenRows(data)).map((row) => [row.id, row.tokenable_id, row.name])).toEqual([
      [7, 20, 'nakamura-iphone'],
      [8, 21, 'kobayashi-reader'],
      [9, 20, 'nakamura-old-laptop'],
      [10, 10, 'drf-token'],
      [11, 11, 'drf-token'],
      [12, 12, 'drf-token'],
    ]);
    await data.withHttp(async (http) => {
      expect((await http.get('/comments/').set('Authorization', `Token ${DRF_KEYS.suzuki}`)).status).toBe(200);
      expect((await http.get('/api/user').set('Authorization', `Bearer ${SANCTUM_CLIENTS.nakamura}`)).status).toBe(200);
    });
  });

  test('a DRF authtoken fixture lets "Authorization: Token <key>" in as its user, the key kept only as its SHA-256', async () => {
    expect((await data.manage(['loaddata', DJANGO_USERS, DRF_TOKENS])).status).toBe(0);
    await data.withHttp(async (http) => {
      const key = { Authorization: `Token ${DRF_KEYS.yamada}` };
      expect((await http.get('/comments/').set(key)).status).toBe(200);
      const created = await http.post('/comments/').set(key).send({ title: 'by key', body: 'b' });
      expect(created.status).toBe(201);
      const owner = await data.withServices(async (services) => (await services.registry.get('Comment').model.findByPk(created.body.id as number))?.get('user_id'));
      expect(owner).toBe(10);
    });
    const rows = await tokenRows(data);
    expect(rows.map((row) => [row.tokenable_id, row.name, row.abilities, row.token])).toEqual([
      [10, 'drf-token', '["*"]', sha256(DRF_KEYS.yamada)],
      [11, 'drf-token', '["*"]', sha256(DRF_KEYS.suzuki)],
      [12, 'drf-token', '["*"]', sha256(DRF_KEYS.retired)],
    ]);
    expect(iso(rows[0]?.created_at)).toBe('2025-04-02T10:00:00.123Z');
    expect(rows[0]?.last_used_at).not.toBeNull();
    const stored = JSON.stringify(rows);
    for (const key of Object.values(DRF_KEYS)) expect(stored).not.toContain(key);
  });

  test("a wrong key, an inactive user's key and malformed headers get DRF's 401, message and challenge", async () => {
    await data.manage(['loaddata', DJANGO_USERS, DRF_TOKENS]);
    await data.withHttp(async (http) => {
      const answer = async (authorization: string) => {
        const res = await http.get('/comments/').set('Authorization', authorization).set('Accept-Language', 'en');
        return [res.status, res.headers['www-authenticate'], res.body.detail];
      };
      expect(await answer(`Token ${'0'.repeat(40)}`)).toEqual([401, 'Token', 'Invalid token.']);
      expect(await answer(`Token ${DRF_KEYS.yamada.slice(1)}`)).toEqual([401, 'Token', 'Invalid token.']);
      expect(await answer(`Token ${sha256(DRF_KEYS.yamada)}`)).toEqual([401, 'Token', 'Invalid token.']);
      expect(await answer(`Token ${DRF_KEYS.retired}`)).toEqual([401, 'Token', 'User inactive or deleted.']);
      expect(await answer('Token')).toEqual([401, 'Token', 'Invalid token header. No credentials provided.']);
      expect(await answer(`Token ${DRF_KEYS.yamada} x`)).toEqual([401, 'Token', 'Invalid token header. Token string should not contain spaces.']);
      const japanese = await http.get('/comments/').set('Authorization', `Token ${'0'.repeat(40)}`);
      expect(japanese.body).toEqual({ detail: '不正なトークンです。' });
    });
  });

  test('a Sanctum export as CSV loads as its JSON does, empty cells as null', async () => {
    const rows = JSON.parse(readFileSync(SANCTUM_TOKENS, 'utf8')) as Record<string, unknown>[];
    const columns = Object.keys(rows[0] ?? {});
    const cell = (value: unknown) => (value === null ? '' : `"${String(value).replaceAll('"', '""')}"`);
    const csv = data.file('personal_access_tokens.csv', [columns.join(','), ...rows.map((row) => columns.map((column) => cell(row[column])).join(','))].join('\n'));
    const run = await data.manage(['loaddata', csv, LARAVEL_USERS]);
    expect(run.stdout).toContain('Installed 3 access token(s): 3 created, 0 updated.');
    const loaded = await tokenRows(data);
    expect(loaded.map((row) => [row.id, row.abilities, row.expires_at === null])).toEqual([
      [7, '["*"]', true],
      [8, '["comments:read"]', true],
      [9, '["*"]', false],
    ]);
    await data.withHttp(async (http) => {
      expect((await http.get('/api/user').set('Authorization', `Bearer ${SANCTUM_CLIENTS.kobayashi}`)).status).toBe(200);
    });
  });

  test('loading the same tokens again updates them instead of duplicating them, keeping when a DRF key was last used', async () => {
    await data.manage(['loaddata', DJANGO_USERS, LARAVEL_USERS, DRF_TOKENS, SANCTUM_TOKENS]);
    await data.withHttp(async (http) => {
      expect((await http.get('/comments/').set('Authorization', `Token ${DRF_KEYS.yamada}`)).status).toBe(200);
    });
    const before = await tokenRows(data);
    const run = await data.manage(['loaddata', DJANGO_USERS, LARAVEL_USERS, DRF_TOKENS, SANCTUM_TOKENS]);
    expect(run.stdout).toContain('Installed 6 access token(s): 0 created, 6 updated.');
    const after = await tokenRows(data);
    expect(after.map((row) => [row.id, row.token])).toEqual(before.map((row) => [row.id, row.token]));
    expect(after.find((row) => row.tokenable_id === 10)?.last_used_at).not.toBeNull();
  });

  test("one Django fixture of users and their keys (dumpdata auth.user authtoken.token) loads, the keys before the users or after", async () => {
    const users = JSON.parse(readFileSync(DJANGO_USERS, 'utf8')) as unknown[];
    const keys = JSON.parse(readFileSync(DRF_TOKENS, 'utf8')) as unknown[];
    const run = await data.manage(['loaddata', data.file('keys-first.json', json([...keys, ...users]))]);
    expect(run.stdout).toBe('Installed 3 user(s) from 1 file(s): 3 created, 0 updated.\nInstalled 3 access token(s): 3 created, 0 updated.\n');
    expect((await data.manage(['loaddata', data.file('users-first.json', json([...users, ...keys]))])).stdout).toContain('0 created, 3 updated');
  });

  test('a token of a user the failing load would have made is not also reported as unknown', async () => {
    const users = data.file('users.json', json([{ id: 50, email: 'new@example.jp' }, { id: 51, email: 'not an address' }]));
    const tokens = data.file('tokens.json', json([sanctumRow({ tokenable_id: 50 }), sanctumRow({ id: 41, tokenable_id: 99, token: sha256('third') })]));
    const run = await data.manage(['loaddata', tokens, users]);
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      `${users}, record 2, field "email": Enter a valid email address.`,
      `${tokens}, record 2, field "tokenable_id": No user has id 99 here: load the users too (in the same command, or before).`,
      'Error: nothing was loaded; the database is as it was.',
    ]);
  });

  test('problem reports never repeat a key or a hash', async () => {
    const secretHash = sha256('kept-secret');
    const file = data.file(
      'secrets.json',
      json([
        drfKey(DRF_KEYS.yamada, { user: 99 }),
        drfKey('short-secret-key'),
        sanctumRow({ token: secretHash }),
        sanctumRow({ id: 41, token: secretHash }),
        sanctumRow({ id: 42, token: `${secretHash}ff` }),
      ]),
    );
    const run = await data.manage(['loaddata', LARAVEL_USERS, file]);
    expect(run.stderr.trim().split('\n')).toHaveLength(5);
    for (const secret of [DRF_KEYS.yamada, 'short-secret-key', secretHash]) expect(run.stderr).not.toContain(secret);
  });

  test('messages are Japanese under a Japanese locale', async () => {
    const file = data.file('bad-key.json', json([drfKey('not-a-key')]));
    const run = await data.manage(['loaddata', DJANGO_USERS, file], { LANG: 'ja_JP.UTF-8' });
    expect(run.stderr).toContain(`${file} の 1 件目、項目「pk」: Django REST Framework のキー（16 進 40 桁）が必要です。`);
  });
});

/** [case, file name, content, the line the command must print (after the file's path)]. */
const cases: [string, string, string, string][] = [
  ['a Sanctum token of a user who is not here', 'unknown-user.json', json([sanctumRow({ tokenable_id: 99 })]), ', record 1, field "tokenable_id": No user has id 99 here'],
  ['a DRF key of a user who is not here', 'unknown-drf-user.json', json([drfKey('a'.repeat(40), { user: 99 })]), ', record 1, field "user": No user has id 99 here'],
  ['a Sanctum hash of the wrong length', 'hash-length.json', json([sanctumRow({ token: sha256('x').slice(1) })]), ', record 1, field "token": Expected the SHA-256 of the token\'s secret: 64 hexadecimal digits'],
  ['a Sanctum hash that is not hexadecimal', 'hash-chars.csv', `id,tokenable_type,tokenable_id,name,token\n40,App\\Models\\User,20,phone,${'z'.repeat(64)}\n`, ', record 1, field "token": Expected the SHA-256'],
  ['a DRF key that is not 40 hexadecimal digits', 'key-format.json', json([drfKey('x'.repeat(40))]), ', record 1, field "pk": Expected a Django REST Framework key: 40 hexadecimal digits.'],
  ['a DRF key that is not text', 'key-type.json', json([drfKey(12345)]), ', record 1, field "pk": Expected a Django REST Framework key'],
  ['a DRF user named by a natural key', 'natural.json', json([drfKey('b'.repeat(40), { user: ['yamada'] })]), ', record 1, field "user": The user is named by a natural key'],
  ['a token of another model than the user', 'team.json', json([sanctumRow({ tokenable_type: 'App\\Models\\Team' })]), ', record 1, field "tokenable_type": "App\\Models\\Team" is not the user model'],
  ['a Sanctum row without its id', 'no-id.json', json([sanctumRow({ id: null })]), ', record 1, field "id": This field is required.'],
  ['abilities that are no JSON list', 'abilities.json', json([sanctumRow({ abilities: '*' })]), ', record 1, field "abilities": Expected a JSON list of abilities'],
  ['an expiry that is no timestamp', 'expiry.json', json([sanctumRow({ expires_at: 'tomorrow' })]), ', record 1, field "expires_at": Datetime has wrong format.'],
  ['a name that is too long', 'name.json', json([sanctumRow({ name: 'n'.repeat(256) })]), ', record 1, field "name": name may be at most 255 characters long.'],
  ['the id of another token here', 'taken-id.json', json([sanctumRow({ id: 7 })]), ', record 1, field "id": Id 7 belongs to another access token here'],
  ['a token stored here under another id', 'moved.json', json([sanctumRow({ id: 40, token: sha256(SANCTUM_CLIENTS.nakamura.slice(2)) })]), ', record 1, field "token": This token is already stored here with id 7'],
  ['a Sanctum id twice in the files', 'dup-id.json', json([sanctumRow({}), sanctumRow({ token: sha256('other') })]), ', record 2, field "id": "40" is also in '],
  ['the same DRF key twice in the files', 'dup-key.json', json([drfKey('c'.repeat(40)), drfKey('c'.repeat(40), { user: 11 })]), ', record 2, field "pk": The same token is also in '],
  ['an unknown Django model', 'group.json', json([{ model: 'auth.group', pk: 1, fields: { name: 'editors' } }]), ', record 1, field "model": Unknown model "auth.group": this application\'s data files hold auth.user, personal_access_tokens.accesstoken, comments.comment, authtoken.token.'],
];

describe('loaddata with bad tokens: the file, the record and the field, status 1, users and tokens as they were', () => {
  const data = useDataWorkspace();

  test.each(cases)('%s', async (_case, name, content, message) => {
    await data.manage(['loaddata', DJANGO_USERS, LARAVEL_USERS, SANCTUM_TOKENS, DRF_TOKENS]);
    const before = [await data.users(), await tokenRows(data)];
    const file = data.file(name, content);
    const run = await data.manage(['loaddata', LARAVEL_USERS, DRF_TOKENS, file]);
    expect(run.status).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`${file}${message}`);
    expect(run.stderr.trim().split('\n').at(-1)).toBe('Error: nothing was loaded; the database is as it was.');
    expect([await data.users(), await tokenRows(data)]).toEqual(before);
  });
});
