/**
 * The cursor a client carries between cursor pages: the ordering fields'
 * values at one row and which way it points, sealed with AES-256-GCM under a
 * key derived from SECRET_KEY. Sealed, it is opaque (a field the site never
 * shows, such as `created_at` at the root, cannot be read from it) and cannot
 * be forged: a cursor of another list or order, edited or damaged, fails to
 * open and is the invalid-cursor error.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { FieldDeclaration } from '../resource.js';
import { parseTimestamp } from '../timestamps.js';
import type { OrderedQuery } from './types.js';

export type CursorValue = string | number | boolean;

/** A place in a list: the values of its ordering fields at one row, and which rows are wanted from there. */
export interface Cursor {
  values: readonly CursorValue[];
  /** true: the rows after this place (a next page); false: the rows before it (a previous page). */
  forward: boolean;
  /** The row at the place itself is wanted too (a page whose neighbour was empty points back at its own start). */
  inclusive?: boolean;
}

interface Payload {
  v: unknown[];
  f: boolean;
  i?: true;
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
/** Longest cursor read: a cursor holds a few values, never a body of text. */
const MAX_CURSOR_LENGTH = 4096;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const STORED_TIME = /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?: ?(?:Z|[+-]\d{2}(?::?\d{2})?))?$/;

function validValue(field: FieldDeclaration | undefined, value: unknown): value is CursorValue {
  switch (field?.kind) {
    case 'id':
    case 'reference':
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'decimal':
      return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && /^-?\d+(?:\.\d+)?$/.test(value));
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
    case 'string':
    case 'text':
    case 'enum':
      return typeof value === 'string' && !value.includes('\u0000');
    case 'boolean':
      return typeof value === 'boolean';
    case 'datetime':
      // The database's own text of a real instant.
      return typeof value === 'string' && STORED_TIME.test(value) && parseTimestamp(value) !== null;
    default:
      return false;
  }
}

/** What a cursor is bound to: its list and its order, so that it opens for no other. */
function scopeOf(list: string, order: OrderedQuery['order']): Buffer {
  return Buffer.from(`${list}|${order.map(([field, direction]) => (direction === 'DESC' ? `-${field}` : field)).join(',')}`);
}

export class CursorCodec {
  private readonly key: Buffer;

  /**
   * `secret`: SECRET_KEY; without it (never in production), a key of this
   * process's own. `site`: a cursor of one site opens on no other.
   */
  constructor(
    secret: string | undefined,
    private readonly site: string,
  ) {
    const material = secret ?? randomBytes(32).toString('hex');
    this.key = Buffer.from(hkdfSync('sha256', material, '', 'list cursor', 32));
  }

  encode(list: string, order: OrderedQuery['order'], cursor: Cursor): string {
    const payload: Payload = { v: [...cursor.values], f: cursor.forward, ...(cursor.inclusive ? { i: true as const } : {}) };
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(scopeOf(`${this.site}|${list}`, order));
    const sealed = Buffer.concat([cipher.update(JSON.stringify(payload)), cipher.final()]);
    return Buffer.concat([nonce, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /**
   * The cursor a client sent back for `list` in `order`; null when empty (the
   * first page). Anything that does not open, or opens to values not of their
   * fields' kinds, is the invalid-cursor error.
   */
  decode(list: string, encoded: string, order: OrderedQuery['order'], fields: Readonly<Record<string, FieldDeclaration>>): Cursor | null {
    if (encoded === '') return null;
    const payload = this.open(list, encoded, order);
    const { v: values, f: forward, i: inclusive } = payload;
    const valid = Array.isArray(values) && values.length === order.length && values.every((value, index) => validValue(fields[order[index]?.[0] ?? ''], value));
    if (!valid || typeof forward !== 'boolean') throw new ApiError('invalid_cursor');
    return { values: values as CursorValue[], forward, ...(inclusive ? { inclusive: true } : {}) };
  }

  private open(list: string, encoded: string, order: OrderedQuery['order']): Payload {
    const bytes = encoded.length <= MAX_CURSOR_LENGTH && BASE64URL.test(encoded) ? Buffer.from(encoded, 'base64url') : Buffer.alloc(0);
    if (bytes.length <= NONCE_BYTES + TAG_BYTES) throw new ApiError('invalid_cursor');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, NONCE_BYTES));
      decipher.setAAD(scopeOf(`${this.site}|${list}`, order));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      const text = Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      const payload: unknown = JSON.parse(text);
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) throw new Error('not an object');
      return payload as Payload;
    } catch {
      throw new ApiError('invalid_cursor');
    }
  }
}
