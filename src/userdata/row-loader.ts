/**
 * Loads the rows of one resource (other than the accounts and their tokens)
 * from data files, inside the load's transaction and after the resources it
 * refers to. As Django's loaddata, a record is the whole row: it replaces the
 * row with its pk, or makes it. A reference must name a row of the database
 * or of the load; one to a row that comes later (a parent further on in
 * its own table, a loop between resources) is set once every resource is in.
 */
import { UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { clock } from '../clock.js';
import { violatedColumns } from '../db/unique-violation.js';
import { FIELD_ERRORS } from '../errors.js';
import { fixtureLabel, type ModelCatalogue } from './models.js';
import type { LocatedProblem, ProblemCollector } from './problems.js';
import { RowRecordReader, type ImportedRow } from './row-records.js';
import type { DataSource } from './sources.js';
import { advanceIdSequence, BATCH_SIZE, insertRows, readInBatches, type FileReport, type LoadProgress } from './writing.js';
import type { BoundResource, JoinTable } from '../types/resource.js';

export interface RowLoadContext {
  transaction: Transaction;
  problems: ProblemCollector;
  catalogue: ModelCatalogue;
  onProgress?: (progress: LoadProgress) => void;
  /** Whether `resource`'s rows are in before this resource's are read: a reference to them is checked at once. */
  loadedBefore(resource: BoundResource): boolean;
  /** Whether a record of this load has that pk of `resource`: once the load fails its row is not written, yet it is no problem of a reference. */
  claimed(resource: BoundResource, pk: number): boolean;
}

interface Claim {
  file: string;
  record: number;
}

/** What a reference names by id: a row of `target`. */
interface Reference {
  name: string;
  target: BoundResource;
  nullable: boolean;
}

interface Links {
  name: string;
  target: BoundResource;
  join: JoinTable;
}

/** A reference or the links of a row, set once every resource is in: where it was read, and the ids it names. */
interface Later {
  file: string;
  record: number;
  /** The field, and its name in the file. */
  name: string;
  given: string;
  pk: number;
  ids: number[];
  links?: Links;
  reference?: Reference;
}

export class RowLoader {
  private readonly reader: RowRecordReader;
  private readonly label: string;
  private readonly claims = new Map<number, Claim>();
  private readonly later: Later[] = [];
  /** The problems of the batch being checked, told in the order of its records once all are known. */
  private found: LocatedProblem[] = [];
  private readonly references: Reference[] = [];
  private readonly links: Links[] = [];
  /** Every column, and what a new row holds in those its record leaves out. */
  private readonly columns: string[];
  private readonly defaults: Record<string, unknown> = {};
  /** Columns a record must give: NOT NULL, no default, and no time the load sets. */
  private readonly required: string[] = [];

  constructor(
    readonly resource: BoundResource,
    private readonly context: RowLoadContext,
  ) {
    this.reader = new RowRecordReader(resource);
    this.label = fixtureLabel(resource);
    const { created, updated } = resource.timestamps;
    this.columns = Object.keys(resource.model.getAttributes()).filter((name) => name !== resource.model.primaryKeyAttribute);
    for (const [name, field] of Object.entries(resource.declaration.fields)) {
      const target = field.kind === 'reference' ? resource.references.get(field.as)?.resource : undefined;
      if (target) this.references.push({ name, target, nullable: field.nullable ?? false });
      const relation = field.kind === 'manyToMany' ? resource.relations.get(name) : undefined;
      if (relation?.kind === 'manyToMany') this.links.push({ name, target: relation.resource, join: relation.join });
      if (!this.columns.includes(name)) continue;
      if (field.default !== undefined) this.defaults[name] = field.default;
      else if (field.nullable) this.defaults[name] = null;
      else if (name !== created && name !== updated) this.required.push(name);
    }
  }

  private get transaction(): Transaction {
    return this.context.transaction;
  }

  private get sequelize(): Sequelize {
    return this.resource.model.sequelize as Sequelize;
  }

  claimedPk(pk: number): boolean {
    return this.claims.has(pk);
  }

  /** The file's records of this resource; their counts go to its report. */
  async loadFile(source: DataSource, report: FileReport): Promise<void> {
    const counts = (report.rows[this.label] ??= { records: 0, created: 0, updated: 0 });
    const ignored = new Set(report.ignored);
    await readInBatches<ImportedRow>(source, this.context.problems, {
      read: async (item) => {
        const kind = this.context.catalogue.kindOf(item.data);
        // Counted when the users were read.
        if (kind.kind !== 'rows' || kind.resource !== this.resource) return null;
        const read = this.reader.read(item);
        for (const name of read.ignored) ignored.add(`${this.label}.${name}`);
        for (const problem of read.problems) this.context.problems.report(problem.located({ file: source.file, record: item.record }));
        return read.row;
      },
      write: (batch) => this.write(source.file, batch, counts),
      written: (records) =>
        this.context.onProgress?.({ file: source.file, phase: this.label, bytesRead: source.bytesRead(), bytesTotal: source.size, records }),
    });
    report.ignored = [...ignored];
  }

  private report(file: string, row: ImportedRow, name: string, key: string, params: LocatedProblem['params'] = {}): void {
    this.found.push({ file, record: row.record, field: row.fieldNames[name] ?? name, key, params });
  }

  /** The first record with a pk keeps it; a later one is a duplicate. */
  private claim(file: string, row: ImportedRow): boolean {
    if (row.pk === null) return true;
    const earlier = this.claims.get(row.pk);
    if (earlier) {
      this.report(file, row, 'id', 'loaddata.duplicate_in_files', { value: String(row.pk), other_file: earlier.file, other_record: earlier.record });
      return false;
    }
    this.claims.set(row.pk, { file, record: row.record });
    return true;
  }

  /** Which of `ids` are rows of `target` now, in the load's transaction. */
  private async existing(target: BoundResource, ids: readonly number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const key = target.model.primaryKeyAttribute;
    const rows = (await target.model.unscoped().findAll({ attributes: [key], where: { [key]: [...new Set(ids)] }, transaction: this.transaction, raw: true })) as unknown as Record<string, unknown>[];
    return new Set(rows.map((row) => Number(row[key])));
  }

  /** Whether a reference to `id` of `target` that is not in the database is still no problem: its row is the load's, unwritten because the load fails. */
  private unwritten(target: BoundResource, id: number): boolean {
    return this.context.problems.any && this.context.claimed(target, id);
  }

  private async write(file: string, batch: readonly ImportedRow[], counts: { created: number; updated: number }): Promise<void> {
    const rows = batch.filter((row) => this.claim(file, row));
    for (const row of rows) {
      for (const name of this.required) if (!Object.hasOwn(row.values, name)) this.report(file, row, name, FIELD_ERRORS.required);
    }
    await this.checkReferences(file, rows);
    await this.checkLinks(file, rows);
    for (const problem of this.found.sort((a, b) => (a.record ?? 0) - (b.record ?? 0))) this.context.problems.report(problem);
    this.found = [];
    // Once the load is known to fail, the rest of the files are only checked.
    if (rows.length === 0 || this.context.problems.any) return;
    const numbered = rows.filter((row) => row.pk !== null);
    const replaced = await this.existing(this.resource, numbered.map((row) => row.pk as number));
    try {
      // A savepoint: on PostgreSQL a failed statement would otherwise end the checks of every later batch.
      await this.sequelize.transaction({ transaction: this.transaction }, async () => {
        const now = clock().now();
        await insertRows(this.resource, this.transaction, numbered.map((row) => this.wholeRow(row, now)), this.columns);
        if (numbered.length > replaced.size) await advanceIdSequence(this.resource, this.transaction);
        for (const row of rows) if (row.pk === null) row.pk = await this.insertUnnumbered(row, now);
        await this.link(rows);
      });
    } catch (error) {
      if (!(error instanceof UniqueConstraintError)) throw error;
      const [first, last] = [batch[0]?.record ?? 0, batch.at(-1)?.record ?? 0];
      this.context.problems.report({ file, key: 'loaddata.rows_conflict', params: { first, last, columns: (violatedColumns(error) ?? ['?']).join(', ') } });
      return;
    }
    counts.created += rows.length - replaced.size;
    counts.updated += replaced.size;
  }

  /** The record's values over the declared defaults, and the times the load sets where it gives none. */
  private wholeRow(row: ImportedRow, now: Date): Record<string, unknown> {
    const whole: Record<string, unknown> = { ...this.defaults, ...row.values };
    const { created, updated } = this.resource.timestamps;
    if (created) whole[created] ??= now;
    if (updated) whole[updated] ??= created ? whole[created] : now;
    if (row.pk !== null) whole[this.resource.model.primaryKeyAttribute] = row.pk;
    return whole;
  }

  /** A record without a pk (a hand-written fixture): made alone, for the id the database gives it. */
  private async insertUnnumbered(row: ImportedRow, now: Date): Promise<number> {
    // Silent: the times are the record's (or the load's), as wholeRow set them.
    const made = await this.resource.model.create(this.wholeRow(row, now), { transaction: this.transaction, silent: true, validate: false });
    return Number(made.get(this.resource.model.primaryKeyAttribute));
  }

  /**
   * Every reference names a row: of the database, of this batch, or (when
   * its rows come later, and the field may wait as null) of the load, set
   * at the end.
   */
  private async checkReferences(file: string, rows: readonly ImportedRow[]): Promise<void> {
    const own = new Set(rows.flatMap((row) => (row.pk === null ? [] : [row.pk])));
    for (const reference of this.references) {
      const { name, target } = reference;
      const named = rows.flatMap((row) => (typeof row.values[name] === 'number' ? [row.values[name] as number] : []));
      const found = await this.existing(target, named);
      for (const row of rows) {
        const id = row.values[name];
        if (typeof id !== 'number' || found.has(id) || (target === this.resource && own.has(id))) continue;
        if (!this.context.loadedBefore(target) && reference.nullable && row.pk !== null) {
          this.later.push({ file, record: row.record, name, given: row.fieldNames[name] ?? name, pk: row.pk, ids: [id], reference });
          row.values[name] = null;
        } else if (!this.unwritten(target, id)) {
          this.report(file, row, name, 'loaddata.reference_unknown', { model: fixtureLabel(target), id });
        }
      }
    }
  }

  /** Every many-to-many names rows of the database or of the load; links to rows that come later are made at the end. */
  private async checkLinks(file: string, rows: readonly ImportedRow[]): Promise<void> {
    for (const links of this.links) {
      const { name, target } = links;
      const waiting = !this.context.loadedBefore(target);
      const now = rows.filter((row) => row.links.has(name) && !(waiting && row.pk !== null));
      const found = await this.existing(target, now.flatMap((row) => row.links.get(name) ?? []));
      for (const row of rows) {
        const ids = row.links.get(name);
        if (!ids) continue;
        if (waiting && row.pk !== null) {
          this.later.push({ file, record: row.record, name, given: row.fieldNames[name] ?? name, pk: row.pk, ids, links });
          row.links.delete(name);
          continue;
        }
        const missing = ids.find((id) => !found.has(id) && !this.unwritten(target, id));
        if (missing !== undefined) this.report(file, row, name, 'loaddata.reference_unknown', { model: fixtureLabel(target), id: missing });
      }
    }
  }

  /** Makes each many-to-many a record names link its row to exactly the ids it gives. */
  private async link(rows: readonly ImportedRow[]): Promise<void> {
    for (const { name, join } of this.links) {
      const linked = rows.filter((row) => row.links.has(name) && row.pk !== null);
      if (linked.length === 0) continue;
      await join.model.destroy({ where: { [join.from]: linked.map((row) => row.pk as number) }, transaction: this.transaction });
      const pairs = linked.flatMap((row) => (row.links.get(name) ?? []).map((id) => ({ [join.from]: row.pk, [join.to]: id })));
      for (let start = 0; start < pairs.length; start += BATCH_SIZE) {
        await join.model.bulkCreate(pairs.slice(start, start + BATCH_SIZE), { transaction: this.transaction });
      }
    }
  }

  /**
   * The references and links left for the end, once every resource is in:
   * each must name a row now, then they are written. Problems are told
   * where their records are.
   */
  async finish(): Promise<void> {
    for (let start = 0; start < this.later.length; start += BATCH_SIZE) {
      const chunk = this.later.slice(start, start + BATCH_SIZE);
      await this.checkLater(chunk);
      if (this.context.problems.any) continue;
      await this.sequelize.transaction({ transaction: this.transaction }, () => this.writeLater(chunk));
    }
  }

  private async checkLater(chunk: readonly Later[]): Promise<void> {
    const byTarget = new Map<BoundResource, number[]>();
    for (const later of chunk) {
      const target = (later.reference ?? later.links)?.target;
      if (target) byTarget.set(target, [...(byTarget.get(target) ?? []), ...later.ids]);
    }
    const found = new Map<BoundResource, Set<number>>();
    for (const [target, ids] of byTarget) found.set(target, await this.existing(target, ids));
    for (const later of chunk) {
      const target = (later.reference ?? later.links)?.target;
      if (!target) continue;
      const missing = later.ids.find((id) => !found.get(target)?.has(id) && !this.unwritten(target, id));
      if (missing === undefined) continue;
      const params = { model: fixtureLabel(target), id: missing };
      this.context.problems.report({ file: later.file, record: later.record, field: later.given, key: 'loaddata.reference_unknown', params });
    }
  }

  private async writeLater(chunk: readonly Later[]): Promise<void> {
    const queries = this.sequelize.getQueryInterface();
    const key = this.resource.model.primaryKeyAttribute;
    const references = chunk.filter((later) => later.reference);
    for (const name of new Set(references.map((later) => later.name))) {
      const set = references.filter((later) => later.name === name);
      // One statement for the chunk: each row's own value, by its key.
      const cases = set.map((_, index) => `WHEN :key${index} THEN :value${index}`).join(' ');
      const replacements: Record<string, unknown> = { keys: set.map((later) => later.pk) };
      set.forEach((later, index) => Object.assign(replacements, { [`key${index}`]: later.pk, [`value${index}`]: later.ids[0] }));
      const [table, column, id] = [this.resource.declaration.table, name, key].map((identifier) => queries.quoteIdentifier(identifier));
      await this.sequelize.query(`UPDATE ${table} SET ${column} = CASE ${id} ${cases} END WHERE ${id} IN (:keys)`, { replacements, transaction: this.transaction });
    }
    const rows = chunk.flatMap((later) => (later.links ? [{ record: later.record, pk: later.pk, values: {}, links: new Map([[later.name, later.ids]]), fieldNames: {} }] : []));
    await this.link(rows);
  }
}
