import { readFileSync, statSync } from 'node:fs';
import { loadDataFiles } from '../../../src/userdata/load.js';
import type { LoadProgress } from '../../../src/userdata/writing.js';
import { describe, expect, jest, test } from '@jest/globals';
import request from 'supertest';
import { createApp } from '../../../src/app.js';
import { formToken } from '../../helpers/pages.js';
import { DJANGO_USERS, LARAVEL_USERS, PASSWORDS, useDataWorkspace } from '../../helpers/userdata.js';
import { unguarded } from '../../../src/throttling.js';

/** A timestamp as the database driver returns it (a Date from PostgreSQL, text from SQLite), in ISO form. */
const iso = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString();

/** The servers' own setting: hashes are upgraded to Django's 600,000 iterations. */
const PRODUCT_HASHER = { PASSWORD_HASH_ITERATIONS: '600000' };

describe('loaddata: users brought over from Django and Laravel', () => {
  const data = useDataWorkspace();

  test('both exports load in one command and report what was created', async () => {
    const run = await data.manage(['loaddata', DJANGO_USERS, LARAVEL_USERS]);
    expect(run).toMatchObject({ status: 0, stderr: '' });
    expect(run.stdout).toBe('Installed 5 user(s) from 2 file(s): 5 created, 0 updated.\n');
  });

  test('Django users keep their passwords for HTTP Basic, the token login and the browser login; the inactive one is refused', async () => {
    await data.manage(['loaddata', DJANGO_USERS]);
    await data.withHttp(async (http) => {
      for (const username of ['yamada', 'suzuki'] as const) {
        expect((await http.get('/comments/').auth(username, PASSWORDS[username])).status).toBe(200);
      }
      expect((await http.get('/comments/').auth('yamada', 'wrong')).status).toBe(401);
      expect((await http.get('/comments/').auth('retired', PASSWORDS.retired)).status).toBe(401);
      const login = await http.post('/api/login').send({ email: 'suzuki@example.jp', password: PASSWORDS.suzuki });
      expect(login.status).toBe(201);
      expect(login.body.user.name).toBe('花子 鈴木');
      const refused = await http.post('/api/login').send({ email: 'retired@example.jp', password: PASSWORDS.retired });
      expect(refused.status).toBe(404);
    }, PRODUCT_HASHER);
    await data.withServices(async (services) => {
      for (const [username, landed] of [['yamada', 302], ['retired', 200]] as const) {
        const browser = request.agent(createApp(services));
        const page = await browser.get('/api-auth/login/');
        const csrfmiddlewaretoken = formToken(page.text);
        const login = await browser.post('/api-auth/login/').type('form').send({ csrfmiddlewaretoken, username, password: PASSWORDS[username] });
        expect([username, login.status]).toEqual([username, landed]);
      }
    }, PRODUCT_HASHER);
  });

  test('Laravel users log in at /api/login by email; their bcrypt hash becomes pbkdf2_sha256$600000 once', async () => {
    await data.manage(['loaddata', LARAVEL_USERS]);
    const storedHash = async () => (await data.users()).find((user) => user.email === 'nakamura@example.jp')?.password;
    expect(await storedHash()).toMatch(/^\$2y\$10\$/);
    await data.withHttp(async (http, services) => {
      const make = jest.spyOn(services.accounts.hasher, 'make');
      const credentials = { email: 'nakamura@example.jp', password: PASSWORDS['nakamura@example.jp'] };
      expect((await http.post('/api/login').send(credentials)).status).toBe(201);
      const upgraded = await storedHash();
      expect(upgraded).toMatch(/^pbkdf2_sha256\$600000\$/);
      expect((await http.post('/api/login').send(credentials)).status).toBe(201);
      expect((await http.get('/comments/').auth('nakamura@example.jp', credentials.password)).status).toBe(200);
      expect(await storedHash()).toBe(upgraded);
      expect(make).toHaveBeenCalledTimes(1);
      const other = { email: 'KOBAYASHI@example.jp', password: PASSWORDS['kobayashi@example.jp'] };
      expect((await http.post('/api/login').send(other)).status).toBe(201);
    }, PRODUCT_HASHER);
  });

  test("a record's columns arrive as the source system meant them", async () => {
    await data.manage(['loaddata', DJANGO_USERS, LARAVEL_USERS]);
    const users = await data.users();
    expect(users.map((user) => [user.id, user.username, user.name, Boolean(user.is_staff), Boolean(user.is_active)])).toEqual([
      [10, 'yamada', '太郎 山田', false, true],
      [11, 'suzuki', '花子 鈴木', true, true],
      [12, 'retired', 'retired', false, false],
      [20, 'nakamura@example.jp', '中村 一郎', false, true],
      [21, 'kobayashi@example.jp', '小林 さくら', false, true],
    ]);
    const yamada = users[0] ?? {};
    expect(iso(yamada.created_at)).toBe('2025-04-01T09:30:00.123Z');
    expect(yamada.first_name).toBe('太郎');
    const nakamura = users[3] ?? {};
    expect(iso(nakamura.updated_at)).toBe('2025-05-01T10:00:00.000Z');
  });

  test('loading the same files again updates the same users instead of duplicating them', async () => {
    await data.manage(['loaddata', DJANGO_USERS, LARAVEL_USERS]);
    const edited = JSON.parse(readFileSync(DJANGO_USERS, 'utf8')) as { fields: Record<string, unknown> }[];
    (edited[0] as { fields: Record<string, unknown> }).fields.email = 'taro.yamada@example.jp';
    const run = await data.manage(['loaddata', data.file('edited.json', JSON.stringify(edited)), LARAVEL_USERS]);
    expect(run.stdout).toBe('Installed 5 user(s) from 2 file(s): 0 created, 5 updated.\n');
    const users = await data.users();
    expect(users).toHaveLength(5);
    expect(users[0]).toMatchObject({ id: 10, username: 'yamada', email: 'taro.yamada@example.jp' });
  });

  test('a record without pk updates the user with its username, keeping what the record leaves out', async () => {
    await data.manage(['createuser', '--username', 'hanako', '--email', 'hanako@example.jp', '--password', 'kept-pw']);
    const csv = data.file('staff.csv', 'username,email,is_staff\nhanako,hanako@example.jp,true\n');
    expect((await data.manage(['loaddata', csv])).stdout).toContain('0 created, 1 updated');
    const login = await data.withServices((services) => services.accounts.authenticate('hanako', 'kept-pw', unguarded));
    expect(login).toMatchObject({ username: 'hanako', isStaff: true });
  });

  test('CSV with Japanese names: plaintext passwords are hashed on load, booleans read as spreadsheets write them', async () => {
    const csv = data.file(
      'people.csv',
      '\ufeffusername,email,name,password,is_staff,is_superuser,is_active\n' +
        'sato,sato@example.jp,佐藤 健,"pw, with comma",TRUE,false,1\n' +
        ',ito@example.jp,伊藤 美咲,伊藤のパスワード,,,\n' +
        'kato,kato@example.jp,,,no,no,no\n',
    );
    const run = await data.manage(['loaddata', csv]);
    expect(run).toMatchObject({ status: 0, stdout: 'Installed 3 user(s) from 1 file(s): 3 created, 0 updated.\n' });
    const users = await data.users();
    expect(users.map((user) => [user.username, user.name, Boolean(user.is_staff), Boolean(user.is_active)])).toEqual([
      ['sato', '佐藤 健', true, true],
      ['ito@example.jp', '伊藤 美咲', false, true],
      ['kato', 'kato', false, false],
    ]);
    expect(users[0]?.password).toMatch(/^pbkdf2_sha256\$1000\$/);
    expect(users[2]?.password).toMatch(/^!/);
    await data.withServices(async (services) => {
      expect(await services.accounts.authenticate('sato', 'pw, with comma', unguarded)).toMatchObject({ displayName: '佐藤 健' });
      expect(await services.accounts.authenticate('ito@example.jp', '伊藤のパスワード', unguarded)).not.toBeNull();
    });
  });

  test('a reload without names keeps the display name a row has', async () => {
    await data.manage(['loaddata', data.file('named.json', JSON.stringify([{ id: 1, email: 'yamada@example.jp', name: '山田 太郎' }]))]);
    await data.manage(['loaddata', data.file('staff.csv', 'username,email,is_staff\nyamada@example.jp,yamada@example.jp,true\n')]);
    expect((await data.users())[0]).toMatchObject({ name: '山田 太郎', is_staff: expect.anything() });
    expect(Boolean((await data.users())[0]?.is_staff)).toBe(true);
  });

  test('records with and without ids mix in one load, and new ids come after the given ones', async () => {
    const file = data.file('mixed.json', JSON.stringify([{ id: 1, email: 'a@example.jp' }, { email: 'b@example.jp' }, { id: 2, email: 'c@example.jp' }]));
    expect((await data.manage(['loaddata', file])).stdout).toContain('3 created');
    expect((await data.users()).map((user) => [user.id, user.email])).toEqual([
      [1, 'a@example.jp'],
      [2, 'c@example.jp'],
      [3, 'b@example.jp'],
    ]);
  });

  test("a password that only starts like Django's unusable marker is a password", async () => {
    await data.manage(['loaddata', data.file('bang.csv', 'username,email,password\nbang,bang@example.jp,!Passw0rd\n')]);
    expect((await data.users())[0]?.password).toMatch(/^pbkdf2_sha256\$/);
    expect(await data.withServices((services) => services.accounts.authenticate('bang', '!Passw0rd', unguarded))).not.toBeNull();
  });

  test('fields this service has no column for are left out with a warning', async () => {
    const file = data.file('extra.json', JSON.stringify([{ email: 'x@example.jp', two_factor_secret: 'abc', current_team_id: null }]));
    const run = await data.manage(['loaddata', file]);
    expect(run.status).toBe(0);
    expect(run.stdout).toContain(`Warning: ${file}: left out fields this service has no column for: two_factor_secret`);
  });

  test('accounts made after a load get fresh ids past the loaded ones', async () => {
    await data.manage(['loaddata', DJANGO_USERS, LARAVEL_USERS]);
    expect((await data.manage(['createuser', '--username', 'new', '--email', 'new@example.jp', '--password', 'x'])).status).toBe(0);
    expect((await data.users()).at(-1)).toMatchObject({ id: 22, username: 'new' });
  });

  test('a file larger than one batch loads whole, and a problem deep inside it is found by record number', async () => {
    const hash = 'pbkdf2_sha256$1000$salt$' + Buffer.alloc(32, 7).toString('base64');
    const rows = Array.from({ length: 1203 }, (_, index) => `user${index},user${index}@example.jp,${hash}`);
    const good = data.file('many.csv', `username,email,password\n${rows.join('\n')}\n`);
    expect((await data.manage(['loaddata', good])).stdout).toContain('1203 created');
    rows[1100] = `user5,other@example.jp,${hash}`;
    const bad = data.file('many-bad.csv', `username,email,password\n${rows.join('\n')}\n`);
    const before = await data.users();
    const run = await data.manage(['loaddata', bad]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${bad}, record 1101, field "username": "user5" is also in ${bad}, record 6.`);
    expect(await data.users()).toEqual(before);
  });

  test('a large file reports its progress by bytes read, for the progress bar', async () => {
    const rows = Array.from({ length: 1100 }, (_, index) => `user${index},user${index}@example.jp,!`);
    const file = data.file('progress.csv', `username,email,password\n${rows.join('\n')}\n`);
    const seen: LoadProgress[] = [];
    await data.withServices((services) =>
      loadDataFiles(services.registry, services.accounts.hasher, [file], { onProgress: (progress) => seen.push(progress) }),
    );
    expect(seen.map((progress) => progress.records)).toEqual([500, 1000, 1100]);
    expect(seen.every((progress) => progress.file === file && progress.bytesTotal === statSync(file).size)).toBe(true);
    expect(seen.at(-1)?.bytesRead).toBe(statSync(file).size);
  });

  test('messages are Japanese under a Japanese locale', async () => {
    const file = data.file('bad.json', JSON.stringify([{ model: 'auth.group', pk: 1, fields: {} }]));
    const run = await data.manage(['loaddata', file], { LANG: 'ja_JP.UTF-8' });
    expect(run.stderr).toContain(`${file} の 1 件目、項目「model」: モデル「auth.group」は扱えません。`);
    expect(run.stderr).toContain('エラー: 何も読み込んでいません。データベースは元のままです。');
  });
});
