/**
 * Names in hand-written SQL as Sequelize writes them: its quoting, and the
 * column an attribute is stored in. Compiled statements (compiled.ts) and
 * the conditional writes' claim (row-version.ts) quote alike.
 */
import type { Sequelize, TableName } from 'sequelize';
import type { RowModel } from '../types/rows.js';

export interface QuoteGenerator {
  quoteIdentifier(name: string): string;
  quoteTable(table: TableName): string;
}

export function quoteGenerator(sequelize: Sequelize): QuoteGenerator {
  // The typings put quoteTable on the query interface; Sequelize has it on the query generator.
  return (sequelize.getQueryInterface() as unknown as { queryGenerator: QuoteGenerator }).queryGenerator;
}

/** The column `attribute` of `model` is stored in. */
export function columnOf(model: RowModel, attribute: string): string {
  const column = model.getAttributes()[attribute];
  if (!column) throw new Error(`${model.name} has no attribute ${attribute}`);
  return column.field ?? attribute;
}
