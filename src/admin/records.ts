import './env.js';
import { BaseProperty, BaseRecord, type BaseResource, type CurrentAdmin, type PropertyType, type RecordJSON } from 'adminjs';
import { displayNameOf, type BoundResource } from '../registry.js';
import type { FieldDeclaration } from '../resource.js';

const PROPERTY_TYPES: Record<FieldDeclaration['kind'], PropertyType> = {
  id: 'number',
  string: 'string',
  text: 'textarea',
  boolean: 'boolean',
  datetime: 'datetime',
  reference: 'reference',
  integer: 'number',
  decimal: 'float',
  enum: 'string',
  json: 'mixed',
  date: 'date',
  manyToMany: 'reference',
  computed: 'string',
};

/** Fields the admin writes through the serializer; references and times are set by the framework. */
export function isAdminWritable(field: FieldDeclaration): boolean {
  return !field.hidden && !field.readOnly && (field.kind === 'string' || field.kind === 'text' || field.kind === 'boolean');
}

/** One declared field as AdminJS sees it; hidden fields never become properties. */
export class DeclaredProperty extends BaseProperty {
  constructor(
    private readonly fieldName: string,
    private readonly field: FieldDeclaration,
    private readonly target: BoundResource | undefined,
    position: number,
  ) {
    super({ path: fieldName, type: PROPERTY_TYPES[field.kind], isId: field.kind === 'id', position });
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

  override isRequired(): boolean {
    return isAdminWritable(this.field) && this.field.kind !== 'boolean' && !this.field.nullable && this.field.default === undefined;
  }

  override isTitle(): boolean {
    return false;
  }

  get declaredName(): string {
    return this.fieldName;
  }
}

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
