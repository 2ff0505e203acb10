import './env.js';
import { createHash } from 'node:crypto';
import { BaseProperty, BaseRecord, type ActionContext, type BaseResource, type CurrentAdmin, type PropertyType, type RecordJSON } from 'adminjs';
import { formatDecimal } from '../cleaning.js';
import { displayNameOf } from '../registry.js';
import { isColumn, type ComputedType, type FieldDeclaration } from '../resource.js';
import type { BoundResource } from '../types/resource.js';

const COLUMN_TYPES: Record<Exclude<FieldDeclaration['kind'], 'computed'>, PropertyType> = {
  id: 'number',
  string: 'string',
  text: 'textarea',
  boolean: 'boolean',
  datetime: 'datetime',
  reference: 'reference',
  integer: 'number',
  // Not 'number': AdminJS would turn "12.50" into a float on its way to the resource.
  decimal: 'float',
  enum: 'string',
  // Shown and edited as JSON text (AdminJS's 'mixed' would flatten it into one param per leaf).
  json: 'textarea',
  date: 'date',
  manyToMany: 'reference',
};

const COMPUTED_TYPES: Record<ComputedType, PropertyType> = {
  integer: 'number',
  decimal: 'float',
  string: 'string',
  boolean: 'boolean',
  datetime: 'datetime',
  date: 'date',
  json: 'textarea',
};

function propertyType(field: FieldDeclaration): PropertyType {
  return field.kind === 'computed' ? COMPUTED_TYPES[field.type] : COLUMN_TYPES[field.kind];
}

/** Kinds the admin edits; ids and times are the framework's to write, computed fields nobody's. */
const EDITABLE_KINDS = new Set<FieldDeclaration['kind']>(['string', 'text', 'boolean', 'integer', 'decimal', 'enum', 'json', 'date', 'reference', 'manyToMany']);
/** Kinds the list cannot be filtered by: no column, or no meaningful comparison. */
const UNFILTERABLE_KINDS = new Set<FieldDeclaration['kind']>(['json', 'manyToMany', 'computed']);

/** Fields the admin writes through the serializer (read-only references and times are set by the framework). */
export function isAdminWritable(field: FieldDeclaration): boolean {
  return !field.hidden && !field.readOnly && EDITABLE_KINDS.has(field.kind);
}

/** Fields the list's filters may name. */
export function isAdminFilterable(field: FieldDeclaration): boolean {
  return !field.hidden && !UNFILTERABLE_KINDS.has(field.kind);
}

/** One declared field as AdminJS sees it; hidden fields never become properties. */
export class DeclaredProperty extends BaseProperty {
  constructor(
    private readonly fieldName: string,
    private readonly field: FieldDeclaration,
    private readonly target: BoundResource | undefined,
    position: number,
  ) {
    super({
      path: fieldName,
      type: propertyType(field),
      isId: field.kind === 'id',
      // Only a column orders rows; JSON text orders nothing useful.
      isSortable: isColumn(field) && field.kind !== 'json',
      position,
    });
  }

  override isEditable(): boolean {
    return isAdminWritable(this.field);
  }

  override isVisible(): boolean {
    return true;
  }

  override reference(): string | null {
    return this.target ? this.target.declaration.table : null;
  }

  /** A many-to-many is a list of references, its params flattened as `name.0`, `name.1`, … */
  override isArray(): boolean {
    return this.field.kind === 'manyToMany';
  }

  override availableValues(): string[] | null {
    return this.field.kind === 'enum' ? [...this.field.choices] : null;
  }

  override isRequired(): boolean {
    const { field } = this;
    if (!isAdminWritable(field) || field.kind === 'boolean' || field.kind === 'manyToMany') return false;
    return !field.nullable && field.default === undefined;
  }

  override isTitle(): boolean {
    return false;
  }

  get declaredName(): string {
    return this.fieldName;
  }
}

/**
 * A row's values as the admin's params: JSON as its text, decimals as
 * "12.50", and what `extra` brings for fields that are no column (many-to-many
 * ids, computed values). Hidden fields are left out.
 */
