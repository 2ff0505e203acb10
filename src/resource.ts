/**
 * The declaration language of `resources/`: a resource names its table, its
 * fields, who owns a row, and how each site exposes it. Everything else (the
 * Sequelize model, routes, validation, representation, metadata) is derived.
 */
import type { Permission } from './permissions.js';

export type ActionName = 'list' | 'retrieve' | 'create' | 'update' | 'partial_update' | 'destroy';

interface CommonField {
  /** The column accepts NULL (and the serializer accepts null). */
  nullable?: boolean;
  /** Set by the service; ignored in requests. */
  readOnly?: boolean;
  /** Never leaves the server: not loaded by default, in no response, log or admin page. */
  hidden?: boolean;
  default?: string | number | boolean | null;
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

export interface ReferenceField extends CommonField {
  kind: 'reference';
  /** Name of the referenced resource. */
  to: string;
  /** Name under which the referenced row is loaded. */
  as: string;
  onDelete: 'SET NULL' | 'CASCADE';
}

export type FieldDeclaration = IdField | StringField | BooleanField | DateTimeField | ReferenceField;

type Options<F> = Omit<F, 'kind'>;

export const field = {
  id: (): IdField => ({ kind: 'id', readOnly: true }),
  string: (options: Options<StringField> = {}): StringField => ({ kind: 'string', ...options }),
  text: (options: Options<StringField> = {}): StringField => ({ kind: 'text', ...options }),
  boolean: (options: Options<BooleanField> = {}): BooleanField => ({ kind: 'boolean', ...options }),
  datetime: (options: Options<DateTimeField> = {}): DateTimeField => ({ kind: 'datetime', ...options }),
  createdAt: (): DateTimeField => ({ kind: 'datetime', auto: 'create', readOnly: true }),
  updatedAt: (): DateTimeField => ({ kind: 'datetime', auto: 'update', readOnly: true }),
  reference: (to: string, options: Omit<ReferenceField, 'kind' | 'to'>): ReferenceField => ({
    kind: 'reference',
    to,
    ...options,
  }),
};

/** A site's own limits on a field, narrower than the column's. */
export interface FieldRules {
  maxLength?: number;
  required?: boolean;
}

export type Ordering = readonly (readonly [field: string, direction: 'ASC' | 'DESC'])[];

export interface PageSizes {
  pageSize: number;
  maxPageSize: number;
}

/** How one site serves a resource. */
export interface SiteExposure {
  /** URL segment under the site's mount point, e.g. `comments`. */
  path: string;
  actions: readonly ActionName[];
  /** Fields shown in responses (and accepted in requests unless read-only), in this order. */
  fields: readonly string[];
  rules?: Readonly<Record<string, FieldRules>>;
  ordering: Ordering;
  /** Overrides the site's page sizes. */
  pagination?: PageSizes;
  /** Overrides the resource's permissions on this site. */
  permissions?: readonly Permission[];
}

/** The account model's contract, as Django's USERNAME_FIELD and EMAIL_FIELD. */
export interface UserModelContract {
  usernameField: string;
  emailField: string;
  /** The display name shown as a comment's owner. */
  displayField: string;
}

export interface ResourceDeclaration {
  /** Model name, singular, e.g. `Comment`. Its lower-case form keys its labels in `locales/<lang>/resources.json`. */
  name: string;
  table: string;
  fields: Readonly<Record<string, FieldDeclaration>>;
  /** The reference field that holds the owning user, for owner-only writes. */
  ownerField?: string;
  /** Present on the one resource that is the account model. */
  userModel?: UserModelContract;
  permissions?: readonly Permission[];
  sites?: Readonly<Record<string, SiteExposure>>;
}

function assertFields(declaration: ResourceDeclaration, names: readonly string[], where: string): void {
  for (const name of names) {
    if (!(name in declaration.fields)) {
      throw new Error(`Resource ${declaration.name}: ${where} names unknown field "${name}"`);
    }
  }
}

/** Checks a declaration's internal references when its module loads, so mistakes fail at start, not on a request. */
export function defineResource<const T extends ResourceDeclaration>(declaration: T): T {
  if (declaration.ownerField) {
    assertFields(declaration, [declaration.ownerField], 'ownerField');
    if (declaration.fields[declaration.ownerField]?.kind !== 'reference') {
      throw new Error(`Resource ${declaration.name}: ownerField must be a reference field`);
    }
  }
  if (declaration.userModel) {
    const { usernameField, emailField, displayField } = declaration.userModel;
    assertFields(declaration, [usernameField, emailField, displayField], 'userModel');
  }
  for (const [site, exposure] of Object.entries(declaration.sites ?? {})) {
    assertFields(declaration, exposure.fields, `sites.${site}.fields`);
    assertFields(declaration, Object.keys(exposure.rules ?? {}), `sites.${site}.rules`);
    assertFields(declaration, exposure.ordering.map(([name]) => name), `sites.${site}.ordering`);
    for (const name of exposure.fields) {
      if (declaration.fields[name]?.hidden) {
        throw new Error(`Resource ${declaration.name}: hidden field "${name}" cannot be exposed on ${site}`);
      }
    }
  }
  return declaration;
}
