/**
 * The declaration language of `resources/`: a resource names its table, its
 * fields, who owns a row, and how each site exposes it. Everything else (the
 * Sequelize model, routes, validation, representation, metadata) is derived.
 * Here, the checks a declaration passes when it loads; its types are below
 * them, in types/declaration.ts and types/resource.ts.
 */
import { assertAbilities } from './auth/abilities.js';
import { assertListQueries } from './querying/declaration.js';
import { assertRelations } from './relations/declaration.js';
import type { AdminAction } from './types/declaration.js';
import type { ResourceDeclaration } from './types/resource.js';

// Field kinds and `field` are part of the language a declaration imports from here.
export * from './fields.js';

/** The admin actions of a resource that declares none: all five. */
export const ALL_ADMIN_ACTIONS: readonly AdminAction[] = ['list', 'show', 'new', 'edit', 'delete'];

/** The `as` name of a reference, which an exposure may show (as the referenced row's display name). */
function isReferenceAlias(declaration: ResourceDeclaration, name: string): boolean {
  return Object.values(declaration.fields).some((field) => field.kind === 'reference' && field.as === name);
}

function assertFields(declaration: ResourceDeclaration, names: readonly string[], where: string, aliases = false): void {
  for (const name of names) {
    if (!(name in declaration.fields) && !(aliases && isReferenceAlias(declaration, name))) {
      throw new Error(`Resource ${declaration.name}: ${where} names unknown field "${name}"`);
    }
  }
}

function assertAdmin(declaration: ResourceDeclaration): void {
  const admin = declaration.admin;
  if (!admin) return;
  const named = [...(admin.list ?? []), ...(admin.phoneList ?? []), ...(admin.filters ?? []), ...(admin.search ?? [])];
  assertFields(declaration, named, 'admin');
  for (const name of named) {
    if (declaration.fields[name]?.hidden) throw new Error(`Resource ${declaration.name}: hidden field "${name}" cannot be shown in the admin`);
  }
  const offList = admin.list ? admin.phoneList?.find((name) => !admin.list?.includes(name)) : undefined;
  if (offList !== undefined) throw new Error(`Resource ${declaration.name}: admin.phoneList names "${offList}", which admin.list does not show`);
}

/** Checks a declaration's internal references when its module loads, so mistakes fail at start, not on a request. */
export function defineResource<const T extends ResourceDeclaration>(declaration: T): T {
  const ids = Object.entries(declaration.fields).filter(([, declared]) => declared.kind === 'id');
  if (ids.length !== 1) {
    const found = ids.length === 0 ? 'none' : ids.map(([name]) => name).join(', ');
    throw new Error(`Resource ${declaration.name}: declares one id field, as every resource does (id: field.id()); it declares ${found}`);
  }
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
  if (declaration.tokenModel) {
    assertFields(declaration, [declaration.tokenModel.userField], 'tokenModel');
  }
  if (declaration.displayField) assertFields(declaration, [declaration.displayField], 'displayField');
  assertAdmin(declaration);
  assertRelations(declaration);
  assertListQueries(declaration);
  assertAbilities(declaration);
  for (const [site, exposure] of Object.entries(declaration.sites ?? {})) {
    assertFields(declaration, exposure.fields, `sites.${site}.fields`, true);
    assertFields(declaration, exposure.retrieveFields ?? [], `sites.${site}.retrieveFields`, true);
    assertFields(declaration, Object.keys(exposure.rules ?? {}), `sites.${site}.rules`);
    assertFields(declaration, (exposure.ordering ?? []).map(([name]) => name), `sites.${site}.ordering`);
    if (exposure.actions.includes('current') && !declaration.userModel) {
      throw new Error(`Resource ${declaration.name}: only the user model has a current action (sites.${site})`);
    }
    for (const name of [...exposure.fields, ...(exposure.retrieveFields ?? [])]) {
      if (declaration.fields[name]?.hidden) {
        throw new Error(`Resource ${declaration.name}: hidden field "${name}" cannot be exposed on ${site}`);
      }
    }
  }
  return declaration;
}
