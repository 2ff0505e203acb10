import { readdirSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DataTypes, type ModelAttributeColumnOptions, type Model, type ModelStatic, type Sequelize } from 'sequelize';
import { clock } from './clock.js';
import { resourcesDir } from './paths.js';
import type { FieldDeclaration, ResourceDeclaration, SiteExposure, UserModelContract } from './resource.js';

export type Row = Model<Record<string, unknown>, Record<string, unknown>>;
export type RowModel = ModelStatic<Row>;

/** A declaration bound to one database: its Sequelize model and the names it is known by. */
export interface BoundResource {
  declaration: ResourceDeclaration;
  model: RowModel;
  /** Lower-case name: the key of its labels in the `resources` catalogue. */
  key: string;
  timestamps: Timestamps;
  /** Reference `as` name → the foreign-key field and the resource it points at. */
  references: Map<string, Relation>;
  /** `related` name → the resource whose rows point here, and their foreign-key field. */
  related: Map<string, Relation>;
  /** Columns that make up a row's display name, the first non-empty wins. */
  displayFields: readonly string[];
}

export interface Relation {
  field: string;
  resource: BoundResource;
}

/** The fields the clock writes on create and on every update. */
interface Timestamps {
  created?: string;
  updated?: string;
}

/** Scope that also loads hidden columns; only the account code asks for it. */
export const WITH_HIDDEN = 'withHidden';

function columnFor(field: FieldDeclaration): ModelAttributeColumnOptions {
  const allowNull = field.nullable ?? false;
  const defaultValue = field.default ?? undefined;
  switch (field.kind) {
    case 'id':
      return { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false };
    case 'string':
      return { type: DataTypes.STRING(field.maxLength ?? 255), allowNull, defaultValue };
    case 'text':
      return { type: DataTypes.TEXT, allowNull, defaultValue };
    case 'boolean':
      return { type: DataTypes.BOOLEAN, allowNull, defaultValue };
    case 'datetime':
      // Sequelize takes a timestamp's default as the value it writes: route it through our clock.
      return { type: DataTypes.DATE, allowNull, defaultValue: field.auto ? () => clock().now() : defaultValue };
    case 'reference':
      return { type: DataTypes.INTEGER, allowNull };
  }
}

function autoField(declaration: ResourceDeclaration, auto: 'create' | 'update'): string | undefined {
  return Object.entries(declaration.fields).find(([, field]) => field.kind === 'datetime' && field.auto === auto)?.[0];
}

function displayFieldsOf(declaration: ResourceDeclaration): string[] {
  if (declaration.displayField) return [declaration.displayField];
  const user = declaration.userModel;
  return user ? [user.displayField, user.usernameField] : ['id'];
}

/** The account model's contract (its username, email and display fields). */
export function userModelOf(resource: BoundResource): UserModelContract {
  const contract = resource.declaration.userModel;
  if (!contract) throw new Error(`Resource ${resource.declaration.name} is not the user model`);
  return contract;
}

/** How a row is named for people: its first non-empty display column ('' if none); `value` reads a column. */
export function displayNameOf(resource: BoundResource, value: (field: string) => unknown): string {
  for (const name of resource.displayFields) {
    const found = value(name);
    if (found !== null && found !== undefined && found !== '') return String(found);
  }
  return '';
}

export function displayName(resource: BoundResource, row: Row): string {
  return displayNameOf(resource, (field) => row.get(field));
}

