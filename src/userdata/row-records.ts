/**
 * A fixture entry of a resource other than the accounts and their tokens
 * (`{"model": "invoices.invoice", "pk": 1, "fields": {…}}`), read into the
 * values of its row, without touching the database. As Django's loaddata, it
 * takes the values as they are stored (no trimming, no field rules of a
 * site): what a column cannot hold is a problem, the rest is kept.
 */
import { cleanValue, type Cleaned } from '../cleaning.js';
import { FIELD_ERRORS } from '../errors.js';
import { isColumn, type ColumnField, type ManyToManyField } from '../resource.js';
import { typeName } from '../serializers.js';
import { Problem } from './problems.js';
import { isObject, readRowId } from './records.js';
import type { SourceRecord } from './sources.js';
import type { BoundResource } from '../types/resource.js';

/** A row ready to be written. */
export interface ImportedRow {
  record: number;
  /** The fixture's `pk`: the row it updates or creates; null for a new row numbered by the database. */
  pk: number | null;
  /** The column values the record brings (not the id). */
  values: Record<string, unknown>;
  /** Each many-to-many the record names: the ids it links the row to, exactly. */
  links: Map<string, number[]>;
  /** The file's name of each field (a reference may be named by its `as` name, as Django names a foreign key), for messages. */
  fieldNames: Record<string, string>;
}

export interface ReadRow {
  row: ImportedRow | null;
  problems: Problem[];
  /** Fields of the record this resource has no column for, with a value worth mentioning. */
  ignored: string[];
}

type Stored = ColumnField | ManyToManyField;

/** A UTF-16 half with no partner: not text, and PostgreSQL would refuse it. */
const LONE_SURROGATE = /\p{Cs}/u;

/** A stored value of `field` from a fixture: text kept as it is, the other kinds read as a request's. */
function cleanStored(name: string, field: Stored, raw: unknown): Cleaned {
  if (raw === null) return field.nullable ? { value: null } : { error: 'null' };
  if (field.kind === 'string' || field.kind === 'text') {
    // What the column cannot hold, and nothing else: a text is stored as the fixture has it, spaces and all.
    if (typeof raw !== 'string' || LONE_SURROGATE.test(raw)) return { error: 'invalid_string' };
    if (raw.includes('\u0000')) return { error: 'null_characters' };
    if (field.maxLength !== undefined && [...raw].length > field.maxLength) return { error: 'max_length', params: { max_length: field.maxLength } };
    return { value: raw };
  }
  // Every column of a fixture is written, read-only or not.
  return cleanValue({ name, field, required: false, allowBlank: true, maxLength: undefined, numbersAsText: false }, raw);
}

export class RowRecordReader {
  /** The fields a record may set, by the name the file gives them: their own, or a reference's `as` name. */
  private readonly fields = new Map<string, [string, Stored]>();

  constructor(resource: BoundResource) {
    for (const [name, field] of Object.entries(resource.declaration.fields)) {
      if (field.kind === 'id' || !(isColumn(field) || field.kind === 'manyToMany')) continue;
      this.fields.set(name, [name, field]);
      if (field.kind === 'reference' && !Object.hasOwn(resource.declaration.fields, field.as)) this.fields.set(field.as, [name, field]);
    }
  }

  read({ record, data }: SourceRecord): ReadRow {
    const unreadable = (problem: Problem): ReadRow => ({ row: null, problems: [problem], ignored: [] });
    if (!isObject(data)) return unreadable(new Problem('loaddata.not_an_object', { datatype: typeName(data) }));
    if (!isObject(data.fields)) return unreadable(new Problem('loaddata.not_an_object', { datatype: typeName(data.fields) }, { field: 'fields' }));
    const problems: Problem[] = [];
    const pk = readRowId(data.pk, 'pk', problems) ?? null;
    const row: ImportedRow = { record, pk, values: {}, links: new Map(), fieldNames: { id: 'pk' } };
    const ignored: string[] = [];
    for (const [given, raw] of Object.entries(data.fields)) {
      const found = this.fields.get(given);
      if (!found) {
        if (raw !== null && raw !== '' && !(Array.isArray(raw) && raw.length === 0)) ignored.push(given);
        continue;
      }
      const [name, field] = found;
      row.fieldNames[name] = given;
      const cleaned = cleanStored(name, field, raw);
      if ('error' in cleaned) problems.push(fieldProblem(given, cleaned));
      else if (field.kind === 'manyToMany') row.links.set(name, cleaned.value as number[]);
      else row.values[name] = cleaned.value;
    }
    return { row: problems.length > 0 ? null : row, problems, ignored };
  }
}

function fieldProblem(given: string, { error, params }: Extract<Cleaned, { error: unknown }>): Problem {
  return new Problem(FIELD_ERRORS[error], { label: given, attribute: given, ...params }, { field: given });
}
