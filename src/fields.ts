/**
 * The field kinds of the declaration language: columns of a resource's own
 * table, many-to-many links through a join table, and computed values; and
 * `field`, which declares them. `resource.ts` re-exports all of it.
 */

interface CommonField {
  /** The column accepts NULL (and the serializer accepts null). */
  nullable?: boolean;
  /** Set by the service; ignored in requests. */
  readOnly?: boolean;
  /** Never leaves the server: not loaded by default, in no response, log or admin page. */
  hidden?: boolean;
  default?: string | number | boolean | null;
  /** A typical value, shown in the API description's examples. */
  example?: string | number | boolean;
}

export interface IdField extends CommonField {
  kind: 'id';
}

export interface StringField extends CommonField {
  kind: 'string' | 'text';
  /** Longest value, counted in Unicode code points. */
  maxLength?: number;
  format?: 'email' | 'username';
  unique?: boolean;
  /** Uniqueness and look-ups ignore letter case. */
  caseInsensitive?: boolean;
}

export interface BooleanField extends CommonField {
  kind: 'boolean';
}

export interface DateTimeField extends CommonField {
  kind: 'datetime';
  /** Written by the framework's clock when the row is created or on every save. */
  auto?: 'create' | 'update';
}

export interface IntegerField extends CommonField {
  kind: 'integer';
  min?: number;
  max?: number;
}

/** An exact decimal number, as Django's DecimalField: shown and accepted as a string such as "12.50". */
export interface DecimalField extends CommonField {
  kind: 'decimal';
  maxDigits: number;
  decimalPlaces: number;
  min?: number;
  max?: number;
}

/** One of a fixed set of strings (Django's choices, Laravel's Rule::in); shown as a select. */
export interface EnumField extends CommonField {
  kind: 'enum';
  choices: readonly string[];
}

/** Any JSON value, stored as JSON text. */
export interface JsonField extends Omit<CommonField, 'default' | 'example'> {
  kind: 'json';
  default?: unknown;
  example?: unknown;
}

/** A calendar date, shown and accepted as YYYY-MM-DD. */
export interface DateField extends CommonField {
  kind: 'date';
}

export interface ReferenceField extends CommonField {
  kind: 'reference';
  /** Name of the referenced resource. */
  to: string;
  /**
   * Name of the relation: `?expand=`/`include=` it to show the referenced row
   * with each row; in an exposure's fields it shows that row's display name.
   * The field itself (`<name>_id`) is written with the referenced row's id unless read-only.
   */
  as: string;
  /** Name under which the referenced resource reaches the rows that point at it (Django's related_name). */
  related?: string;
  onDelete: 'SET NULL' | 'CASCADE' | 'RESTRICT';
}

/** The table that links two resources' rows, one row per pair (Django's `through`, Laravel's pivot table). */
export interface JoinTable {
  table: string;
  /** Its column holding this resource's id. */
  from: string;
  /** Its column holding the other resource's id. */
  to: string;
}

/**
 * Rows of another resource linked through a join table (Django's
 * ManyToManyField, Laravel's belongsToMany). Shown as a list of ids, or the
 * rows themselves when expanded; written as a list of ids.
 */
export interface ManyToManyField {
  kind: 'manyToMany';
  to: string;
  through: JoinTable;
  /** Name under which the other resource reaches these rows. */
  related?: string;
  readOnly?: boolean;
  hidden?: boolean;
  nullable?: undefined;
  default?: undefined;
  example?: readonly number[];
}

/** The kinds a computed field is shown and documented as. */
export type ComputedType = 'integer' | 'decimal' | 'string' | 'boolean' | 'datetime' | 'date' | 'json';

/**
 * A read-only value derived from the row (DRF's SerializerMethodField, a
 * Laravel accessor in `$appends`): either the number of related rows
 * (`count`, one grouped query per page) or a function of the row's own values.
 */
export interface ComputedField {
  kind: 'computed';
  type: ComputedType;
  /** A related rows' name (a reference's `related` or a many-to-many): their number. */
  count?: string;
  /** The value from the row's stored values (every column, hidden ones excepted). */
  value?: (row: Readonly<Record<string, unknown>>) => unknown;
  readOnly: true;
  hidden?: undefined;
  nullable?: boolean;
  default?: undefined;
  example?: string | number | boolean;
}

export type ColumnField =
  | IdField
  | StringField
  | BooleanField
  | DateTimeField
  | IntegerField
  | DecimalField
  | EnumField
  | JsonField
  | DateField
  | ReferenceField;

export type FieldDeclaration = ColumnField | ManyToManyField | ComputedField;

/** Whether a field is a column of the resource's own table (a many-to-many and a computed field are not). */
export function isColumn(field: FieldDeclaration): field is ColumnField {
  return field.kind !== 'manyToMany' && field.kind !== 'computed';
}

type Options<F> = Omit<F, 'kind'>;

export const field = {
  id: (): IdField => ({ kind: 'id', readOnly: true }),
  string: (options: Options<StringField> = {}): StringField => ({ kind: 'string', ...options }),
  text: (options: Options<StringField> = {}): StringField => ({ kind: 'text', ...options }),
  boolean: (options: Options<BooleanField> = {}): BooleanField => ({ kind: 'boolean', ...options }),
  datetime: (options: Options<DateTimeField> = {}): DateTimeField => ({ kind: 'datetime', ...options }),
  createdAt: (): DateTimeField => ({ kind: 'datetime', auto: 'create', readOnly: true }),
  updatedAt: (): DateTimeField => ({ kind: 'datetime', auto: 'update', readOnly: true }),
  integer: (options: Options<IntegerField> = {}): IntegerField => ({ kind: 'integer', ...options }),
  decimal: (options: Options<DecimalField>): DecimalField => ({ kind: 'decimal', ...options }),
  enum: (choices: readonly string[], options: Omit<EnumField, 'kind' | 'choices'> = {}): EnumField => ({ kind: 'enum', choices, ...options }),
  json: (options: Options<JsonField> = {}): JsonField => ({ kind: 'json', ...options }),
  date: (options: Options<DateField> = {}): DateField => ({ kind: 'date', ...options }),
  reference: (to: string, options: Omit<ReferenceField, 'kind' | 'to'>): ReferenceField => ({
    kind: 'reference',
    to,
    ...options,
  }),
  manyToMany: (to: string, options: Omit<ManyToManyField, 'kind' | 'to'>): ManyToManyField => ({ kind: 'manyToMany', to, ...options }),
  /** The number of related rows, by their relation name. */
  count: (related: string, options: { example?: number } = {}): ComputedField => ({
    kind: 'computed',
    type: 'integer',
    count: related,
    readOnly: true,
    ...options,
  }),
  computed: (type: ComputedType, value: ComputedField['value'], options: { nullable?: boolean; example?: string | number | boolean } = {}): ComputedField => ({
    kind: 'computed',
    type,
    value,
    readOnly: true,
    ...options,
  }),
};
