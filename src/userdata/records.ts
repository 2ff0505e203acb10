import { classifyPassword } from '../auth/hashers.js';
import { FIELD_ERRORS, ValidationError } from '../errors.js';
import { userModelOf } from '../registry.js';
import { isColumn, type FieldDeclaration, type StringField } from '../resource.js';
import { Serializer, typeName } from '../serializers.js';
import { parseTimestamp, utcTimestamp } from '../timestamps.js';
import { Problem } from './problems.js';
import type { DataFormat, SourceRecord } from './sources.js';
import type { UserModelContract } from '../types/declaration.js';
import type { BoundResource } from '../types/resource.js';

/** The column every account model has for its hash (see REQUIRED_COLUMNS of the accounts). */
const PASSWORD = 'password';
const MAX_PK = 2_147_483_647;

export type PasswordValue = { hash: string } | { plaintext: string };

/** A record ready to be written: validated columns, and where it goes. */
export interface ImportedUser {
  record: number;
  /** Django's `pk` or a list's `id`: the row it updates or creates. */
  pk: number | null;
  username: string;
  email: string;
  /** Validated column values the record brings (not id, not password). */
  values: Record<string, unknown>;
  /** Values a new row takes where the record has none, but an existing row keeps its own (the display name). */
  newRowValues: Record<string, unknown>;
  /** The file's password: kept as a hash, or hashed on load; null when the record has none. */
  password: PasswordValue | null;
  /** The file's name of each column, for messages. */
  fieldNames: Readonly<Record<string, string>>;
}

export interface ReadRecord {
  user: ImportedUser | null;
  problems: Problem[];
  /** Fields of the record this product has no column for, with a value worth mentioning. */
  ignored: string[];
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Empty lists and texts (Django's `groups: []`) are not worth a warning when dropped. */
function isEmptyValue(value: unknown): boolean {
  return value === null || value === '' || (Array.isArray(value) && value.length === 0);
}

function truncate(text: string, maxLength: number | undefined): string {
  return maxLength === undefined ? text : [...text].slice(0, maxLength).join('');
}

/**
 * A row's id in a data file (Django's `pk`, a list's `id`): a whole number
 * in the database's integer range; undefined when absent; otherwise a
 * problem of the field, and null.
 */
export function readRowId(raw: unknown, field: string, problems: Problem[]): number | null | undefined {
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = typeof raw === 'number' || typeof raw === 'string' ? String(raw).trim() : '';
  const id = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (id >= 1 && id <= MAX_PK) return id;
  problems.push(new Problem(FIELD_ERRORS.invalid_integer, {}, { field }));
  return null;
}

/**
 * Reads one record of a user data file into the account model's columns:
 * a Django `auth.user` fixture entry, or a plain record (a Laravel `users`
 * row, a CSV line) named by column. Checks every field the way the API does,
 * without touching the database.
 */
export class UserRecordReader {
  private readonly columns: ReadonlyMap<string, FieldDeclaration>;
  private readonly serializer: Serializer;
  private readonly renames: Readonly<Record<string, string>>;

  constructor(private readonly users: BoundResource) {
    const columns = new Map<string, FieldDeclaration>();
    for (const [name, field] of Object.entries(users.declaration.fields)) {
      if (field.kind !== 'id' && field.kind !== 'reference') columns.set(name, field);
    }
    this.columns = columns;
    const checked = [...columns].filter(([name, field]) => name !== PASSWORD && field.kind !== 'datetime').map(([name]) => name);
    // Read-only is an API notion; a data file sets every column it brings.
    this.serializer = new Serializer(
      { ...users, declaration: { ...users.declaration, fields: writableCopy(users.declaration.fields, checked) } },
      { fields: checked, formatTimestamp: utcTimestamp },
    );
    // Django calls the creation time date_joined.
    this.renames = users.timestamps.created ? { date_joined: users.timestamps.created } : {};
  }

  private get contract(): UserModelContract {
    return userModelOf(this.users);
  }

  /** The longest stored hash the password column holds. */
  private get passwordLength(): number {
    return (this.columns.get(PASSWORD) as StringField | undefined)?.maxLength ?? Number.POSITIVE_INFINITY;
  }

  async read({ record, data }: SourceRecord, format: DataFormat): Promise<ReadRecord> {
    const unreadable = (problem: Problem): ReadRecord => ({ user: null, problems: [problem], ignored: [] });
    if (!isObject(data)) return unreadable(new Problem('loaddata.not_an_object', { datatype: typeName(data) }));
    let fields: Record<string, unknown>;
    let pkField: string;
    // An auth.user entry: the load's catalogue (models.ts) sends the records of other models elsewhere.
    if (Object.hasOwn(data, 'model')) {
      if (!isObject(data.fields)) {
        return unreadable(new Problem('loaddata.not_an_object', { datatype: typeName(data.fields) }, { field: 'fields' }));
      }
      fields = data.fields;
      pkField = 'pk';
    } else {
      fields = { ...data };
      delete fields.id;
      pkField = 'id';
    }
    // A CSV cell left empty says nothing: the column keeps its default (or, on reload, its value).
    if (format === 'csv') fields = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== ''));
    return this.readFields(record, data[pkField], pkField, fields);
  }

