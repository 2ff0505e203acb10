import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from '@jest/globals';
import { PasswordHasher } from '../../../src/auth/hashers.js';

interface DjangoUser {
  fields: { username: string; password: string };
}

const fixture = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/django_users_shared.json');
const djangoUsers = JSON.parse(readFileSync(fixture, 'utf8')) as DjangoUser[];
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
