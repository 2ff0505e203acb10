/**
 * Case-insensitive substring search ("contains"), served by a trigram index
 * so that a term of three characters or more never scans the table: SQLite's
 * FTS5 with the `trigram` tokenizer (an external-content table `<table>_fts`
 * kept in step by triggers), PostgreSQL's pg_trgm GIN indexes, which its
 * planner uses for ILIKE by itself once told how rare a term is
 * (rareOnPostgres). `%` and `_` are literal characters.
 * Shorter terms, and columns no index covers, fall back to a LIKE scan.
 * Both indexes are created by migrations (src/db/text-index.ts).
 */
import { literal, Op, type Sequelize, type WhereOptions } from 'sequelize';
import { perDatabase } from '../db/per-database.js';
import { ftsTableName, textIndexColumns } from '../db/text-index.js';
import type { RowModel } from '../types/rows.js';

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
    const postgres = this.sequelize.getDialect() === 'postgres';
    const pattern = this.sequelize.escape(containsPattern(term));
    const each = columns.map((column) => literal(`${this.column(model, column)} ${postgres ? 'ILIKE' : 'LIKE'} ${pattern} ESCAPE '\\'`));
    const found: WhereOptions = each.length === 1 ? (each[0] as WhereOptions) : { [Op.or]: each };
    return postgres && indexFinds(term) ? rareOnPostgres(found) : found;
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

/**
 * The same condition twice, so that PostgreSQL's planner squares its guess
 * of the rows that hold the term. It cannot know how many do: it tries the
 * pattern on its statistics' sample of the column and never believes fewer
 * than 1 row in 10,000 ("don't believe extremely small estimates",
 * PostgreSQL's like_support.c). Every term missing from that sample, 7
 * matches or 5,000, looks like some 200 rows in a million: enough for a page
 * to look cheaper read by walking the list's order on its index, testing
 * each row, than from the trigram index and a sort of the matches; and a
 * term whose few matches lie far down the order walks nearly the whole table
 * (a million rows, seconds, for a page of 2). The clauses of an AND are
 * multiplied, so with the copy such a term looks as rare as it is (1 row):
 * its page comes from the trigram index, as its count does, in every order,
 * by page number or by cursor. A term common enough to be in the sample (from
 * about 1% of the rows) still looks common, and its first pages still walk
 * the order, a few rows each. The copy is tested only on the rows the first
 * kept: a microsecond a match. Plans of both forms: docs/performance.md.
 */
function rareOnPostgres(condition: WhereOptions): WhereOptions {
  return { [Op.and]: [condition, condition] };
}

/** The one TextSearch of a database connection. */
export const textSearch = perDatabase((sequelize) => new TextSearch(sequelize));
