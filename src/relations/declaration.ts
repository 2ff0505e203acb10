/**
 * Checks of a declaration's relations, computed fields, hooks and actions
 * that need no other resource; the registry checks the rest (the resources
 * they point at, `related` names) once every declaration is known.
 */
import type { ResourceDeclaration } from '../types/resource.js';

const HOOKS = new Set(['beforeCreate', 'afterCreate', 'beforeUpdate', 'afterUpdate', 'beforeDestroy', 'afterDestroy']);
const SEGMENT = /^[a-z0-9][a-z0-9_-]*$/i;

function fail(declaration: ResourceDeclaration, where: string, message: string): never {
  throw new Error(`Resource ${declaration.name}: ${where} ${message}`);
}

function assertFields(declaration: ResourceDeclaration): void {
  for (const [name, field] of Object.entries(declaration.fields)) {
    const where = `fields.${name}`;
    if (field.kind === 'manyToMany') {
      const { table, from, to } = field.through;
      if (!table || !from || !to || from === to) fail(declaration, where, 'needs a join table with two different columns (through: {table, from, to})');
    } else if (field.kind === 'computed') {
      if ((field.count === undefined) === (field.value === undefined)) fail(declaration, where, 'is computed by either `count` or `value`, exactly one');
    } else if (field.kind === 'enum') {
      if (field.choices.length === 0) fail(declaration, where, 'has no choices');
      if (field.default !== undefined && field.default !== null && !field.choices.includes(String(field.default))) fail(declaration, where, 'has a default that is not one of its choices');
    } else if (field.kind === 'decimal') {
      const { maxDigits, decimalPlaces } = field;
      if (!Number.isInteger(maxDigits) || !Number.isInteger(decimalPlaces) || decimalPlaces < 0 || maxDigits < 1 || decimalPlaces > maxDigits) {
        fail(declaration, where, 'needs whole maxDigits ≥ 1 and decimalPlaces between 0 and maxDigits');
      }
    }
  }
}

function assertActions(declaration: ResourceDeclaration): void {
  for (const [name, action] of Object.entries(declaration.actions ?? {})) {
    const where = `actions.${name}`;
    if (typeof action.run !== 'function') fail(declaration, where, 'has no run function');
    const path = action.path ?? name.replaceAll('_', '-');
    if (!SEGMENT.test(path)) fail(declaration, where, `has path "${path}", which is not one URL segment`);
    if (action.methods?.length === 0) fail(declaration, where, 'names no method');
    for (const [field, input] of Object.entries(action.input ?? {})) {
      if (input.kind === 'manyToMany' || input.kind === 'computed' || input.kind === 'id') fail(declaration, `${where}.input.${field}`, `cannot be a ${input.kind} field`);
    }
  }
  for (const site of Object.keys(declaration.sites ?? {})) {
    const paths = Object.entries(declaration.actions ?? {}).filter(([, action]) => !action.detail).map(([name, action]) => action.path ?? name.replaceAll('_', '-'));
    // A list action named like a number would shadow a row.
    for (const path of paths) if (/^\d+$/.test(path)) fail(declaration, `sites.${site}`, `has a list action at "${path}", which would hide row ${path}`);
  }
}

export function assertRelations(declaration: ResourceDeclaration): void {
  assertFields(declaration);
  for (const name of Object.keys(declaration.hooks ?? {})) if (!HOOKS.has(name)) fail(declaration, 'hooks', `has "${name}", which is no hook (${[...HOOKS].join(', ')})`);
  assertActions(declaration);
}
