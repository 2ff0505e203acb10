/**
 * The indexes a declaration's list queries need, checked against the
 * database its migrations built: every field a list may be filtered or
 * ordered by leads an index, and every field searched (or filtered by
 * `icontains`) has a trigram index. A missing one is not an error (the query
 * still answers, slowly): the server warns at start and the tests fail.
 */
import type { QueryInterface } from 'sequelize';
import { textIndexColumns, trigramIndexName } from './text-index.js';
import type { ListQuery } from '../types/declaration.js';
import type { ResourceDeclaration } from '../types/resource.js';

export interface MissingIndex {
  table: string;
  field: string;
  /** `ordered`: no index starts with it; `text`: no trigram index covers it. */
  kind: 'ordered' | 'text';
}

/** The fields of a declaration that need an index led by them, and those that need a trigram index. */
export function neededIndexes(declaration: ResourceDeclaration): { ordered: Set<string>; text: Set<string> } {
  const queries: ListQuery[] = [
    ...(declaration.query ? [declaration.query] : []),
    // Each exposure's own keys over the resource's, as the sites read them.
    ...Object.values(declaration.sites ?? {}).map((exposure): ListQuery => ({ ...declaration.query, ...exposure.query })),
  ];
  const ordered = new Set<string>();
  const text = new Set<string>();
  for (const query of queries) {
    for (const [field, lookups] of Object.entries(query.filters ?? {})) {
      if (lookups.includes('icontains')) text.add(field);
      if (lookups.some((lookup) => lookup !== 'icontains')) ordered.add(field);
    }
    for (const field of query.orderingFields ?? []) ordered.add(field);
    for (const field of query.search ?? []) text.add(field);
  }
  // The primary key is an index of its own.
  for (const [name, field] of Object.entries(declaration.fields)) if (field.kind === 'id') ordered.delete(name);
  return { ordered, text };
}

async function leadingColumns(db: QueryInterface, table: string): Promise<Set<string>> {
  const indexes = (await db.showIndex(table)) as { name: string; fields: { attribute: string }[] }[];
  return new Set(indexes.filter((index) => !index.name.endsWith('_trgm')).flatMap((index) => index.fields[0]?.attribute ?? []));
}

/** What is missing in the tables that exist: a table its migration has not made yet is not checked. */
export async function missingQueryIndexes(db: QueryInterface, declarations: readonly ResourceDeclaration[]): Promise<MissingIndex[]> {
  const missing: MissingIndex[] = [];
  const tables = new Set((await db.showAllTables()).map((table) => (typeof table === 'string' ? table : (table as { tableName: string }).tableName)));
  for (const declaration of declarations) {
    const { ordered, text } = neededIndexes(declaration);
    const { table } = declaration;
    if (!tables.has(table)) continue;
    if (ordered.size > 0) {
      const leading = await leadingColumns(db, table);
      for (const field of ordered) {
        const declared = declaration.fields[field];
        // A many-to-many is filtered through its join table, by the far side's column.
        if (declared?.kind === 'manyToMany') {
          const { table: join, to } = declared.through;
          if (tables.has(join) && !(await leadingColumns(db, join)).has(to)) missing.push({ table: join, field: to, kind: 'ordered' });
        } else if (!leading.has(field)) missing.push({ table, field, kind: 'ordered' });
      }
    }
    if (text.size > 0) {
      const covered = await textIndexColumns(db, table);
      for (const field of text) if (!covered.has(field)) missing.push({ table, field, kind: 'text' });
    }
  }
  return missing;
}

/** How a missing index is made, for a warning or a failing test. */
export function describeMissing({ table, field, kind }: MissingIndex): string {
  return kind === 'ordered'
    ? `${table}.${field} is filtered or ordered by but leads no index (db.addIndex('${table}', ['${field}', 'id']) in a migration)`
    : `${table}.${field} is searched but has no trigram index (createTextIndex(db, '${table}', [...]) in a migration; ${trigramIndexName(table, field)} on PostgreSQL)`;
}
