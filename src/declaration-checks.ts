/**
 * What the declarations must agree on between them, checked before anything
 * is made of them (the registry, `makemigrations`): each mistake named in the
 * declarations' own words, where Sequelize would name it in its own or a
 * second declaration would silently take over the first's table or path.
 * What one declaration alone must satisfy is checked by defineResource.
 */
import type { ResourceDeclaration } from './types/resource.js';

function fail(message: string): never {
  throw new Error(message);
}

/** `seen` records who claimed each value first; a second claim fails with `describe(first)`. */
function claim(seen: Map<string, string>, value: string, claimant: string, describe: (first: string) => string): void {
  const first = seen.get(value);
  if (first !== undefined) fail(describe(first));
  seen.set(value, claimant);
}

export function checkDeclarations(declarations: readonly ResourceDeclaration[]): void {
  const byName = new Map(declarations.map((declaration) => [declaration.name, declaration]));
  const names = new Map<string, string>();
  const tables = new Map<string, string>();
  const paths = new Map<string, string>();
  for (const { name, table, sites } of declarations) {
    claim(names, name, name, () => `Resource ${name} is declared twice: each resource's file names it once`);
    claim(tables, table, name, (first) => `Resources ${first} and ${name} both declare table "${table}": each needs a table of its own`);
    for (const [site, exposure] of Object.entries(sites ?? {})) {
      const path = exposure.path.replace(/^\/+|\/+$/g, '');
      claim(paths, `${site} ${path}`, name, (first) => `Resources ${first} and ${name} are both served at "${path}" on the ${site} site: give one another sites.${site}.path`);
    }
  }
  const known = [...byName.keys()].sort().join(', ');
  // A resource's relation names: its references' `as` names and the `related` names other resources give it.
  const relationNames = new Map<string, string>();
  for (const declaration of declarations) {
    for (const [fieldName, field] of Object.entries(declaration.fields)) {
      if (field.kind !== 'reference') continue;
      const where = `${declaration.name}.${fieldName}`;
      claim(relationNames, `${declaration.name}.${field.as}`, where, (first) => `${first} and ${where} are both named "${field.as}" (\`as\`): each reference needs a name of its own`);
    }
  }
  for (const declaration of declarations) {
    for (const [fieldName, field] of Object.entries(declaration.fields)) {
      if (field.kind !== 'reference' && field.kind !== 'manyToMany') continue;
      const where = `${declaration.name}.${fieldName}`;
      const target = byName.get(field.to) ?? fail(`${where} refers to ${field.to}, but no resource is named so (the resources: ${known})`);
      if (field.kind === 'reference' && field.as in declaration.fields) {
        fail(`${where}: its \`as\` name "${field.as}" is also a field of ${declaration.name}; name the reference otherwise (as: '${field.as}_row', say)`);
      }
      if (!field.related) continue;
      if (field.related in target.fields) fail(`${where}: its \`related\` name "${field.related}" is also a field of ${target.name}`);
      claim(relationNames, `${target.name}.${field.related}`, where, (first) => `${first} and ${where} both name rows "${field.related}" on ${target.name}: each relation of a resource needs a name of its own`);
    }
  }
}