  private async readFields(record: number, rawPk: unknown, pkField: string, fields: Record<string, unknown>): Promise<ReadRecord> {
    const problems: Problem[] = [];
    const fieldNames: Record<string, string> = { id: pkField };
    const pk = this.readPk(rawPk, pkField, problems);
    const { input, values, ignored } = this.sortColumns(fields, fieldNames, problems);
    const { usernameField, emailField } = this.contract;
    // No username: the whole email address is the username (a Laravel export has none).
    const usernameFromEmail = !Object.hasOwn(input, usernameField) && Object.hasOwn(input, emailField);
    if (usernameFromEmail) {
      input[usernameField] = input[emailField];
      fieldNames[usernameField] = fieldNames[emailField] ?? emailField;
    }
    const validated = await this.validate(input, fieldNames);
    Object.assign(values, validated.values);
    for (const [column, found] of validated.problems) {
      if (column !== usernameField || !usernameFromEmail) problems.push(...found);
      // The email's own problem says it all; a valid address can still hold characters a username may not.
      else if (!validated.problems.has(emailField)) {
        problems.push(new Problem('loaddata.email_as_username', {}, { field: fieldNames[emailField] ?? emailField }));
      }
    }
    for (const column of [emailField, usernameField]) {
      if (!Object.hasOwn(input, column)) problems.push(new Problem(FIELD_ERRORS.required, {}, { field: fieldNames[column] ?? column }));
    }
    const password = this.readPassword(fields[fieldNames[PASSWORD] ?? PASSWORD], fieldNames[PASSWORD] ?? PASSWORD, problems);
    if (problems.length > 0) return { user: null, problems, ignored };
    const username = values[usernameField] as string;
    const email = values[emailField] as string;
    const newRowValues = this.fillDisplayName(values, fields, username);
    return { user: { record, pk, username, email, values, newRowValues, password, fieldNames }, problems, ignored };
  }

  /** The record's fields by column: text and booleans to validate, timestamps parsed; fields with no column set aside. */
  private sortColumns(fields: Record<string, unknown>, fieldNames: Record<string, string>, problems: Problem[]) {
    const input: Record<string, unknown> = {};
    const values: Record<string, unknown> = {};
    const ignored: string[] = [];
    for (const [name, raw] of Object.entries(fields)) {
      const column = Object.hasOwn(this.renames, name) ? (this.renames[name] as string) : name;
      const field = this.columns.get(column);
      if (!field) {
        if (!isEmptyValue(raw)) ignored.push(name);
        continue;
      }
      fieldNames[column] = name;
      if (column === PASSWORD) continue;
      if (field.kind === 'datetime') this.readTimestamp(name, column, field, raw, values, problems);
      else input[column] = raw;
    }
    return { input, values, ignored };
  }

