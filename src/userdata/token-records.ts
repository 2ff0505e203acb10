/**
 * Access tokens in a data file, as the two source systems export them: a row
 * of Laravel Sanctum's `personal_access_tokens` (JSON or CSV; the client
 * holds `<id>|<secret>`, the row the SHA-256 of the secret) or a Django REST
 * Framework `authtoken.token` fixture entry (the key in clear, which is kept
 * here as its SHA-256 only); and the token model's own fixture entries, as
 * dumpdata writes them (a Sanctum row in Django's shape). A record is read
 * without touching the database.
 */
import { isDrfKey, tokenHash } from '../auth/tokens.js';
import { FIELD_ERRORS } from '../errors.js';
import type { StringField } from '../resource.js';
import { typeName } from '../serializers.js';
import { parseTimestamp } from '../timestamps.js';
import { Problem } from './problems.js';
import { isObject, readRowId } from './records.js';
import type { DataFormat, SourceRecord } from './sources.js';
import type { BoundResource } from '../types/resource.js';

/** Django fixtures name the model `app_label.model`. */
export const DRF_TOKEN_MODEL = 'authtoken.token';
/** What an imported DRF key is called among a user's tokens, and what it may do (a DRF key may do all its user may). */
export const DRF_TOKEN_NAME = 'drf-token';
const DRF_TOKEN_ABILITIES = '["*"]';
/** PHP's `hash('sha256', $secret)`. */
const SANCTUM_HASH = /^[0-9a-fA-F]{64}$/;
/** The columns of a Sanctum row this service keeps, besides id, the owner and the hash. */
const SANCTUM_TIMESTAMPS = ['last_used_at', 'expires_at', 'created_at', 'updated_at'] as const;
const SANCTUM_FIELDS: ReadonlySet<string> = new Set(['id', 'tokenable_type', 'tokenable_id', 'name', 'token', 'abilities', ...SANCTUM_TIMESTAMPS]);

/** A token ready to be written. */
export interface ImportedToken {
  record: number;
  /** Sanctum's id, kept (clients send `<id>|<secret>`); null for a DRF key, whose row is found by its hash. */
  id: number | null;
  /** The owner's id (Sanctum's tokenable_id, the fixture's user). */
  userId: number;
  /** SHA-256 hex, lower case. */
  hash: string;
  /** The other columns the record sets: name, abilities, timestamps. */
  values: Record<string, unknown>;
  /** The file's name of `id`, `user` and `token`, for messages. */
  fieldNames: { id: string; user: string; token: string };
}

export interface ReadToken {
  token: ImportedToken | null;
  problems: Problem[];
  /** Fields of the record this service has no column for, with a value worth mentioning. */
  ignored: string[];
}


/** A DRF fixture entry of authtoken.token, or a row with Sanctum's owner columns; anything else is a user's record. */
export function isTokenRecord(data: unknown): boolean {
  if (!isObject(data)) return false;
  if (Object.hasOwn(data, 'model')) return typeof data.model === 'string' && data.model.toLowerCase() === DRF_TOKEN_MODEL;
  return Object.hasOwn(data, 'tokenable_id') || Object.hasOwn(data, 'tokenable_type');
}

/**
 * Sanctum's tokenable_type is the owner's class (`App\Models\User`, `App\User`
 * before Laravel 8) or its morph-map alias (`user`): a token of any other
 * model (a team, a device) has no owner here.
 */
function isUserModel(type: string): boolean {
  const base = type.slice(type.lastIndexOf('\\') + 1).toLowerCase();
  return base === 'user' || base === 'users';
}

/** A token's own id or its owner's: required, unlike a user record's. */
function readId(raw: unknown, field: string, problems: Problem[]): number | null {
  const id = readRowId(raw, field, problems);
  if (id !== undefined) return id;
  problems.push(new Problem(FIELD_ERRORS.required, {}, { field }));
  return null;
}

