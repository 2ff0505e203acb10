import { fn, col, where, Op, type IncludeOptions, type Transaction, type WhereOptions } from 'sequelize';
import { cleanValue, formatDecimal, fromStored, parseBoolean, typeName, type WritableField } from './cleaning.js';
import { FieldErrors, ValidationError, type FieldError } from './errors.js';
import { formList, isFormData } from './parsers.js';
import { displayName, displayNameOf } from './registry.js';
import type { FieldDeclaration, StringField } from './resource.js';
import type { Row, StoredRecord } from './types/rows.js';
import type { FieldRules } from './types/declaration.js';
import type { BoundResource } from './types/resource.js';

/** Where a write that repeats a unique set of fields is refused: see `Site.uniqueSetErrors`. */
export type UniqueSetErrors = 'non_field_errors' | 'first_field';

export interface SerializerOptions {
  /** Fields shown, and accepted unless read-only, in this order. */
  fields: readonly string[];
  rules?: Readonly<Record<string, FieldRules>>;
  formatTimestamp: (date: Date) => string;
  /** Representation only: nothing is accepted (views with no write action). */
  readOnly?: boolean;
  /** A number sent for a text field is its text (the default, Django REST Framework's), or refused (Laravel's). */
  numbersAsText?: boolean;
  /** Where a repeated unique set is refused (`Site.uniqueSetErrors`); default: DRF's `non_field_errors`. */
  uniqueSetErrors?: UniqueSetErrors;
}

/** What OPTIONS tells about a field, as Django REST Framework's SimpleMetadata. */
export interface FieldDescription {
  type: string;
  required: boolean;
  read_only: boolean;
  label: string;
  max_length?: number;
  min_value?: number;
  max_value?: number;
  max_digits?: number;
  decimal_places?: number;
  /** An enum's values (DRF's ChoiceField metadata). */
  choices?: { value: string; display_name: string }[];
}

/** One field a serializer shows: a declared field, or a reference's `as` name (shown as that row's display name). */
export type ShownField =
  | { name: string; kind: 'column'; field: FieldDeclaration; writable?: Readonly<WritableField> }
  | { name: string; kind: 'reference'; resource: BoundResource };

export { parseBoolean, typeName };

/**
 * Turns declared fields into validation of input and representation of rows
 * for one site. Built once per site and resource; holds no request state.
 */
export class Serializer {
  private readonly writable: WritableField[];
  /** SQLite gives a plain row's times and JSON as text (representPlain reads them as the model would). */
  private readonly sqlite: boolean;

  constructor(
    readonly resource: BoundResource,
    private readonly options: SerializerOptions,
  ) {
    this.sqlite = resource.model.sequelize?.getDialect() === 'sqlite';
    this.writable = options.fields.flatMap((name) => {
      if (options.readOnly || resource.references.has(name)) return [];
      const field = this.field(name);
      if (field.kind === 'computed' || field.readOnly || field.kind === 'id') return [];
      const rules = options.rules?.[name] ?? {};
      const limits = [rules.maxLength, 'maxLength' in field ? field.maxLength : undefined].filter(
        (limit): limit is number => limit !== undefined,
      );
      return [
        {
          name,
          field,
          // A many-to-many may be left empty, as Laravel's sync([]) and a Django field with blank=True.
          required: rules.required ?? (field.kind !== 'manyToMany' && !field.nullable && field.default === undefined),
          allowBlank: field.default === '',
          maxLength: limits.length > 0 ? Math.min(...limits) : undefined,
          numbersAsText: options.numbersAsText ?? true,
        },
      ];
    });
  }

  /** The fields it shows, in order. */
  get fieldNames(): readonly string[] {
    return this.options.fields;
  }

  /** The same serializer showing other fields (the references a request expands, say). */
  withFields(fields: readonly string[]): Serializer {
    return new Serializer(this.resource, { ...this.options, fields });
  }

  private field(name: string): FieldDeclaration {
    const field = this.resource.declaration.fields[name];
    if (!field) throw new Error(`${this.resource.declaration.name} has no field ${name}`);
    return field;
  }

