import { createHash, pbkdf2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { bcryptPool } from './bcrypt-workers.js';

const pbkdf2Async = promisify(pbkdf2);

const SALT_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const SALT_LENGTH = 22; // Django's: about 131 bits
/** A stored hash asking for more than this would stall the server; it is treated as invalid. */
const MAX_ITERATIONS = 10_000_000;
/**
 * bcrypt's cost is a power of two: 13 (Laravel uses 10 to 12) is about a
 * second of a worker thread, higher would hold one on each login of the
 * account until its hash is upgraded.
 */
const MAX_BCRYPT_COST = 13;
/** Django's UNUSABLE_PASSWORD_PREFIX: such an account has no password that works. */
const UNUSABLE_PREFIX = '!';
/** What Django writes with that prefix: `!` alone (before 1.6) or with 40 random letters and digits; `!Passw0rd` is a password. */
const UNUSABLE = /^!([A-Za-z0-9]{40})?$/;

/** Formats this product verifies: Django's own and the bcrypt hashes of PHP/Laravel. */
const SUPPORTED = ['pbkdf2_sha256', 'pbkdf2_sha1', 'bcrypt', 'bcrypt_sha256'] as const;
/** Django's other hashers: recognised, so that they are refused by name rather than taken for plaintext. */
const UNSUPPORTED_DJANGO = ['argon2', 'scrypt', 'sha1', 'md5', 'unsalted_sha1', 'unsalted_md5', 'crypt'];

type DecodedHash =
  | { algorithm: 'pbkdf2_sha256' | 'pbkdf2_sha1'; iterations: number; salt: string; hash: Buffer }
  | { algorithm: 'bcrypt' | 'bcrypt_sha256'; modularCrypt: string };

export interface PasswordCheck {
  valid: boolean;
  /** The hash is valid but not in today's format and iteration count: store a fresh one. */
  mustUpdate: boolean;
}

/** What a password value in a user data file is. */
export type StoredPassword =
  | { kind: 'hash'; algorithm: string }
  | { kind: 'unusable' }
  | { kind: 'plaintext' }
  | { kind: 'malformed'; algorithm: string }
  | { kind: 'unsupported'; algorithm: string };

/** Uniform over the alphabet: bytes past the last whole multiple of its length are drawn again. */
function randomString(length: number): string {
  const limit = 256 - (256 % SALT_ALPHABET.length);
  let result = '';
  while (result.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < limit && result.length < length) result += SALT_ALPHABET[byte % SALT_ALPHABET.length];
    }
  }
  return result;
}

function decodePbkdf2(algorithm: 'pbkdf2_sha256' | 'pbkdf2_sha1', rest: string): DecodedHash | null {
  const parts = rest.split('$');
  if (parts.length !== 3) return null;
  const [iterationsText = '', salt = '', hashText = ''] = parts;
  if (!/^[1-9]\d{0,7}$/.test(iterationsText) || salt === '') return null;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(hashText)) return null;
  const iterations = Number(iterationsText);
  const hash = Buffer.from(hashText, 'base64');
  if (iterations > MAX_ITERATIONS || hash.length !== keyLength(algorithm)) return null;
  return { algorithm, iterations, salt, hash };
}

/** `$2a$`, `$2b$` or `$2y$` (PHP's name for the same algorithm), a two-digit cost, 22 salt and 31 hash characters. */
function decodeBcrypt(algorithm: 'bcrypt' | 'bcrypt_sha256', modularCrypt: string): DecodedHash | null {
  const match = /^\$2[aby]\$(\d\d)\$[./A-Za-z0-9]{53}$/.exec(modularCrypt);
  const cost = Number(match?.[1]);
  return match && cost >= 4 && cost <= MAX_BCRYPT_COST ? { algorithm, modularCrypt } : null;
}

/** The algorithm an encoded value names: Django's `algorithm$…`, or `bcrypt` for a bare `$2?$` hash. */
function algorithmOf(encoded: string): string | null {
  if (/^\$2[a-z]?\$/.test(encoded)) return 'bcrypt';
  const modularCrypt = /^\$([a-z0-9-]+)\$/.exec(encoded);
  if (modularCrypt) return modularCrypt[1] ?? null;
  const django = /^([a-z0-9_]+)\$/.exec(encoded);
  if (django) return django[1] ?? null;
  return /^[0-9a-f]{32}$/.test(encoded) ? 'unsalted_md5' : null;
}

function decode(encoded: string): DecodedHash | null {
  if (encoded.startsWith('$')) return decodeBcrypt('bcrypt', encoded);
  const separator = encoded.indexOf('$');
  const algorithm = encoded.slice(0, separator);
  const rest = encoded.slice(separator + 1);
  switch (algorithm) {
    case 'pbkdf2_sha256':
    case 'pbkdf2_sha1':
      return decodePbkdf2(algorithm, rest);
    case 'bcrypt':
    case 'bcrypt_sha256':
      return decodeBcrypt(algorithm, rest);
    default:
      return null;
  }
}