/** A timestamp, null, or (absent) undefined. */
function readTimestamp(raw: unknown, field: string, problems: Problem[]): Date | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === null || raw === '') return null;
  const date = typeof raw === 'string' ? parseTimestamp(raw) : null;
  if (!date) problems.push(new Problem(FIELD_ERRORS.invalid_datetime, {}, { field }));
  return date ?? undefined;
}

/** Sanctum's abilities: JSON text of a list of strings (as the column holds it), that list itself, or null (none). */
function readAbilities(raw: unknown, problems: Problem[]): string | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === null || raw === '') return null;
  let list: unknown = raw;
  if (typeof raw === 'string') {
    try {
      list = JSON.parse(raw);
    } catch {
      list = undefined;
    }
  }
  if (Array.isArray(list) && list.every((ability) => typeof ability === 'string')) return JSON.stringify(list);
  problems.push(new Problem('loaddata.invalid_abilities', {}, { field: 'abilities' }));
  return undefined;
}

/** The names a Sanctum row gives its id and its owner's. */
const SANCTUM_NAMES = { id: 'id', user: 'tokenable_id' };

export class TokenRecordReader {
  private readonly nameLength: number;
  /** The token model's reference to its owner, as its own fixture entries name it. */
  private readonly userField: string;

  constructor(tokens: BoundResource) {
    this.nameLength = (tokens.declaration.fields.name as StringField | undefined)?.maxLength ?? Number.POSITIVE_INFINITY;
    this.userField = tokens.declaration.tokenModel?.userField ?? SANCTUM_NAMES.user;
  }

  read({ record, data }: SourceRecord, format: DataFormat): ReadToken {
    if (!isObject(data)) return { token: null, problems: [new Problem('loaddata.not_an_object', { datatype: typeName(data) })], ignored: [] };
    if (Object.hasOwn(data, 'model')) {
      if (!isObject(data.fields)) {
        return { token: null, problems: [new Problem('loaddata.not_an_object', { datatype: typeName(data.fields) }, { field: 'fields' })], ignored: [] };
      }
      // The catalogue sent only DRF's keys and the token model's own entries here.
      if (typeof data.model === 'string' && data.model.toLowerCase() === DRF_TOKEN_MODEL) return this.readDrf(record, data.pk, data.fields);
      return this.readOwn(record, data.pk, data.fields);
    }
    // A CSV cell left empty says nothing.
    const row = format === 'csv' ? Object.fromEntries(Object.entries(data).filter(([, value]) => value !== '')) : data;
    return this.readSanctum(record, row);
  }

  /** `{"model": "authtoken.token", "pk": "<key>", "fields": {"user": <pk>, "created": "…"}}` */
  private readDrf(record: number, pk: unknown, fields: Record<string, unknown>): ReadToken {
    const problems: Problem[] = [];
    let hash: string | null = null;
    // The key is never repeated in a message: it is a password.
    if (pk === undefined || pk === null || pk === '') problems.push(new Problem(FIELD_ERRORS.required, {}, { field: 'pk' }));
    else if (typeof pk !== 'string' || !isDrfKey(pk)) problems.push(new Problem('loaddata.drf_key_format', {}, { field: 'pk' }));
    else hash = tokenHash(pk);
    // `dumpdata --natural-foreign` names the user by a list of its natural key.
    const userId = Array.isArray(fields.user)
      ? (problems.push(new Problem('loaddata.natural_key', {}, { field: 'user' })), null)
      : readId(fields.user, 'user', problems);
    const created = readTimestamp(fields.created, 'created', problems);
    const ignored = Object.entries(fields)
      .filter(([name, value]) => name !== 'user' && name !== 'created' && value !== null && value !== '')
      .map(([name]) => name);
    if (problems.length > 0 || hash === null || userId === null) return { token: null, problems, ignored };
    const values: Record<string, unknown> = { name: DRF_TOKEN_NAME, abilities: DRF_TOKEN_ABILITIES };
    if (created) values.created_at = created;
    const fieldNames = { id: 'pk', user: 'user', token: 'pk' };
    return { token: { record, id: null, userId, hash, values, fieldNames }, problems, ignored };
  }