  /** What a query must load for `represent`: the referenced rows shown by their display name. */
  includes(): IncludeOptions[] {
    return this.options.fields.flatMap((name) => {
      const relation = this.resource.references.get(name);
      if (!relation) return [];
      // The key too: in a plain row it tells a missing row from one whose names are empty.
      const key = relation.resource.model.primaryKeyAttribute;
      return [{ association: name, attributes: [...new Set([key, ...relation.resource.displayFields])] }];
    });
  }

  represent(row: Row): Record<string, unknown> {
    return this.representWith((name) => row.get(name), (related, name) => displayName(this.relationOf(name), related as Row));
  }

  /**
   * A row read with `raw: true, nest: true`: a third of the work of a model
   * instance, for lists read in batches. The driver's values are turned as the
   * model would (SQLite keeps times as text and booleans as numbers).
   */
  representPlain(values: Record<string, unknown>): Record<string, unknown> {
    return this.representWith(
      (name) => fromStored(this.resource.declaration.fields[name], values[name], this.sqlite),
      (related, name) => {
        const fields = related as Record<string, unknown>;
        const resource = this.relationOf(name);
        // A LEFT JOIN that found no row gives every column NULL, the key too.
        return fields[resource.model.primaryKeyAttribute] === null ? null : displayNameOf(resource, (field) => fields[field]);
      },
    );
  }

  private relationOf(name: string): BoundResource {
    const relation = this.resource.references.get(name);
    if (!relation) throw new Error(`${this.resource.declaration.name} has no reference ${name}`);
    return relation.resource;
  }

