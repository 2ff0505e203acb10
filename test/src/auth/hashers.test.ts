import { performance } from 'node:perf_hooks';
import { createHash, pbkdf2Sync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, beforeEach, describe, expect, jest, test } from '@jest/globals';
import bcrypt from 'bcryptjs';
import { classifyPassword, inDjangoFormat, PasswordHasher, unusablePassword } from '../../../src/auth/hashers.js';

interface DjangoUser {
  fields: { username: string; password: string };
}

interface LaravelUser {
  email: string;
  password: string;
}

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures');
const djangoUsers = JSON.parse(readFileSync(path.join(fixtures, 'django_users_shared.json'), 'utf8')) as DjangoUser[];
const laravelUsers = JSON.parse(readFileSync(path.join(fixtures, 'laravel_users_shared.json'), 'utf8')) as LaravelUser[];
const djangoPasswords: Record<string, string> = {
  yamada: 'yamada-pass-1',
  suzuki: 'suzuki-pass-2',
  retired: 'retired-pass-3',
};

describe('Django pbkdf2_sha256 password hashes', () => {
  const hasher = new PasswordHasher();

  test.each(djangoUsers.map((user) => [user.fields.username, user.fields.password]))(
    'a hash made by Django for %s verifies with its password and not with another',
    async (username, encoded) => {
      expect(await hasher.check(djangoPasswords[username] ?? '', encoded)).toEqual({ valid: true, mustUpdate: false });
      expect((await hasher.check('not-the-password', encoded)).valid).toBe(false);
    },
  );

  test("new hashes have Django's format with 600,000 iterations by default and a fresh salt each time", async () => {
    const first = await hasher.make('secret');
    const second = await hasher.make('secret');
    expect(first).toMatch(/^pbkdf2_sha256\$600000\$[A-Za-z0-9]{22}\$[A-Za-z0-9+/]{43}=$/);
    expect(second).not.toBe(first);
    expect((await hasher.check('secret', first)).valid).toBe(true);
  });

  test('a hash with fewer iterations than configured verifies and asks to be replaced', async () => {
    const weak = await new PasswordHasher(1000).make('pw');
    expect(await new PasswordHasher(2000).check('pw', weak)).toEqual({ valid: true, mustUpdate: true });
    expect(await new PasswordHasher(2000).check('wrong', weak)).toEqual({ valid: false, mustUpdate: false });
  });

  test('non-ASCII passwords hash as UTF-8, as Django does', async () => {
    const quick = new PasswordHasher(1000);
    const encoded = await quick.make('パスワード🔑');
    expect((await quick.check('パスワード🔑', encoded)).valid).toBe(true);
    expect((await quick.check('パスワード', encoded)).valid).toBe(false);
  });

  test.each([
    ['an empty value', ''],
    ['an unusable password', '!abcdef'],
    ['another algorithm', 'md5$salt$hash'],
    ['a truncated hash', 'pbkdf2_sha256$1000$salt'],
    ['a non-numeric iteration count', 'pbkdf2_sha256$many$salt$aGFzaA=='],
    ['an absurd iteration count', 'pbkdf2_sha256$999999999$salt$aGFzaA=='],
    ['a digest that is not base64', 'pbkdf2_sha256$1000$salt$***'],
    ['a digest of the wrong length', 'pbkdf2_sha256$1000$salt$aGFzaA=='],
  ])('%s never verifies', async (_case, encoded) => {
    expect((await new PasswordHasher(1000).check('', encoded)).valid).toBe(false);
  });
});

const laravelPasswords: Record<string, string> = {
  'nakamura@example.jp': 'nakamura-pass-4',
  'kobayashi@example.jp': 'kobayashi-pass-5',
};

/** A bcrypt hash as bcryptjs makes it: `$2b$04$…`, cost 4 to keep the tests fast. */
function bcryptHash(password: string): string {
  const encoded = bcrypt.hashSync(password, 4);
  expect(encoded).toMatch(/^\$2b\$04\$[./A-Za-z0-9]{53}$/);
  return encoded;
}