function defineModel(sequelize: Sequelize, declaration: ResourceDeclaration, timestamps: Timestamps): RowModel {
  const attributes: Record<string, ModelAttributeColumnOptions> = {};
  for (const [name, field] of Object.entries(declaration.fields)) attributes[name] = columnFor(field);
  const createdAt = timestamps.created ?? false;
  const updatedAt = timestamps.updated ?? false;
  const hidden = Object.entries(declaration.fields)
    .filter(([, field]) => field.hidden)
    .map(([name]) => name);
  return sequelize.define(declaration.name, attributes, {
    tableName: declaration.table,
    timestamps: Boolean(createdAt || updatedAt),
    createdAt,
    updatedAt,
    defaultScope: hidden.length > 0 ? { attributes: { exclude: hidden } } : {},
    scopes: { [WITH_HIDDEN]: {} },
    hooks: {
      // A new row was created and last updated at the same instant, not one clock reading apart.
      // A silent create (an import) keeps the times it brings.
      beforeCreate(row, options) {
        if (createdAt && updatedAt && !options.silent) row.set(updatedAt, row.get(createdAt));
      },
    },
  }) as RowModel;
}

/** Every resource declaration of a folder (one default export a file). */
export async function loadDeclarations(dir: string = resourcesDir): Promise<ResourceDeclaration[]> {
  const files = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(js|ts)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.join(dir, entry.name))
    .sort();
  // One after the other: Jest's ESM loader fails on simultaneous imports that share a module being linked.
  const modules: { default?: ResourceDeclaration }[] = [];
  for (const file of files) modules.push((await import(pathToFileURL(file).href)) as { default?: ResourceDeclaration });
  return modules.flatMap((module, index) => {
    if (!module.default?.fields) throw new Error(`${files[index]} has no default export made by defineResource()`);
    return [module.default];
  });
}

export class ResourceRegistry {
  private readonly byName = new Map<string, BoundResource>();

  constructor(
    readonly sequelize: Sequelize,
    declarations: readonly ResourceDeclaration[],
  ) {
    for (const declaration of declarations) {
      if (this.byName.has(declaration.name)) throw new Error(`Resource ${declaration.name} is declared twice`);
      const timestamps = { created: autoField(declaration, 'create'), updated: autoField(declaration, 'update') };
      const model = defineModel(sequelize, declaration, timestamps);
      this.byName.set(declaration.name, {
        declaration,
        model,
        key: declaration.name.toLowerCase(),
        timestamps,
        references: new Map(),
        related: new Map(),
        displayFields: displayFieldsOf(declaration),
      });
    }
    this.associate();
  }

  private associate(): void {
    for (const resource of this.byName.values()) {
      for (const [name, field] of Object.entries(resource.declaration.fields)) {
        if (field.kind !== 'reference') continue;
        const target = this.get(field.to);
        resource.model.belongsTo(target.model, { as: field.as, foreignKey: name, onDelete: field.onDelete, constraints: false });
        resource.references.set(field.as, { field: name, resource: target });
        if (field.related) {
          target.model.hasMany(resource.model, { as: field.related, foreignKey: name, constraints: false });
          target.related.set(field.related, { field: name, resource });
        }
      }
    }
  }

  get(name: string): BoundResource {
    const resource = this.byName.get(name);
    if (!resource) throw new Error(`Unknown resource ${name}`);
    return resource;
  }

  all(): BoundResource[] {
    return [...this.byName.values()];
  }

  /** The account model (the declaration with `userModel`). */
  users(): BoundResource {
    const found = this.all().filter((resource) => resource.declaration.userModel);
    if (found.length !== 1 || !found[0]) throw new Error(`Exactly one resource must declare userModel, found ${found.length}`);
    return found[0];
  }

  /** The access-token model (the declaration with `tokenModel`), if there is one. */
  tokens(): BoundResource | undefined {
    const found = this.all().filter((resource) => resource.declaration.tokenModel);
    if (found.length > 1) throw new Error(`At most one resource may declare tokenModel, found ${found.length}`);
    return found[0];
  }

  /** The resources a site serves, in declaration order, with how it serves each. */
  exposedOn(site: string): { resource: BoundResource; exposure: SiteExposure }[] {
    return this.all().flatMap((resource) => {
      const exposure = resource.declaration.sites?.[site];
      return exposure ? [{ resource, exposure }] : [];
    });
  }
}