  private readPk(raw: unknown, field: string, problems: Problem[]): number | null {
    return readRowId(raw, field, problems) ?? null;
  }

  private readTimestamp(
    name: string,
    column: string,
    field: FieldDeclaration,
    raw: unknown,
    values: Record<string, unknown>,
    problems: Problem[],
  ): void {
    if (raw === null) {
      if (field.nullable) values[column] = null;
      else problems.push(new Problem(FIELD_ERRORS.null, {}, { field: name }));
      return;
    }
    const date = typeof raw === 'string' ? parseTimestamp(raw) : null;
    if (date) values[column] = date;
    else problems.push(new Problem(FIELD_ERRORS.invalid_datetime, {}, { field: name }));
  }

  /** Validated values, and the problems of each failing column under the file's field names. */
  private async validate(input: Record<string, unknown>, fieldNames: Record<string, string>) {
    const problems = new Map<string, Problem[]>();
    try {
      return { values: await this.serializer.validate(input, { partial: true, unique: false }), problems };
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      for (const [column, errors] of Object.entries(error.fields)) {
        const field = fieldNames[column] ?? column;
        problems.set(
          column,
          errors.map(({ code, params }) => new Problem(FIELD_ERRORS[code], { label: field, attribute: field, ...params }, { field })),
        );
      }
      return { values: {}, problems };
    }
  }

  private readPassword(raw: unknown, field: string, problems: Problem[]): PasswordValue | null {
    if (raw === undefined || raw === null || raw === '') return null;
    if (typeof raw !== 'string') {
      problems.push(new Problem(FIELD_ERRORS.invalid_string, {}, { field }));
      return null;
    }
    const stored = classifyPassword(raw);
    switch (stored.kind) {
      case 'hash':
        // A salt of any length is valid, the column is not.
        if (raw.length <= this.passwordLength) return { hash: raw };
        problems.push(new Problem('loaddata.malformed_hash', { algorithm: stored.algorithm }, { field }));
        return null;
      case 'unusable':
        return { hash: raw };
      case 'plaintext':
        return { plaintext: raw };
      case 'malformed':
        problems.push(new Problem('loaddata.malformed_hash', { algorithm: stored.algorithm }, { field }));
        return null;
      case 'unsupported':
        problems.push(new Problem('loaddata.unsupported_hash', { algorithm: stored.algorithm }, { field }));
        return null;
    }
  }

  /**
   * No display name in the record: Django's full name (first and last name)
   * when the record has one, which it then sets like any column; else the
   * username, for a new row only, so that a reload does not overwrite a name.
   * Returns what only a new row takes.
   */
  private fillDisplayName(values: Record<string, unknown>, fields: Record<string, unknown>, username: string): Record<string, unknown> {
    const { displayField } = this.contract;
    if (typeof values[displayField] === 'string' && values[displayField] !== '') return {};
    const fullName = [fields.first_name, fields.last_name]
      .filter((part): part is string => typeof part === 'string' && part.trim() !== '')
      .map((part) => part.trim())
      .join(' ');
    const maxLength = (this.columns.get(displayField) as StringField | undefined)?.maxLength;
    if (fullName === '') return { [displayField]: truncate(username, maxLength) };
    values[displayField] = truncate(fullName, maxLength);
    return {};
  }
}

/** The declared fields with `readOnly` lifted from the ones a data file may set. */
function writableCopy(
  fields: Readonly<Record<string, FieldDeclaration>>,
  names: readonly string[],
): Record<string, FieldDeclaration> {
  const copy: Record<string, FieldDeclaration> = { ...fields };
  for (const name of names) {
    const field = fields[name];
    if (field && isColumn(field)) copy[name] = { ...field, readOnly: false };
  }
  return copy;
}