  /** A row of personal_access_tokens, as `DB::table('personal_access_tokens')->get()` exports it. */
  private readSanctum(record: number, row: Record<string, unknown>): ReadToken {
    const problems: Problem[] = [];
    const type = row.tokenable_type;
    if (type === undefined || type === null) problems.push(new Problem(FIELD_ERRORS.required, {}, { field: 'tokenable_type' }));
    else if (typeof type !== 'string') problems.push(new Problem(FIELD_ERRORS.invalid_string, {}, { field: 'tokenable_type' }));
    else if (!isUserModel(type)) problems.push(new Problem('loaddata.token_not_user_model', { type }, { field: 'tokenable_type' }));
    return this.readColumns(record, row, SANCTUM_NAMES, problems);
  }

  /** The token model's own entry: `{"model": "personal_access_tokens.accesstoken", "pk": 3, "fields": {"tokenable_id": 1, "name": …, "token": "<SHA-256>", …}}`. */
  private readOwn(record: number, pk: unknown, fields: Record<string, unknown>): ReadToken {
    return this.readColumns(record, { ...fields, pk }, { id: 'pk', user: this.userField }, []);
  }

  /** A token's columns, its id and its owner's under `names`. */
  private readColumns(record: number, row: Record<string, unknown>, names: { id: string; user: string }, problems: Problem[]): ReadToken {
    const id = readId(row[names.id], names.id, problems);
    const userId = readId(row[names.user], names.user, problems);
    const name = this.readName(row.name, problems);
    const hash = this.readHash(row.token, problems);
    const values: Record<string, unknown> = { name };
    const abilities = readAbilities(row.abilities, problems);
    if (abilities !== undefined) values.abilities = abilities;
    for (const column of SANCTUM_TIMESTAMPS) {
      const value = readTimestamp(row[column], column, problems);
      if (value === undefined) continue;
      // Laravel's created_at and updated_at may be null; a row here always has both (a new row gets the time of the load).
      if (value === null && (column === 'created_at' || column === 'updated_at')) continue;
      values[column] = value;
    }
    const ignored = Object.entries(row)
      .filter(([name, value]) => !SANCTUM_FIELDS.has(name) && name !== names.id && name !== names.user && value !== null && value !== '')
      .map(([name]) => name);
    if (problems.length > 0 || id === null || userId === null || hash === null) return { token: null, problems, ignored };
    const fieldNames = { id: names.id, user: names.user, token: 'token' };
    return { token: { record, id, userId, hash, values, fieldNames }, problems, ignored };
  }


  private readName(raw: unknown, problems: Problem[]): string {
    const field = 'name';
    if (raw === undefined || raw === null) problems.push(new Problem(FIELD_ERRORS.required, {}, { field }));
    else if (typeof raw !== 'string') problems.push(new Problem(FIELD_ERRORS.invalid_string, {}, { field }));
    else if (raw.trim() === '') problems.push(new Problem(FIELD_ERRORS.blank, {}, { field }));
    else if (raw.includes('\u0000')) problems.push(new Problem(FIELD_ERRORS.null_characters, {}, { field }));
    else if ([...raw].length > this.nameLength) {
      problems.push(new Problem(FIELD_ERRORS.max_length, { label: field, attribute: field, max_length: this.nameLength }, { field }));
    } else return raw;
    return '';
  }

  /** The SHA-256 of the secret, kept as it is (lower-cased), so that the client's `<id>|<secret>` still checks out. */
  private readHash(raw: unknown, problems: Problem[]): string | null {
    const field = 'token';
    if (raw === undefined || raw === null) problems.push(new Problem(FIELD_ERRORS.required, {}, { field }));
    else if (typeof raw !== 'string' || !SANCTUM_HASH.test(raw)) problems.push(new Problem('loaddata.token_hash_format', {}, { field }));
    else return raw.toLowerCase();
    return null;
  }
}
