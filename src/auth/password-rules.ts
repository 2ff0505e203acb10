/**
 * What a new password must be, as Django's default AUTH_PASSWORD_VALIDATORS
 * ask: at least 8 characters, not too like the account's own names, not one
 * of the passwords people use most, not only digits. The same rules apply
 * wherever a password is set (the CLI, the admin, a password change); each
 * broken rule is one field error, all of them at once.
 */
import { createRequire } from 'node:module';
import type { dictionary as Dictionaries } from '@zxcvbn-ts/language-common';
import type { FieldErrorCode } from '../errors.js';

export const MINIMUM_LENGTH = 8;
/** Django's UserAttributeSimilarityValidator default. */
const MAX_SIMILARITY = 0.7;

/**
 * About 49,000 passwords seen most in breaches (zxcvbn-ts's list), compared in lower case. Loaded when a
 * password is first checked: a serving process that never sets one keeps its several megabytes free.
 */
let common: ReadonlySet<string> | undefined;
function commonPasswords(): ReadonlySet<string> {
  if (!common) {
    const { dictionary } = createRequire(import.meta.url)('@zxcvbn-ts/language-common') as { dictionary: typeof Dictionaries };
    common = new Set(dictionary['passwords-common'].map((password) => password.toLowerCase()));
  }
  return common;
}

/** The account's own words a password is compared with: its name for each, e.g. `{ username: 'alice', email: 'alice@example.com' }`. */
export type AccountWords = Readonly<Record<string, string | null | undefined>>;

export interface BrokenRule {
  code: FieldErrorCode;
  params: Record<string, string | number>;
}

/** Python's SequenceMatcher.quick_ratio: how many characters two texts share, whatever their order, over both lengths. */
function quickRatio(a: string, b: string): number {
  const counts = new Map<string, number>();
  for (const character of b) counts.set(character, (counts.get(character) ?? 0) + 1);
  let shared = 0;
  for (const character of a) {
    const left = counts.get(character) ?? 0;
    if (left > 0) {
      shared += 1;
      counts.set(character, left - 1);
    }
  }
  const total = [...a].length + [...b].length;
  return total === 0 ? 0 : (2 * shared) / total;
}

/** A password ten times as long as a word, which is short besides, cannot be "too like" it. */
function farLonger(password: string, word: string): boolean {
  const passwordLength = [...password].length;
  const wordLength = [...word].length;
  return passwordLength >= 10 * wordLength && wordLength < (MAX_SIMILARITY / 2) * passwordLength;
}

/** The first of the account's words the password is too like (the whole word, or a part of it between non-letters). */
function similarWord(password: string, words: AccountWords): string | undefined {
  const lower = password.toLowerCase();
  for (const [name, value] of Object.entries(words)) {
    if (!value) continue;
    const word = value.toLowerCase();
    if (farLonger(lower, word)) continue;
    const parts = [word, ...word.split(/[\W_]+/u).filter(Boolean)];
    if (parts.some((part) => quickRatio(lower, part) >= MAX_SIMILARITY)) return name;
  }
  return undefined;
}

/** Every rule `password` breaks; `words` are the account's names (field name → value), `labels` what people call those fields. */
export function brokenPasswordRules(password: string, words: AccountWords = {}, label: (field: string) => string = (field) => field): BrokenRule[] {
  const broken: BrokenRule[] = [];
  if ([...password].length < MINIMUM_LENGTH) broken.push({ code: 'password_too_short', params: { min_length: MINIMUM_LENGTH } });
  const similar = similarWord(password, words);
  if (similar !== undefined) broken.push({ code: 'password_too_similar', params: { field: label(similar) } });
  if (commonPasswords().has(password.trim().toLowerCase())) broken.push({ code: 'password_too_common', params: {} });
  if (/^\d+$/u.test(password)) broken.push({ code: 'password_entirely_numeric', params: {} });
  return broken;
}
