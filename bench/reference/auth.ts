/**
 * The same-stack reference's credentials (bench/reference.ts), each checked
 * against the database as the server checks it, without the framework:
 *   - bearer `<id>|<secret>`: the token row by primary key (its owner's
 *     is_active joined), the SHA-256 of the secret compared in constant time,
 *     the expiry, the ability, last_used_at at most once a minute;
 *   - HTTP Basic: a per-process cache keyed by the Authorization header, so
 *     that the PBKDF2 check happens once; then the account by primary key on
 *     every request (still active, the same stored hash);
 *   - the session cookie: express-session's signed `sessionid` checked with
 *     cookie-signature, the session row as connect-session-sequelize keeps it
 *     (its cookie's expiry, passport's user id), the account by primary key and
 *     the session auth hash (an HMAC of its stored password hash).
 */
import { createHash, createHmac, pbkdf2, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import signature from 'cookie-signature';
import { parseStoredDate, type ReferenceDatabase, type UserRow } from './database.js';

const pbkdf2Async = promisify(pbkdf2);
const LAST_USED_RESOLUTION_MS = 60_000;
const SESSION_COOKIE = 'sessionid';

export interface Caller {
  userId: number;
  /** The bearer token's abilities; null for Basic and session callers (who may do everything). */
  abilities: string[] | null;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

export async function bearerCaller(db: ReferenceDatabase, authorization: string): Promise<Caller | null> {
  if (!authorization.startsWith('Bearer ')) return null;
  const value = authorization.slice('Bearer '.length);
  const separator = value.indexOf('|');
  if (separator <= 0 || value.length > 255) return null;
  const id = Number(value.slice(0, separator));
  if (!Number.isSafeInteger(id) || id < 1) return null;
  const row = await db.token(id);
  if (!row || !sameText(createHash('sha256').update(value.slice(separator + 1), 'utf8').digest('hex'), row.token)) return null;
  const now = new Date();
  if (row.expires_at !== null && parseStoredDate(row.expires_at).getTime() <= now.getTime()) return null;
  if (!row.is_active) return null;
  const threshold = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
  if (row.last_used_at === null || parseStoredDate(row.last_used_at) <= threshold) await db.touchToken(row.id, now, threshold);
  let abilities: string[] = [];
  try {
    const parsed: unknown = JSON.parse(row.abilities ?? '[]');
    if (Array.isArray(parsed)) abilities = parsed.filter((item): item is string => typeof item === 'string');
  } catch {
    // A damaged column grants nothing.
  }
  return { userId: row.user_id, abilities };
}

/** Sanctum's can(): the ability, or `*`. */
export function can(caller: Caller, ability: string): boolean {
  return caller.abilities === null || caller.abilities.includes('*') || caller.abilities.includes(ability);
}

/** Django's `pbkdf2_sha256$<iterations>$<salt>$<base64>`. */
async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [algorithm, iterations, salt, hash] = stored.split('$');
  if (algorithm !== 'pbkdf2_sha256' || !iterations || salt === undefined || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const derived = await pbkdf2Async(Buffer.from(password, 'utf8'), Buffer.from(salt, 'utf8'), Number(iterations), expected.length, 'sha256');
  return timingSafeEqual(derived, expected);
}

/** Authorization header → the account it opened and its stored hash then. */
const checkedBasic = new Map<string, { userId: number; storedHash: string }>();

function stillOpens(row: UserRow | undefined, storedHash: string): row is UserRow {
  return row !== undefined && Boolean(row.is_active) && row.password === storedHash;
}

export async function basicCaller(db: ReferenceDatabase, authorization: string): Promise<Caller | null> {
  if (!authorization.startsWith('Basic ')) return null;
  const remembered = checkedBasic.get(authorization);
  if (remembered) {
    if (stillOpens(await db.user(remembered.userId), remembered.storedHash)) return { userId: remembered.userId, abilities: null };
    checkedBasic.delete(authorization);
  }
  const decoded = Buffer.from(authorization.slice('Basic '.length), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return null;
  const row = await db.userByUsername(decoded.slice(0, colon));
  if (!row || !row.is_active || !(await passwordMatches(decoded.slice(colon + 1), row.password))) return null;
  checkedBasic.set(authorization, { userId: row.id, storedHash: row.password });
  return { userId: row.id, abilities: null };
}

function cookieValue(header: string, name: string): string | undefined {
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals > 0 && pair.slice(0, equals).trim() === name) return pair.slice(equals + 1).trim();
  }
  return undefined;
}

interface StoredSession {
  cookie?: { expires?: string | null };
  passport?: { user?: unknown };
  authHash?: string;
}

export async function sessionCaller(db: ReferenceDatabase, cookieHeader: string, secret: string): Promise<Caller | null> {
  const raw = cookieValue(cookieHeader, SESSION_COOKIE);
  if (raw === undefined) return null;
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    return null;
  }
  if (!value.startsWith('s:')) return null;
  const sid = signature.unsign(value.slice(2), secret);
  if (sid === false) return null;
  const row = await db.session(sid);
  if (!row?.data) return null;
  let session: StoredSession;
  try {
    session = JSON.parse(row.data) as StoredSession;
  } catch {
    return null;
  }
  const expires = session.cookie?.expires ? new Date(session.cookie.expires) : null;
  if (!expires || expires.getTime() <= Date.now()) return null;
  const userId = session.passport?.user;
  if (typeof userId !== 'number') return null;
  const user = await db.user(userId);
  if (!user || !user.is_active || session.authHash === undefined) return null;
  const current = createHmac('sha256', secret).update(`session-auth-hash:${user.password}`, 'utf8').digest('hex');
  return sameText(session.authHash, current) ? { userId, abilities: null } : null;
}
