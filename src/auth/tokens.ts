import { hash, randomInt, timingSafeEqual } from 'node:crypto';
import { Op, type Sequelize, type WhereOptions } from 'sequelize';
import { clock } from '../clock.js';
import { parsePk } from '../pk.js';
import { compiledReads, everyColumn, storedRecord, type KeyedRead, type StoredRecord } from '../db/compiled.js';
import { VersionedRows } from '../db/versioned-rows.js';
import { DEFAULT_ABILITIES, storedAbilities } from './abilities.js';
import type { Accounts } from './accounts.js';
import type { Row } from '../types/rows.js';
import type { AccessToken, AuthUser } from '../types/auth.js';
import type { BoundResource } from '../types/resource.js';

const SECRET_LENGTH = 40;
const SECRET_ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** Longer than any token we issue or import; longer input is refused before any work. */
const MAX_TOKEN_LENGTH = 255;
const LAST_USED_RESOLUTION_MS = 60_000;
/** Most tokens kept in memory for the requests that bring them (src/db/versioned-rows.ts). */
const KEPT_TOKENS = 10_000;
/** Sanctum's columns, besides the reference to the user that the contract names. */
const REQUIRED_COLUMNS = ['id', 'name', 'token', 'abilities', 'last_used_at', 'expires_at', 'created_at'] as const;

/** What a new token is: its name (default: the login token name), abilities (default `*`) and own expiry (default none). */
export interface NewToken {
  name?: string;
  abilities?: readonly string[];
  expiresAt?: Date | null;
}

export interface TokenOptions {
  /** Minutes a token lives after its creation; null: until revoked. */
  expirationMinutes: number | null;
}