/** Django's BCryptSHA256PasswordHasher: bcrypt of the lowercase hex SHA-256 digest of the UTF-8 password. */
function bcryptSha256Hash(password: string): string {
  return `bcrypt_sha256$${bcryptHash(createHash('sha256').update(password, 'utf8').digest('hex'))}`;
}

describe('bcrypt password hashes from PHP, Laravel and Django', () => {
  const hasher = new PasswordHasher(1000);

  test('the Laravel fixture holds the two PHP bcrypt hashes these tests expect', () => {
    expect(laravelUsers.map((user) => user.email).sort()).toEqual(Object.keys(laravelPasswords).sort());
    for (const user of laravelUsers) expect(user.password).toMatch(/^\$2y\$10\$/);
  });

  test.each(laravelUsers.map((user) => [user.email, user.password]))(
    'a hash made by PHP for %s verifies with its password and asks to be replaced, and not with another',
    async (email, encoded) => {
      expect(await hasher.check(laravelPasswords[email] ?? '', encoded)).toEqual({ valid: true, mustUpdate: true });
      expect(await hasher.check('not-the-password', encoded)).toEqual({ valid: false, mustUpdate: false });
    },
  );

  test('$2b$ and $2a$ hashes verify with their password and not with another', async () => {
    const encoded2b = bcryptHash('open sesame');
    const encoded2a = encoded2b.replace(/^\$2b\$/, '$2a$');
    for (const encoded of [encoded2b, encoded2a]) {
      expect(await hasher.check('open sesame', encoded)).toEqual({ valid: true, mustUpdate: true });
      expect(await hasher.check('open sesame!', encoded)).toEqual({ valid: false, mustUpdate: false });
    }
  });

  test("Django's bcrypt$ format verifies with its password and not with another", async () => {
    const encoded = `bcrypt$${bcryptHash('open sesame')}`;
    expect(await hasher.check('open sesame', encoded)).toEqual({ valid: true, mustUpdate: true });
    expect(await hasher.check('Open sesame', encoded)).toEqual({ valid: false, mustUpdate: false });
  });

  test("Django's bcrypt_sha256$ format verifies with its password and not with another", async () => {
    const encoded = bcryptSha256Hash('パスワード🔑');
    expect(await hasher.check('パスワード🔑', encoded)).toEqual({ valid: true, mustUpdate: true });
    expect(await hasher.check('パスワード', encoded)).toEqual({ valid: false, mustUpdate: false });
  });

  test('bcrypt checks run off the main thread, which stays free for other requests meanwhile', async () => {
    // Cost 10, as Laravel's default: four checks at once keep two workers busy while the main thread only waits.
    const encoded = bcrypt.hashSync('open sesame', 10);
    const before = performance.eventLoopUtilization();
    const checks = await Promise.all(['open sesame', 'wrong', 'open sesame', 'wrong'].map((password) => hasher.check(password, encoded)));
    const busy = performance.eventLoopUtilization(before).utilization;
    expect(checks.map((check) => check.valid)).toEqual([true, false, true, false]);
    // bcryptjs on the main thread keeps it busy nearly all the time; waiting for workers, nearly none.
    expect(busy).toBeLessThan(0.5);
  });

  test('bcrypt_sha256 checks a password longer than 72 bytes whole', async () => {
    const common = 'x'.repeat(72);
    const encoded = bcryptSha256Hash(`${common}-first`);
    expect((await hasher.check(`${common}-first`, encoded)).valid).toBe(true);
    expect((await hasher.check(`${common}-second`, encoded)).valid).toBe(false);
  });

  test('a Laravel hash put in Django\'s format still verifies', async () => {
    const [user] = laravelUsers;
    const converted = inDjangoFormat(user?.password ?? '');
    expect(await hasher.check(laravelPasswords[user?.email ?? ''] ?? '', converted)).toEqual({
      valid: true,
      mustUpdate: true,
    });
  });
});

