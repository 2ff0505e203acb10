import { pbkdf2, randomInt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const pbkdf2Async = promisify(pbkdf2);

const SALT_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const SALT_LENGTH = 22; // Django's: about 131 bits
const KEY_LENGTH = 32;
/** A stored hash asking for more than this would stall the server; it is treated as invalid. */
const MAX_ITERATIONS = 10_000_000;

export interface PasswordCheck {
  valid: boolean;
  /** The hash is valid but weaker than what new hashes get: store a fresh one. */
  mustUpdate: boolean;
}

function randomString(length: number): string {
  let result = '';
  for (let i = 0; i < length; i += 1) result += SALT_ALPHABET[randomInt(SALT_ALPHABET.length)];
  return result;
}

interface Pbkdf2Parts {
  iterations: number;
  salt: string;
  hash: Buffer;
}

function parsePbkdf2(encoded: string): Pbkdf2Parts | null {
  const parts = encoded.split('$');
  if (parts.length !== 4 || parts[0] !== 'pbkdf2_sha256') return null;
  const [, iterationsText = '', salt = '', hashText = ''] = parts;
  if (!/^[1-9]\d{0,7}$/.test(iterationsText) || salt === '' || salt.includes('$')) return null;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(hashText)) return null;
  const iterations = Number(iterationsText);
  if (iterations > MAX_ITERATIONS) return null;
  return { iterations, salt, hash: Buffer.from(hashText, 'base64') };
}

async function derive(password: string, salt: string, iterations: number): Promise<Buffer> {
  return pbkdf2Async(Buffer.from(password, 'utf8'), Buffer.from(salt, 'utf8'), iterations, KEY_LENGTH, 'sha256');
}

/**
 * Django's `pbkdf2_sha256$<iterations>$<salt>$<base64>` hashes, both ways:
 * hashes made here verify in Django and the reverse. The work runs on libuv's
 * thread pool (never the sync variant) and digests compare in constant time.
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
    const parts = typeof encoded === 'string' ? parsePbkdf2(encoded) : null;
    if (!parts) {
      await this.spendTimeOfOneCheck(password);
      return { valid: false, mustUpdate: false };
    }
    const derived = await derive(password, parts.salt, parts.iterations);
    const valid = derived.length === parts.hash.length && timingSafeEqual(derived, parts.hash);
    return { valid, mustUpdate: valid && parts.iterations < this.iterations };
  }

  /**
   * The cost of one real check with nothing to compare, so that an unknown
   * account answers in the same time as a wrong password.
   */
  async spendTimeOfOneCheck(password: string): Promise<void> {
    await derive(password, this.dummySalt, this.iterations);
  }
}