  private representWith(value: (name: string) => unknown, related: (row: unknown, name: string) => string | null): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    for (const name of this.options.fields) {
      const field = this.resource.declaration.fields[name];
      if (this.resource.references.has(name)) {
        const found = value(name);
        result[name] = found ? related(found, name) : null;
      } else if (field?.kind === 'manyToMany' || field?.kind === 'computed') {
        // Filled in for all rows at once by the relation loader; the key keeps its place.
        result[name] = null;
      } else if (field?.kind === 'decimal') {
        result[name] = formatDecimal(value(name), field.decimalPlaces);
      } else {
        const found = value(name);
        result[name] = found instanceof Date ? this.options.formatTimestamp(found) : (found ?? null);
      }
    }
    return result;
  }

  /**
   * Validated values of the writable fields present in `input` (all of them
   * unless `partial`). Throws one ValidationError naming every failing field.
   * `instance` is the row being updated, left out of uniqueness checks;
   * `unique: false` leaves uniqueness to a caller that checks many rows at once;
   * `fixed`: values the server sets itself (the owner), which unique indexes count.
   */
  async validate(
    input: unknown,
    {
      partial = false,
      instance,
      unique = true,
      transaction,
      fixed = {},
    }: { partial?: boolean; instance?: StoredRecord; unique?: boolean; transaction?: Transaction; fixed?: Record<string, unknown> } = {},
  ) {
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw new ValidationError({
        non_field_errors: [{ code: 'invalid_data', params: { datatype: typeName(input) } }],
      }, this.resource.key);
    }
    const errors = new FieldErrors();
    const values: Record<string, unknown> = {};
    const form = isFormData(input);
    for (const spec of this.writable) {
      // A form's list: `ids=1&ids=2`, or Laravel's `ids[]=1&ids[]=2`.
      const listed = form && spec.field.kind === 'manyToMany' ? formList(input, spec.name) : undefined;
      const raw = listed ?? (Object.hasOwn(input, spec.name) ? (input as Record<string, unknown>)[spec.name] : undefined);
      if (raw === undefined) {
        if (!partial && spec.required) errors.add(spec.name, 'required');
        continue;
      }
      if (raw === null) {
        if (spec.field.nullable) values[spec.name] = null;
        else errors.add(spec.name, 'null');
        continue;
      }
      const cleaned = cleanValue(spec, raw, form);
      if ('error' in cleaned) errors.add(spec.name, cleaned.error, cleaned.params);
      else values[spec.name] = cleaned.value;
    }
    await this.checkReferenced(values, errors, transaction);
    if (unique) {
      await this.checkUnique(values, errors, instance, transaction);
      await this.checkUniqueIndexes(values, errors, { instance, fixed, transaction });
    }
    errors.throwIfAny(this.resource.key);
    return values;
  }

  /** The rows that references and many-to-manys name exist: one query per field, never a foreign-key failure. */
  private async checkReferenced(values: Record<string, unknown>, errors: FieldErrors, transaction?: Transaction): Promise<void> {
    for (const spec of this.writable) {
      const { field } = spec;
      const value = values[spec.name];
      if ((field.kind !== 'reference' && field.kind !== 'manyToMany') || value === null || value === undefined) continue;
      const ids = (Array.isArray(value) ? value : [value]) as number[];
      if (ids.length === 0) continue;
      const target = this.resource.relations.get(field.kind === 'reference' ? field.as : spec.name)?.resource;
      if (!target) continue;
      const key = target.model.primaryKeyAttribute;
      const found = new Set((await target.model.findAll({ attributes: [key], where: { [key]: ids }, raw: true, transaction })).map((row) => (row as unknown as Record<string, unknown>)[key]));
      const missing = ids.find((id) => !found.has(id));
      if (missing !== undefined) errors.add(spec.name, 'does_not_exist', { pk_value: missing });
    }
  }

  private async checkUnique(values: Record<string, unknown>, errors: FieldErrors, instance?: StoredRecord, transaction?: Transaction): Promise<void> {
    for (const spec of this.writable) {
      const field = spec.field as StringField;
      const value = values[spec.name];
      if (!field.unique || typeof value !== 'string' || errors.has(spec.name)) continue;
      const match: WhereOptions = field.caseInsensitive
        ? where(fn('lower', col(spec.name)), fn('lower', value))
        : { [spec.name]: value };
      if (await this.taken(match, instance, transaction)) errors.add(spec.name, 'unique');
    }
  }

  /** Whether a row other than `instance` matches. */
  private async taken(match: WhereOptions, instance: StoredRecord | undefined, transaction: Transaction | undefined): Promise<boolean> {
    const key = this.resource.model.primaryKeyAttribute;
    const conditions: WhereOptions[] = [match];
    if (instance) conditions.push({ [key]: { [Op.ne]: instance.get(key) } });
    return (await this.resource.model.findOne({ attributes: [key], where: { [Op.and]: conditions }, transaction })) !== null;
  }

  /**
   * The declaration's unique indexes (Django's unique_together or
   * UniqueConstraint, Laravel's unique rule with a where): a write that would
   * repeat one's values is refused as a field error before the index refuses
   * it with a 500. Values the write leaves out are the server's, the row's
   * (an update) or their declared defaults (a create).
   */
  private async checkUniqueIndexes(
    values: Record<string, unknown>,
    errors: FieldErrors,
    { instance, fixed, transaction }: { instance?: StoredRecord; fixed: Record<string, unknown>; transaction?: Transaction },
  ): Promise<void> {
    const { fields } = this.resource.declaration;
    const given = (column: string): unknown => {
      if (column in values) return values[column];
      if (column in fixed) return fixed[column];
      if (instance) return instance.get(column);
      const fallback = fields[column]?.default;
      return typeof fallback === 'function' ? undefined : fallback;
    };
    for (const { columns, unique } of Object.values(this.resource.declaration.indexes ?? {})) {
      // An update that sets none of the columns cannot make the row repeat another.
      const written = columns.some((column) => column in values || column in fixed);
      if (!unique || !written || columns.some((column) => errors.has(column))) continue;
      const known = Object.fromEntries(columns.map((column) => [column, given(column)]));
      // As the index itself (and DRF's validator): a NULL repeats nothing.
      if (Object.values(known).some((value) => value === null || value === undefined)) continue;
      if (!(await this.taken(known, instance, transaction))) continue;
      const { field, error } = this.repeatedSet(columns, columns.find((column) => column in values));
      errors.add(field, error.code, error.params);
    }
  }

  /**
   * Where and how a repeated unique set is refused: on `named`, the field the
   * write names, when the index has one column or the site says so (Laravel);
   * else DRF's non_field_errors.
   */
  private repeatedSet(columns: readonly string[], named: string | undefined): { field: string; error: FieldError } {
    if (named !== undefined && (columns.length === 1 || this.options.uniqueSetErrors === 'first_field')) return { field: named, error: { code: 'unique', params: {} } };
    return { field: 'non_field_errors', error: { code: 'unique_together', params: { fields: columns.join(', ') } } };
  }

  /**
   * The field error of a unique index the write broke though the checks
   * passed (its hooks changed the values checked): the index declared over
   * `columns`, or a unique field; null for an index the declaration does not name.
   */
  uniqueRefusal(columns: readonly string[]): ValidationError | null {
    const key = [...columns].sort().join();
    const declared = Object.values(this.resource.declaration.indexes ?? {}).some((index) => index.unique && [...index.columns].sort().join() === key);
    const [only] = columns;
    const field = only === undefined ? undefined : this.resource.declaration.fields[only];
    const uniqueField = columns.length === 1 && (field?.kind === 'string' || field?.kind === 'text') && field.unique;
    if (!declared && !uniqueField) return null;
    const { field: refused, error } = this.repeatedSet(columns, only);
    return new ValidationError({ [refused]: [error] }, this.resource.key);
  }

  /** The fields shown, in order, with what writes accept of each: what OPTIONS and the API description tell. */
  shownFields(): ShownField[] {
    return this.options.fields.map((name): ShownField => {
      if (this.resource.references.has(name)) return { name, kind: 'reference', resource: this.relationOf(name) };
      return { name, kind: 'column', field: this.field(name), writable: this.writable.find((spec) => spec.name === name) };
    });
  }

  /** The fields as OPTIONS describes them; labels come from the `resources` catalogue. */
  describe(label: (field: string) => string, choiceLabel: (field: string, choice: string) => string = (_field, choice) => choice): Record<string, FieldDescription> {
    const result: Record<string, FieldDescription> = {};
    for (const shown of this.shownFields()) {
      const writable = shown.kind === 'column' ? shown.writable : undefined;
      const description: FieldDescription = {
        type: shown.kind === 'reference' ? 'field' : fieldType(shown.field),
        required: writable?.required ?? false,
        read_only: writable === undefined,
        label: label(shown.name),
      };
      if (writable?.maxLength !== undefined) description.max_length = writable.maxLength;
      if (writable) Object.assign(description, limitsOf(writable.field, (choice) => choiceLabel(shown.name, choice)));
      result[shown.name] = description;
    }
    return result;
  }
}

/** What OPTIONS adds about a field's values, as DRF's SimpleMetadata: bounds, digits, choices. */
function limitsOf(field: FieldDeclaration, choiceLabel: (choice: string) => string): Partial<FieldDescription> {
  switch (field.kind) {
    case 'integer':
      return { ...(field.min !== undefined ? { min_value: field.min } : {}), ...(field.max !== undefined ? { max_value: field.max } : {}) };
    case 'decimal':
      return { max_digits: field.maxDigits, decimal_places: field.decimalPlaces };
    case 'enum':
      return { choices: field.choices.map((choice) => ({ value: choice, display_name: choiceLabel(choice) })) };
    default:
      return {};
  }
}

function fieldType(field: FieldDeclaration): string {
  switch (field.kind) {
    case 'id':
      return 'integer';
    case 'string':
      return (field as StringField).format === 'email' ? 'email' : 'string';
    case 'text':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'datetime':
      return 'datetime';
    case 'reference':
      return 'field';
    case 'integer':
      return 'integer';
    case 'decimal':
      return 'decimal';
    case 'enum':
      return 'choice';
    case 'json':
      return 'json';
    case 'date':
      return 'date';
    case 'manyToMany':
      return 'field';
    case 'computed':
      return field.type;
  }
}