describe('broken bcrypt hashes', () => {
  const hasher = new PasswordHasher(1000);
  const good = bcryptHash('open sesame');
  const body = good.slice('$2b$04$'.length);

  test.each([
    ['a cost above 13 (seconds of CPU on every login)', `$2b$14$${body}`],
    ['a cost of 99', `$2b$99$${body}`],
    ['a cost below 4', `$2b$03$${body}`],
    ['a one-digit cost', `$2b$4$${body}`],
    ['a hash one character short', good.slice(0, -1)],
    ['a hash one character long', `${good}a`],
    ['a hash with a character bcrypt never writes', `${good.slice(0, -1)}+`],
    ['a hash with a space in it', `${good.slice(0, 20)} ${good.slice(21)}`],
    ['an unknown bcrypt variant', good.replace(/^\$2b\$/, '$2x$')],
  ])('%s never verifies and is taken for a malformed bcrypt hash', async (_case, encoded) => {
    expect(await hasher.check('open sesame', encoded)).toEqual({ valid: false, mustUpdate: false });
    expect(await hasher.check('open sesame', `bcrypt$${encoded}`)).toEqual({ valid: false, mustUpdate: false });
    expect(classifyPassword(encoded)).toEqual({ kind: 'malformed', algorithm: 'bcrypt' });
    expect(classifyPassword(`bcrypt$${encoded}`)).toEqual({ kind: 'malformed', algorithm: 'bcrypt' });
    expect(classifyPassword(`bcrypt_sha256$${encoded}`)).toEqual({ kind: 'malformed', algorithm: 'bcrypt_sha256' });
  });

  test('costs from 4 to 13 are accepted as hashes', () => {
    expect(classifyPassword(`$2b$04$${body}`)).toEqual({ kind: 'hash', algorithm: 'bcrypt' });
    expect(classifyPassword(`$2y$13$${body}`)).toEqual({ kind: 'hash', algorithm: 'bcrypt' });
  });
});

describe('Django pbkdf2_sha1 hashes and iteration counts', () => {
  test('a pbkdf2_sha1 hash verifies with its password and asks to be replaced, and not with another', async () => {
    const key = pbkdf2Sync(Buffer.from('sha1-pass', 'utf8'), 'seasalt', 1000, 20, 'sha1').toString('base64');
    const encoded = `pbkdf2_sha1$1000$seasalt$${key}`;
    const hasher = new PasswordHasher(1000);
    expect(await hasher.check('sha1-pass', encoded)).toEqual({ valid: true, mustUpdate: true });
    expect(await hasher.check('sha1-pas', encoded)).toEqual({ valid: false, mustUpdate: false });
  });

  test('a pbkdf2_sha256 hash with more iterations than configured verifies and asks to be replaced', async () => {
    const strong = await new PasswordHasher(2000).make('pw');
    expect(await new PasswordHasher(1000).check('pw', strong)).toEqual({ valid: true, mustUpdate: true });
    expect(await new PasswordHasher(1000).check('wrong', strong)).toEqual({ valid: false, mustUpdate: false });
  });

  test('a pbkdf2_sha256 hash with exactly the configured iterations does not ask to be replaced', async () => {
    const current = await new PasswordHasher(1000).make('pw');
    expect(await new PasswordHasher(1000).check('pw', current)).toEqual({ valid: true, mustUpdate: false });
  });
});

