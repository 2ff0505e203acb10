import { describe, expect, test } from '@jest/globals';
import { brokenPasswordRules } from '../../../src/auth/password-rules.js';

const codes = (password: string, words = {}) => brokenPasswordRules(password, words).map((rule) => rule.code);

describe("the password rules (Django's default validators)", () => {
  test('a long, uncommon password unlike the account breaks none', () => {
    expect(codes('correct horse battery staple', { username: 'alice', email: 'alice@example.com' })).toEqual([]);
  });

  test('a password shorter than 8 characters is too short, counted in characters, not bytes', () => {
    expect(brokenPasswordRules('x7#kQ2!')).toEqual([{ code: 'password_too_short', params: { min_length: 8 } }]);
    expect(codes('パスワードを守る鍵')).toEqual([]);
  });

  test('one of the passwords people use most is too common, whatever its case or surrounding spaces', () => {
    expect(codes('password')).toEqual(['password_too_common']);
    expect(codes(' Dragon123 ')).toContain('password_too_common');
    expect(codes('qwertyuiop')).toEqual(['password_too_common']);
  });

  test('a password of digits only is entirely numeric (and, when it is a well-known one, too common too)', () => {
    expect(codes('80472916350')).toEqual(['password_entirely_numeric']);
    expect(codes('12345678')).toEqual(['password_too_common', 'password_entirely_numeric']);
  });

  test("a password too like the account's username, email or a part of it names that field", () => {
    expect(brokenPasswordRules('alice-liddell', { username: 'aliceliddell' }, (field) => `the ${field}`)).toEqual([
      { code: 'password_too_similar', params: { field: 'the username' } },
    ]);
    expect(codes('wonderland99', { email: 'wonderland@example.com' })).toEqual(['password_too_similar']);
    expect(codes('Liddell-Alice', { name: 'Alice Liddell' })).toEqual(['password_too_similar']);
  });

  test('a password far longer than a short account word is not taken for it', () => {
    expect(codes('al-is-for-a-very-long-passphrase-indeed', { username: 'al' })).toEqual([]);
  });

  test('every broken rule is reported at once', () => {
    expect(codes('1234567')).toEqual(['password_too_short', 'password_too_common', 'password_entirely_numeric']);
  });
});