/**
 * How a user data file's password value is taken: a hash this product
 * verifies is kept, Django's unusable marker too, a value that names another
 * or a broken hash is refused, anything else is a plaintext password.
 */
export function classifyPassword(value: string): StoredPassword {
  if (UNUSABLE.test(value)) return { kind: 'unusable' };
  const algorithm = algorithmOf(value);
  if (algorithm === null) return { kind: 'plaintext' };
  if ((SUPPORTED as readonly string[]).includes(algorithm)) {
    return decode(value) ? { kind: 'hash', algorithm } : { kind: 'malformed', algorithm };
  }
  if (UNSUPPORTED_DJANGO.includes(algorithm) || value.startsWith('$')) return { kind: 'unsupported', algorithm };
  return { kind: 'plaintext' };
}

/** Django's make_password(None): a value no password matches. */
export function unusablePassword(): string {
  return UNUSABLE_PREFIX + randomString(40);
}

/**
 * Django's bcrypt hashers store `bcrypt$<hash>`; a bare `$2y$…` hash (PHP,
 * Laravel) gets that prefix so that Django, with BCryptPasswordHasher enabled,
 * verifies it. Other values are already in Django's format.
 */
export function inDjangoFormat(encoded: string): string {
  return encoded.startsWith('$2') ? `bcrypt$${encoded}` : encoded;
}

/** Django's pbkdf2 hashers keep the digest's own length. */
function keyLength(algorithm: 'pbkdf2_sha256' | 'pbkdf2_sha1'): number {
  return algorithm === 'pbkdf2_sha1' ? 20 : 32;
}

async function derive(password: string, salt: string, iterations: number, algorithm: 'pbkdf2_sha256' | 'pbkdf2_sha1' = 'pbkdf2_sha256'): Promise<Buffer> {
  const digest = algorithm === 'pbkdf2_sha1' ? 'sha1' : 'sha256';
  return pbkdf2Async(Buffer.from(password, 'utf8'), Buffer.from(salt, 'utf8'), iterations, keyLength(algorithm), digest);
}

/**
 * New hashes are Django's `pbkdf2_sha256$<iterations>$<salt>$<base64>`, so
 * hashes made here verify in Django and the reverse. Checks also accept
 * pbkdf2_sha1 and bcrypt (bare `$2a$/$2b$/$2y$` as PHP writes them, or Django's
 * `bcrypt$` and `bcrypt_sha256$`), and ask for an upgrade after a success.
 * PBKDF2 runs on libuv's thread pool, bcrypt (bcryptjs) on worker threads
 * (bcrypt-workers.ts): the main thread only waits. Digests compare in constant time.
 */
export class PasswordHasher {
  private readonly dummySalt = randomString(SALT_LENGTH);

  constructor(readonly iterations = 600_000) {}

  async make(password: string): Promise<string> {
    const salt = randomString(SALT_LENGTH);
    const hash = await derive(password, salt, this.iterations);
    return `pbkdf2_sha256$${this.iterations}$${salt}$${hash.toString('base64')}`;
  }

  async check(password: string, encoded: string | null | undefined): Promise<PasswordCheck> {
    const decoded = typeof encoded === 'string' ? decode(encoded) : null;
    if (!decoded) {
      await this.spendTimeOfOneCheck(password);
      return { valid: false, mustUpdate: false };
    }
    const valid = await this.verify(password, decoded);
    if (!valid) await this.hardenRuntime(password, decoded);
    return { valid, mustUpdate: valid && this.isOutdated(decoded) };
  }

  private async verify(password: string, decoded: DecodedHash): Promise<boolean> {
    switch (decoded.algorithm) {
      case 'pbkdf2_sha256':
      case 'pbkdf2_sha1': {
        const derived = await derive(password, decoded.salt, decoded.iterations, decoded.algorithm);
        return derived.length === decoded.hash.length && timingSafeEqual(derived, decoded.hash);
      }
      case 'bcrypt':
        return bcryptPool.compare(password, decoded.modularCrypt);
      case 'bcrypt_sha256':
        // Django hashes the password first so that bcrypt's 72-byte limit does not cut it.
        return bcryptPool.compare(createHash('sha256').update(password, 'utf8').digest('hex'), decoded.modularCrypt);
    }
  }

  private isOutdated(decoded: DecodedHash): boolean {
    return decoded.algorithm !== 'pbkdf2_sha256' || decoded.iterations !== this.iterations;
  }

  /**
   * A failed check of a pbkdf2 hash with fewer iterations than today's takes
   * the difference too (Django's harden_runtime), so a weak hash is not told by timing.
   */
  private async hardenRuntime(password: string, decoded: DecodedHash): Promise<void> {
    if (!('iterations' in decoded) || decoded.iterations >= this.iterations) return;
    await derive(password, this.dummySalt, this.iterations - decoded.iterations);
  }

  /**
   * The cost of one real check with nothing to compare, so that an unknown
   * account answers in the same time as a wrong password.
   */
  async spendTimeOfOneCheck(password: string): Promise<void> {
    await derive(password, this.dummySalt, this.iterations);
  }
}