describe('what a stored password value is', () => {
  const bcryptEncoded = bcryptHash('open sesame');

  test.each([
    ['a pbkdf2_sha256 hash', 'pbkdf2_sha256$600000$aePimDMKpDJfTD6Gn3exee$BS1W8QWXX+hxF9vk2ZziykzDiBSVghUamsE2O+KnVuo=', 'pbkdf2_sha256'],
    ['a pbkdf2_sha1 hash', 'pbkdf2_sha1$1000$seasalt$qcKzKjmGQBRbm8B+4FV9i9kNXSo=', 'pbkdf2_sha1'],
    ['a bare PHP bcrypt hash', '$2y$10$gsnofKeCe9RuRLr4GpWrrO7Ds.WabGDgJOAGKAQ2EaWVz.LUcd0wu', 'bcrypt'],
    ['a bare $2b$ bcrypt hash', bcryptEncoded, 'bcrypt'],
    ["a Django bcrypt$ hash", `bcrypt$${bcryptEncoded}`, 'bcrypt'],
    ["a Django bcrypt_sha256$ hash", `bcrypt_sha256$${bcryptEncoded}`, 'bcrypt_sha256'],
  ])('%s is a hash', (_case, value, algorithm) => {
    expect(classifyPassword(value)).toEqual({ kind: 'hash', algorithm });
  });

  test.each([['!'], [unusablePassword()]])("Django's unusable marker %s is an unusable password", (value) => {
    expect(classifyPassword(value)).toEqual({ kind: 'unusable' });
  });

  test.each([['!xyz'], ['!Passw0rd'], [`!${'a'.repeat(39)}`]])('%s, which only starts like the marker, is a plaintext password', (value) => {
    expect(classifyPassword(value)).toEqual({ kind: 'plaintext' });
  });

  test.each([
    ['a digest cut short', 'pbkdf2_sha256$600000$salt$AAAA'],
    ['a sha1-sized digest under sha256', 'pbkdf2_sha256$1000$seasalt$qcKzKjmGQBRbm8B+4FV9i9kNXSo='],
    ['a sha256-sized digest under sha1', 'pbkdf2_sha1$1000$salt$BS1W8QWXX+hxF9vk2ZziykzDiBSVghUamsE2O+KnVuo='],
  ])('a pbkdf2 hash with %s is malformed', (_case, value) => {
    expect(classifyPassword(value)).toMatchObject({ kind: 'malformed' });
  });

  test.each([
    ['argon2$argon2id$v=19$m=102400,t=2,p=8$c29tZXNhbHQ$aGFzaA', 'argon2'],
    ['scrypt$16384$salt$8$1$aGFzaA==', 'scrypt'],
    ['md5$salt$hash', 'md5'],
    ['sha1$salt$0123456789abcdef0123456789abcdef01234567', 'sha1'],
    ['unsalted_sha1$$0123456789abcdef0123456789abcdef01234567', 'unsalted_sha1'],
    ['crypt$$abN4bR0hKqmWE', 'crypt'],
    ['$argon2id$v=19$m=65536,t=4,p=1$c29tZXNhbHQ$aGFzaA', 'argon2id'],
    ['$6$salt$hash', '6'],
    ['5f4dcc3b5aa765d61d8327deb882cf99', 'unsalted_md5'],
  ])('%s names another algorithm, %s, and is refused by name', (value, algorithm) => {
    expect(classifyPassword(value)).toEqual({ kind: 'unsupported', algorithm });
  });

  test.each([
    ['pbkdf2_sha256$1000$salt', 'pbkdf2_sha256'],
    ['pbkdf2_sha1$1000$salt', 'pbkdf2_sha1'],
    ['$2y$10$short', 'bcrypt'],
    ['bcrypt$$2b$10$short', 'bcrypt'],
    ['bcrypt_sha256$', 'bcrypt_sha256'],
  ])('a truncated %s is a malformed %s hash', (value, algorithm) => {
    expect(classifyPassword(value)).toEqual({ kind: 'malformed', algorithm });
  });

  test.each([['correct horse'], ['pa$$word'], ['hello$world'], ['日本語のパスワード']])(
    'an ordinary password %p is a plaintext password',
    (value) => {
      expect(classifyPassword(value)).toEqual({ kind: 'plaintext' });
    },
  );
});