export function adminParams(bound: BoundResource, stored: Readonly<Record<string, unknown>>, extra: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const params: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(bound.declaration.fields)) {
    if (field.hidden) continue;
    const value = isColumn(field) ? stored[name] : extra[name];
    if (value === undefined) continue;
    const json = field.kind === 'json' || (field.kind === 'computed' && field.type === 'json');
    if (json) params[name] = value === null ? null : JSON.stringify(value, null, 2);
    else if (field.kind === 'decimal') params[name] = formatDecimal(value, field.decimalPlaces);
    else params[name] = value;
  }
  return params;
}

/**
 * The param an edit form carries back: the version of the row it was opened
 * with (lost-update protection). Two underscores: no declared field has the
 * name, and AdminJS's flattening leaves it alone.
 */
export const VERSION_PARAM = '__version';

/** The fields a save of the edit form overwrites, in declaration order: what a row's version covers. */
function versionedFields(bound: BoundResource): [string, FieldDeclaration][] {
  return Object.entries(bound.declaration.fields).filter(([, field]) => isAdminWritable(field));
}

/** 48 bits of a SHA-256: a field's value changing unnoticed would take a collision of those. */
function valueHash(value: unknown): string {
  return createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 8);
}

/**
 * A row's version as the admin's forms see it: a hash of each value a save
 * of the form would overwrite (its admin-writable fields, as params), joined
 * by dots. A save made from an older form is told from one made from the
 * current row, on every resource, with or without an updated_at column, and
 * the fields someone else changed are known. Hidden fields are never writable
 * here, so no secret goes into it; a change to a field the form cannot write
 * (a last login, say) is no conflict, as no save would lose it.
 */
export function rowVersion(bound: BoundResource, params: Readonly<Record<string, unknown>>): string {
  return versionedFields(bound)
    .map(([name, field]) => {
      const value = params[name] ?? null;
      // Many-to-many ids in no particular order: the same links are the same version.
      return valueHash(field.kind === 'manyToMany' && Array.isArray(value) ? value.map(String).sort() : value);
    })
    .join('.');
}

/** The fields whose values differ between two versions of a row; every versioned field when the versions do not compare. */
export function changedFields(bound: BoundResource, opened: string, current: string): string[] {
  const names = versionedFields(bound).map(([name]) => name);
  const before = opened.split('.');
  const after = current.split('.');
  if (before.length !== names.length || after.length !== names.length) return names;
  return names.filter((_, index) => before[index] !== after[index]);
}

/** The type of a refusal of the staff member's right to a write (resource.ts); as a record's base error, the whole row is refused. */
export const FORBIDDEN = 'forbidden';

/** A property the declaration does not have as a visible field, e.g. the account's password to set. */
export class VirtualProperty extends BaseProperty {
  constructor(path: string, type: PropertyType) {
    super({ path, type, isSortable: false, position: 1000 });
  }

  override isVisible(): boolean {
    return true;
  }
}

/**
 * A row in the admin. Whatever AdminJS put into its params (a row loaded
 * with every column, a form's payload echoed back), the hidden fields of the
 * declaration never reach the browser: this is the one place records become
 * JSON, for every action, list, search and populated reference.
 */
export class DeclaredRecord extends BaseRecord {
  constructor(
    params: Record<string, unknown>,
    resource: BaseResource,
    private readonly bound: BoundResource,
  ) {
    super(params, resource);
  }

  override title(): string {
    return displayNameOf(this.bound, (field) => this.param(field)) || String(this.id());
  }

  /**
   * AdminJS puts the form's values on the record before it saves them. When
   * the row itself is not the staff member's to change, the answer shows it
   * as stored, not the refused values; a form with field errors keeps what
   * was typed, to be corrected.
   */
  override async update(params: Record<string, unknown>, context?: ActionContext): Promise<BaseRecord> {
    const stored = this.params;
    await super.update(params, context);
    if (this.baseError?.type === FORBIDDEN) this.params = stored;
    return this;
  }

  override toJSON(currentAdmin?: CurrentAdmin): RecordJSON {
    const json = super.toJSON(currentAdmin);
    json.params = withoutHidden(this.bound, json.params);
    return json;
  }
}

/** Drops every key whose first path segment is a hidden field (flattened params use `a.b` paths). */
export function withoutHidden<T>(bound: BoundResource, params: Record<string, T>): Record<string, T> {
  const result: Record<string, T> = {};
  for (const [key, value] of Object.entries(params)) {
    const head = key.split('.')[0] ?? key;
    if (!bound.declaration.fields[head]?.hidden) result[key] = value;
  }
  return result;
}
