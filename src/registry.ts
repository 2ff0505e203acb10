import { readdirSync } from 'node:fs';
import path from 'node:path';
import { DataTypes, type ModelAttributeColumnOptions, type Sequelize } from 'sequelize';
import { clock } from './clock.js';
import { checkDeclarations } from './declaration-checks.js';
import { resourcesDir } from './paths.js';
import type { RowModel, StoredRecord } from './types/rows.js';
import { isColumn, type ColumnField } from './resource.js';
import type { UserModelContract } from './types/declaration.js';
import type { AnyRelation, BoundResource, ResourceDeclaration, SiteExposure, Timestamps } from './types/resource.js';
import { importApplicationModule } from './application-code.js';
import { withDefaultModels } from './auth/default-models.js';

/** How deep `expand=a.b.c` may reach. */
export const MAX_EXPAND_DEPTH = 3;

/** Scope that also loads hidden columns; only the account code asks for it. */
export const WITH_HIDDEN = 'withHidden';

function columnFor(field: ColumnField): ModelAttributeColumnOptions {
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
    case 'integer':
      return { type: DataTypes.INTEGER, allowNull, defaultValue };
    case 'decimal':
      return { type: DataTypes.DECIMAL(field.maxDigits, field.decimalPlaces), allowNull, defaultValue };
    case 'enum':
      return { type: DataTypes.STRING(Math.max(...field.choices.map((choice) => choice.length))), allowNull, defaultValue };
    case 'json':
      return { type: DataTypes.JSON, allowNull, defaultValue: field.default };
    case 'date':
      return { type: DataTypes.DATEONLY, allowNull, defaultValue };
  }
}

function addRelation(resource: BoundResource, name: string, relation: AnyRelation): void {
  if (resource.relations.has(name)) throw new Error(`Resource ${resource.declaration.name}: two relations are named "${name}"`);
  resource.relations.set(name, relation);
}

/** What needs every resource known: the relations that `expand` and counted fields name exist. */
function assertRelationsBound(resource: BoundResource): void {
  const { declaration } = resource;
  const fail = (message: string): never => {
    throw new Error(`Resource ${declaration.name}: ${message}`);
  };
  for (const [name, field] of Object.entries(declaration.fields)) {
    if (field.kind === 'computed' && field.count !== undefined) {
      const relation = resource.relations.get(field.count);
      if (!relation || relation.kind === 'reference') fail(`fields.${name} counts "${field.count}", which is no related rows' name`);
    }
  }
  const queries = [['query', declaration.query], ...Object.entries(declaration.sites ?? {}).map(([site, exposure]) => [`sites.${site}.query`, exposure.query] as const)] as const;
  for (const [where, query] of queries) {
    for (const path of query?.expand ?? []) {
      const segments = path.split('.');
      if (segments.length > MAX_EXPAND_DEPTH) fail(`${where}.expand names "${path}", deeper than ${MAX_EXPAND_DEPTH}`);
      let at: BoundResource = resource;
      for (const segment of segments) {
        const relation = at.relations.get(segment);
        if (!relation) return fail(`${where}.expand names "${path}": ${at.declaration.name} has no relation "${segment}"`);
        at = relation.resource;
      }
    }
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

/** The first of `fields` with a value, as text ('' if none); `value` reads a column. */
export function firstNamed(fields: readonly string[], value: (field: string) => unknown): string {
  for (const name of fields) {
    const found = value(name);
    if (found !== null && found !== undefined && found !== '') return String(found);
  }
  return '';
}

/** How a row is named for people: its first non-empty display column ('' if none); `value` reads a column. */
export function displayNameOf(resource: BoundResource, value: (field: string) => unknown): string {
  return firstNamed(resource.displayFields, value);
}

export function displayName(resource: BoundResource, row: StoredRecord): string {
  return displayNameOf(resource, (field) => row.get(field));
}

function defineModel(sequelize: Sequelize, declaration: ResourceDeclaration, timestamps: Timestamps): RowModel {
  const attributes: Record<string, ModelAttributeColumnOptions> = {};
  for (const [name, field] of Object.entries(declaration.fields)) if (isColumn(field)) attributes[name] = columnFor(field);
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
  for (const file of files) modules.push((await importApplicationModule(file)) as { default?: ResourceDeclaration });
  const declared = modules.flatMap((module, index) => {
    if (!module.default?.fields) throw new Error(`${files[index]} has no default export made by defineResource()`);
    return [module.default];
  });
  return declared;
}

/** An application's declarations: those of its folder, and the default account and token models when it declares no account model. */
export async function applicationDeclarations(dir: string): Promise<ResourceDeclaration[]> {
  return withDefaultModels(await loadDeclarations(dir));
}

export class ResourceRegistry {
  private readonly byName = new Map<string, BoundResource>();

  constructor(
    readonly sequelize: Sequelize,
    declarations: readonly ResourceDeclaration[],
  ) {
    checkDeclarations(declarations);
    for (const declaration of declarations) {
      const timestamps = { created: autoField(declaration, 'create'), updated: autoField(declaration, 'update') };
      const model = defineModel(sequelize, declaration, timestamps);
      this.byName.set(declaration.name, {
        declaration,
        model,
        key: declaration.name.toLowerCase(),
        timestamps,
        references: new Map(),
        related: new Map(),
        relations: new Map(),
        displayFields: displayFieldsOf(declaration),
      });
    }
    this.associate();
    for (const resource of this.byName.values()) assertRelationsBound(resource);
    // The accounts and the tokens are the framework's own: declaring no user model (or two) is the declarations' mistake, said as they are taken.
    this.users();
    this.tokens();
  }

  private associate(): void {
    for (const resource of this.byName.values()) {
      for (const [name, field] of Object.entries(resource.declaration.fields)) {
        if (field.kind === 'manyToMany') this.joinThrough(resource, name, field.to, field.through, field.related);
        if (field.kind !== 'reference') continue;
        const target = this.get(field.to);
        resource.model.belongsTo(target.model, { as: field.as, foreignKey: name, onDelete: field.onDelete, constraints: false });
        resource.references.set(field.as, { field: name, resource: target });
        addRelation(resource, field.as, { kind: 'reference', field: name, resource: target });
        if (field.related) {
          target.model.hasMany(resource.model, { as: field.related, foreignKey: name, constraints: false });
          target.related.set(field.related, { field: name, resource });
          addRelation(target, field.related, { kind: 'related', field: name, resource });
        }
      }
    }
  }

  /** A many-to-many's join table as a model of its own (keyed by the pair), reached from both sides. */
  private joinThrough(resource: BoundResource, name: string, to: string, through: { table: string; from: string; to: string }, related?: string): void {
    const target = this.get(to);
    const model = this.sequelize.define(
      `${resource.declaration.name}_${name}`,
      {
        [through.from]: { type: DataTypes.INTEGER, allowNull: false, primaryKey: true },
        [through.to]: { type: DataTypes.INTEGER, allowNull: false, primaryKey: true },
      },
      { tableName: through.table, timestamps: false },
    ) as RowModel;
    const far = `far_${name}`;
    model.belongsTo(target.model, { as: far, foreignKey: through.to, constraints: false });
    addRelation(resource, name, { kind: 'manyToMany', join: { model, from: through.from, to: through.to, far }, resource: target });
    if (related) {
      const near = `near_${name}`;
      model.belongsTo(resource.model, { as: near, foreignKey: through.from, constraints: false });
      addRelation(target, related, { kind: 'manyToMany', join: { model, from: through.to, to: through.from, far: near }, resource });
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