describe('unusable passwords', () => {
  test("an unusable password is Django's marker: '!' and 40 more characters, different each time", () => {
    const first = unusablePassword();
    const second = unusablePassword();
    expect(first).toMatch(/^![A-Za-z0-9]{40}$/);
    expect(first).toHaveLength(41);
    expect(second).not.toBe(first);
  });

  test('no password verifies against an unusable password, not even the value itself', async () => {
    const hasher = new PasswordHasher(1000);
    const value = unusablePassword();
    for (const attempt of ['', value, value.slice(1), '!']) {
      expect(await hasher.check(attempt, value)).toEqual({ valid: false, mustUpdate: false });
    }
  });
});

describe("Django's format for stored hashes", () => {
  test('a bare PHP bcrypt hash gets the bcrypt$ prefix Django expects', () => {
    const encoded = '$2y$10$gsnofKeCe9RuRLr4GpWrrO7Ds.WabGDgJOAGKAQ2EaWVz.LUcd0wu';
    expect(inDjangoFormat(encoded)).toBe(`bcrypt$${encoded}`);
  });

  test.each([
    ['pbkdf2_sha256$600000$aePimDMKpDJfTD6Gn3exee$BS1W8QWXX+hxF9vk2ZziykzDiBSVghUamsE2O+KnVuo='],
    ['pbkdf2_sha1$1000$seasalt$qcKzKjmGQBRbm8B+4FV9i9kNXSo='],
    ['!xyz'],
    ['bcrypt$$2y$10$gsnofKeCe9RuRLr4GpWrrO7Ds.WabGDgJOAGKAQ2EaWVz.LUcd0wu'],
  ])('%s is already in Django\'s format and stays unchanged', (encoded) => {
    expect(inDjangoFormat(encoded)).toBe(encoded);
  });
});

describe('the cost of a failed check', () => {
  /** The pbkdf2 iteration counts the counting copy of the hashers module asked for: the work a check does, without timing it. */
  const iterations: number[] = [];
  let CountingHasher: typeof PasswordHasher;

  beforeAll(async () => {
    const crypto = await import('node:crypto');
    const pbkdf2: typeof crypto.pbkdf2 = (password, salt, count, keyLength, digest, callback) => {
      iterations.push(count);
      crypto.pbkdf2(password, salt, count, keyLength, digest, callback);
    };
    jest.unstable_mockModule('node:crypto', () => ({ ...crypto, default: { ...crypto, pbkdf2 }, pbkdf2 }));
    // The query gives a module instance of its own, which imports the counting node:crypto.
    const specifier = '../../../src/auth/hashers.js?counting-pbkdf2';
    CountingHasher = ((await import(specifier)) as typeof import('../../../src/auth/hashers.js')).PasswordHasher;
  });

  beforeEach(() => {
    iterations.length = 0;
  });

  test('a wrong password against a hash with fewer iterations than configured costs as much as the configured count', async () => {
    const weak = await new CountingHasher(1000).make('pw');

    iterations.length = 0;
    expect(await new CountingHasher(3000).check('pw', weak)).toEqual({ valid: true, mustUpdate: true });
    expect(iterations).toEqual([1000]);

    iterations.length = 0;
    expect(await new CountingHasher(3000).check('wrong', weak)).toEqual({ valid: false, mustUpdate: false });
    expect(iterations.reduce((sum, count) => sum + count, 0)).toBe(3000);
  });

  test('a wrong password against a hash with more iterations than configured costs no more than the hash asks', async () => {
    const strong = await new CountingHasher(2000).make('pw');
    iterations.length = 0;
    expect(await new CountingHasher(1000).check('wrong', strong)).toEqual({ valid: false, mustUpdate: false });
    expect(iterations).toEqual([2000]);
  });
});
