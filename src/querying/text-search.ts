/**
 * Case-insensitive substring search ("contains"), served by a trigram index
 * so that a term of three characters or more never scans the table: SQLite's
 * FTS5 with the `trigram` tokenizer (an external-content table `<table>_fts`
 * kept in step by triggers), PostgreSQL's pg_trgm GIN indexes, which its
 * planner uses for ILIKE by itself. `%` and `_` are literal characters.
 * Shorter terms, and columns no index covers, fall back to a LIKE scan.
 * Both indexes are created by migrations (src/db/text-index.ts).
 */
import { literal, Op, type Sequelize, type WhereOptions } from 'sequelize';
import { perDatabase } from '../db/per-database.js';
import { ftsTableName, textIndexColumns } from '../db/text-index.js';
import type { RowModel } from '../registry.js';

/** A trigram index finds a term of at least this many characters. */
export const TRIGRAM = 3;

/** A LIKE pattern that finds `term` anywhere, its own `%`, `_` and `\` escaped with `\`. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, '\\$&')}%`;
}

/** An FTS5 phrase: the term in double quotes, its own double quotes doubled; inside one, every character is literal. */
function ftsPhrase(term: string): string {
  return `"${term.replaceAll('"', '""')}"`;
}

/** Whether a trigram index can find `term`; a shorter one is a scan of the table. */
export function indexFinds(term: string): boolean {
  return [...term].length >= TRIGRAM;
}

export class TextSearch {
  /** Per table, the columns its FTS5 table covers (SQLite only), read once. */
  private readonly covered = new Map<string, Promise<ReadonlySet<string>>>();

  constructor(private readonly sequelize: Sequelize) {}

  private quote(name: string): string {
    return this.sequelize.getQueryInterface().quoteIdentifier(name);
  }

  private column(model: RowModel, field: string): string {
    return `${this.quote(model.name)}.${this.quote(field)}`;
  }

  /** The columns of `<table>_fts`, if it exists; none when it does not (a database its migration has not reached). */
  private ftsColumns(table: string): Promise<ReadonlySet<string>> {
    let found = this.covered.get(table);
    if (!found) {
      found = textIndexColumns(this.sequelize.getQueryInterface(), table);
      this.covered.set(table, found);
      // None yet (a server started before the migration that makes it): asked again next time.
      void found.then((columns) => columns.size === 0 && this.covered.delete(table));
    }
    return found;
  }

  /** Some of `columns` contains `term`, ignoring case. */
  async contains(model: RowModel, columns: readonly string[], term: string): Promise<WhereOptions> {
    if (this.sequelize.getDialect() === 'sqlite' && indexFinds(term)) {
      const covered = await this.ftsColumns(model.getTableName() as string);
      if (columns.every((column) => covered.has(column))) return this.ftsMatch(model, columns, term, covered.size === columns.length);
    }
    const operator = this.sequelize.getDialect() === 'postgres' ? 'ILIKE' : 'LIKE';
    const pattern = this.sequelize.escape(containsPattern(term));
    const each = columns.map((column) => literal(`${this.column(model, column)} ${operator} ${pattern} ESCAPE '\\'`));
    return each.length === 1 ? (each[0] as WhereOptions) : { [Op.or]: each };
  }

  /** The rows whose FTS5 entry has the phrase in one of `columns` (a column filter unless it covers exactly those). */
  private ftsMatch(model: RowModel, columns: readonly string[], term: string, everyColumn: boolean): WhereOptions {
    const table = model.getTableName() as string;
    const fts = this.quote(ftsTableName(table));
    const filter = everyColumn ? '' : `{${columns.join(' ')}} : `;
    const key = this.column(model, model.primaryKeyAttribute);
    return literal(`${key} IN (SELECT rowid FROM ${fts} WHERE ${fts} MATCH ${this.sequelize.escape(filter + ftsPhrase(term))})`);
  }
}

/** The one TextSearch of a database connection. */
export const textSearch = perDatabase((sequelize) => new TextSearch(sequelize));