/** What the token column holds for a secret (a Sanctum secret, a DRF key): its SHA-256, in lower-case hex. */
export function tokenHash(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Django REST Framework's keys: 40 hexadecimal digits (`binascii.hexlify(os.urandom(20))`). */
const DRF_KEY = /^[0-9a-fA-F]{40}$/;

export function isDrfKey(key: string): boolean {
  return DRF_KEY.test(key);
}

/** Why a DRF key was refused: DRF tells the two apart ("Invalid token." and "User inactive or deleted."). */
export type KeyRefusal = 'invalid' | 'inactive';

function randomSecret(): string {
  let secret = '';
  for (let i = 0; i < SECRET_LENGTH; i += 1) secret += SECRET_ALPHABET[randomInt(SECRET_ALPHABET.length)];
  return secret;
}

function sameHash(a: string, b: unknown): boolean {
  if (typeof b !== 'string' || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * Personal access tokens as Laravel Sanctum keeps them: the client holds
 * `<id>|<secret>`, the database only the SHA-256 of the secret. Every token of
 * a user stays valid until revoked or expired. Django REST Framework keys
 * brought over by loaddata live in the same table, also as their SHA-256 only.
 */
export class AccessTokens {
  private readonly userField: string;
  private readonly loginTokenName: string;
  /** The name the owning user is loaded under. */
  private readonly userAlias: string;
  /** The compiled reads of a token row with its owner, by id and by hash. */
  private readonly reads: Record<'id' | 'hash', KeyedRead>;
  /** Tokens with their owners as requests last read them, while neither table has changed. */
  private readonly keptTokens: VersionedRows<number, StoredRecord>;

  constructor(
    private readonly tokens: BoundResource,
    private readonly accounts: Accounts,
    private readonly options: TokenOptions,
  ) {
    const { name, tokenModel, fields } = tokens.declaration;
    if (!tokenModel) throw new Error(`${name} has no tokenModel contract`);
    for (const column of REQUIRED_COLUMNS) {
      if (!(column in fields)) throw new Error(`The token model ${name} lacks the ${column} field`);
    }
    this.userField = tokenModel.userField;
    this.loginTokenName = tokenModel.loginTokenName;
    const alias = [...tokens.references].find(([, relation]) => relation.field === this.userField)?.[0];
    if (!alias) throw new Error(`${name}.${this.userField} must be a reference to the user model`);
    this.userAlias = alias;
    const { model } = tokens;
    const read = { model, attributes: everyColumn(model), include: [{ association: alias }] };
    this.reads = { id: { ...read, by: model.primaryKeyAttribute }, hash: { ...read, by: 'token' } };
    this.keptTokens = new VersionedRows(this.reads.id, { maxEntries: KEPT_TOKENS });
  }

  /** The name of tokens issued by a login that names none. */
  get defaultName(): string {
    return this.loginTokenName;
  }

  /** A new token for the user; the plain-text form is returned once and never stored. */
  async issue(user: AuthUser, name = this.loginTokenName): Promise<string> {
    return (await this.create(user, { name })).plainText;
  }

  /** A new token and its row (without the hash); the plain text `<id>|<secret>` is given here only. */
  async create(user: AuthUser, { name = this.loginTokenName, abilities = DEFAULT_ABILITIES, expiresAt = null }: NewToken = {}): Promise<{ plainText: string; row: Row }> {
    const secret = randomSecret();
    const row = await this.tokens.model.create({
      [this.userField]: user.id,
      name,
      token: tokenHash(secret),
      abilities: JSON.stringify(abilities),
      expires_at: expiresAt,
    });
    // The hash stays in the database only, as in rows loaded the ordinary way.
    delete row.dataValues.token;
    return { plainText: `${row.get('id') as number}|${secret}`, row };
  }

  /** A token row's abilities. */
  abilitiesOf(row: StoredRecord): string[] {
    return storedAbilities(row.get('abilities'));
  }

  /** The user's tokens, oldest first, without their hashes (expired ones too, until pruned). */
  async ownedBy(user: AuthUser): Promise<Row[]> {
    return this.tokens.model.findAll({ where: { [this.userField]: user.id }, order: [['id', 'ASC']] });
  }

  /** Revokes one of the user's tokens; false when the user has no token of that id. */
  async revokeOwn(user: AuthUser, id: number): Promise<boolean> {
    return (await this.tokens.model.destroy({ where: { id, [this.userField]: user.id } })) > 0;
  }

  /** Revokes every token of the user but `keep` (the one in use, if any); returns how many. */
  async revokeOthers(user: AuthUser, keep: number | null): Promise<number> {
    const where: WhereOptions = keep === null ? { [this.userField]: user.id } : { [this.userField]: user.id, id: { [Op.ne]: keep } };
    return this.tokens.model.destroy({ where });
  }

  /**
   * The user and token a bearer value stands for, or null: malformed, unknown,
   * wrong secret, revoked, expired, or an inactive account.
   */
  async authenticate(bearer: string, request?: object): Promise<{ user: AuthUser; token: AccessToken } | null> {
    const admitted = await this.admit(await this.find(bearer, request));
    return typeof admitted === 'string' ? null : admitted;
  }

  /**
   * The user and token of a Django REST Framework key (`Authorization: Token
   * <key>`), looked up by its SHA-256 as any secret; else why not: an unknown,
   * malformed or expired key is invalid, an inactive account inactive.
   */
  async authenticateKey(key: string): Promise<{ user: AuthUser; token: AccessToken } | KeyRefusal> {
    if (!isDrfKey(key)) return 'invalid';
    return this.admit(await this.read('hash', tokenHash(key)));
  }

  /** A found token row, unless expired or its account inactive (or gone); last_used_at is updated. */
  private async admit(row: StoredRecord | null): Promise<{ user: AuthUser; token: AccessToken } | KeyRefusal> {
    if (!row) return 'invalid';
    // A reading, not a timestamp: requests that only read never move the time of the next write.
    const now = new Date(clock().reading());
    if (this.expired(row, now)) return 'invalid';
    const owner = row.get(this.userAlias) as StoredRecord | null;
    if (!owner || !owner.get('is_active')) return 'inactive';
    await this.touch(row, now);
    return {
      user: this.accounts.toAuthUser(owner),
      token: { id: row.get('id') as number, name: row.get('name') as string, abilities: this.abilitiesOf(row), expiresAt: this.expiryOf(row) },
    };
  }

  /** `<id>|<secret>`, or the bare secret as Sanctum also accepts; the secret is compared in constant time. */
  private async find(bearer: string, request?: object): Promise<StoredRecord | null> {
    if (bearer.length === 0 || bearer.length > MAX_TOKEN_LENGTH) return null;
    const separator = bearer.indexOf('|');
    if (separator < 0) return this.read('hash', tokenHash(bearer));
    const id = parsePk(bearer.slice(0, separator));
    const secret = bearer.slice(separator + 1);
    if (id === null || secret === '') return null;
    // Given the request, the row read last stands for the read while neither table changed (db/versioned-rows.ts).
    const row = await this.keptTokens.get(id, request, () => this.read('id', id));
    return row && sameHash(tokenHash(secret), row.get('token')) ? row : null;
  }

  /** The token row (its hash too) with its owner, by id or by hash: every request with a token reads it, as compiled SQL. */
  private async read(by: 'id' | 'hash', value: string | number): Promise<StoredRecord | null> {
    const row = await compiledReads(this.tokens.model.sequelize as Sequelize).one(this.reads[by], `token-by-${by}`, value);
    return row ? storedRecord(this.tokens, row) : null;
  }

  /** Expired by the global lifetime (counted from created_at, whenever the setting was made) or by its own expires_at. */
  private expired(row: StoredRecord, now: Date): boolean {
    const expiresAt = this.expiryOf(row);
    return expiresAt !== null && expiresAt.getTime() <= now.getTime();
  }

  /** When the token stops working: its own expires_at or the end of the global lifetime, whichever comes first. */
  private expiryOf(row: StoredRecord): Date | null {
    const own = row.get('expires_at') as Date | null;
    const minutes = this.options.expirationMinutes;
    // The global lifetime lets a token live through its last millisecond: it ends just after.
    const global = minutes === null ? null : new Date((row.get('created_at') as Date).getTime() + minutes * 60_000 + 1);
    if (own === null || global === null) return own ?? global;
    return own.getTime() <= global.getTime() ? own : global;
  }

  /** last_used_at at most once a minute per token, also across processes (the condition is in the UPDATE). */
  private async touch(row: StoredRecord, now: Date): Promise<void> {
    const lastUsed = row.get('last_used_at') as Date | null;
    const threshold = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    if (lastUsed && lastUsed > threshold) return;
    await this.tokens.model.update(
      { last_used_at: now },
      {
        where: {
          id: row.get('id') as number,
          [Op.or]: [{ last_used_at: null }, { last_used_at: { [Op.lte]: threshold } }],
        },
      },
    );
  }

  /**
   * Deletes the tokens expired more than `hours` ago, by their own expiry or
   * the configured lifetime (Sanctum's sanctum:prune-expired); returns how many.
   */
  async pruneExpired(hours: number): Promise<number> {
    const before = new Date(clock().reading() - hours * 3_600_000);
    const expired: WhereOptions[] = [{ expires_at: { [Op.lte]: before } }];
    const minutes = this.options.expirationMinutes;
    if (minutes !== null) expired.push({ created_at: { [Op.lte]: new Date(before.getTime() - minutes * 60_000) } });
    return this.tokens.model.destroy({ where: { [Op.or]: expired } });
  }

  /** Revokes one token; the user's other tokens stay valid. */
  async revoke(id: number): Promise<void> {
    await this.tokens.model.destroy({ where: { id } });
  }
}
