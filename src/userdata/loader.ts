/**
 * Loads the accounts of data files (Django fixtures, Laravel exports, CSV
 * lists) into the account model: a record updates its user or makes one.
 */
import { col, fn, Op, UniqueConstraintError, where, type Transaction, type WhereOptions } from 'sequelize';
import { unusablePassword, type PasswordHasher } from '../auth/hashers.js';
import { clock } from '../clock.js';
import { userModelOf } from '../registry.js';
import type { Sequelize } from 'sequelize';
import { fixtureLabel, type ModelCatalogue } from './models.js';
import { ProblemCollector, type LocatedProblem } from './problems.js';
import { UserRecordReader, type ImportedUser } from './records.js';
import type { DataSource } from './sources.js';
import { advanceIdSequence, insertRows, readInBatches, type FileReport, type LoadProgress } from './writing.js';
import type { UserModelContract } from '../types/declaration.js';
import type { BoundResource } from '../types/resource.js';

export type { FileReport, LoadProgress };

export interface LoadOptions {
  onProgress?: (progress: LoadProgress) => void;
  /** Load inside this transaction (a seeder's) instead of one of its own. */
  transaction?: Transaction;
}

interface Claim {
  file: string;
  record: number;
}

interface ExistingRow {
  id: number;
  username: string;
  email: string;
}

interface Existing {
  byId: Map<number, ExistingRow>;
  byUsername: Map<string, ExistingRow>;
  byEmail: Map<string, ExistingRow>;
}

/**
 * Loads user data files into the account model inside one transaction. Each
 * record updates the row with its pk, else the row with its username, else
 * makes a new row; a duplicate in the files or against another row is a
 * problem. Every problem is collected, and any problem leaves the load to be
 * rolled back: a bad file loads nothing.
 */
export class UserLoader {
  private readonly reader: UserRecordReader;
  private readonly claims = { pk: new Map<number, Claim>(), username: new Map<string, Claim>(), email: new Map<string, Claim>() };
  /** What a new row holds in the columns its record leaves out. */
  private readonly defaults: Record<string, unknown>;

  constructor(
    private readonly users: BoundResource,
    private readonly hasher: PasswordHasher,
    private readonly transaction: Transaction,
    /** What each record of a file is: this loader reads the users', and counts the others. */
    private readonly catalogue: ModelCatalogue,
    private readonly options: LoadOptions = {},
    private readonly problems: ProblemCollector = new ProblemCollector(),
  ) {
    this.reader = new UserRecordReader(users);
    this.defaults = {};
    for (const [name, field] of Object.entries(users.declaration.fields)) {
      if (field.default !== undefined) this.defaults[name] = field.default;
      else if (field.nullable) this.defaults[name] = null;
    }
  }

  private get contract(): UserModelContract {
    return userModelOf(this.users);
  }

  private get sequelize(): Sequelize {
    return this.users.model.sequelize as Sequelize;
  }

  private report(problem: LocatedProblem): void {
    this.problems.report(problem);
  }

  /**
   * The users of a file; its token records are only counted (the token
   * loader reads them once every file's users are in). False when the file
   * could not be read through.
   */
  async loadFile(source: DataSource, report: FileReport): Promise<boolean> {
    const ignored = new Set<string>();
    const readThrough = await readInBatches<ImportedUser>(source, this.problems, {
      read: async (item) => {
        report.records += 1;
        const kind = this.catalogue.kindOf(item.data);
        if (kind.kind === 'token') report.tokens.records += 1;
        // Counted here, read again for their rows once the users are in.
        if (kind.kind === 'rows') (report.rows[fixtureLabel(kind.resource)] ??= { records: 0, created: 0, updated: 0 }).records += 1;
        if (kind.kind === 'unknown') this.report(this.catalogue.unknown(kind.model).located({ file: source.file, record: item.record }));
        if (kind.kind !== 'user') return null;
        const read = await this.reader.read(item, source.format);
        for (const name of read.ignored) ignored.add(name);
        for (const problem of read.problems) this.report(problem.located({ file: source.file, record: item.record }));
        return read.user;
      },
      write: (batch) => this.write(source.file, batch, report),
      written: (records) =>
        this.options.onProgress?.({ file: source.file, phase: 'users', bytesRead: source.bytesRead(), bytesTotal: source.size, records }),
    });
    report.ignored = [...ignored];
    return readThrough;
  }

  /** Whether a record of this load has the pk (written, unless the load already failed). */
  claimedPk(pk: number): boolean {
    return this.claims.pk.has(pk);
  }

  /** The first record to use a pk, username or email keeps it; a later one is a duplicate. */
  private claim(file: string, user: ImportedUser): boolean {
    const keys: [keyof UserLoader['claims'], number | string, string][] = [
      ['username', user.username, this.contract.usernameField],
      ['email', user.email.toLowerCase(), this.contract.emailField],
    ];
    if (user.pk !== null) keys.unshift(['pk', user.pk, 'id']);
    let clean = true;
    for (const [kind, value, column] of keys) {
      const earlier = (this.claims[kind] as Map<number | string, Claim>).get(value);
      if (!earlier) continue;
      clean = false;
      this.report({
        file,
        record: user.record,
        field: user.fieldNames[column] ?? column,
        key: 'loaddata.duplicate_in_files',
        params: { value: String(value), other_file: earlier.file, other_record: earlier.record },
      });
    }
    if (!clean) return false;
    for (const [kind, value] of keys) (this.claims[kind] as Map<number | string, Claim>).set(value, { file, record: user.record });
    return true;
  }

  /**
   * The rows holding any of the batch's ids, usernames or emails. Three
   * queries, one per index: PostgreSQL answers their OR with a scan of the
   * whole table, which made each batch slower than the last.
   */
  private async existing(batch: readonly ImportedUser[]): Promise<Existing> {
    const { usernameField, emailField } = this.contract;
    const ids = batch.flatMap((user) => (user.pk === null ? [] : [user.pk]));
    const conditions: WhereOptions[] = [
      { [usernameField]: batch.map((user) => user.username) },
      where(fn('lower', col(emailField)), { [Op.in]: batch.map((user) => user.email.toLowerCase()) }),
    ];
    if (ids.length > 0) conditions.push({ id: ids });
    const found: Existing = { byId: new Map(), byUsername: new Map(), byEmail: new Map() };
    for (const condition of conditions) {
      const rows = (await this.users.model.findAll({
        attributes: ['id', usernameField, emailField],
        where: condition,
        transaction: this.transaction,
        raw: true,
      })) as unknown as Record<string, unknown>[];
      for (const raw of rows) {
        const row = { id: Number(raw.id), username: String(raw[usernameField]), email: String(raw[emailField]) };
        found.byId.set(row.id, row);
        found.byUsername.set(row.username, row);
        found.byEmail.set(row.email.toLowerCase(), row);
      }
    }
    return found;
  }

  /**
   * The row a record updates (by pk, else by username), or undefined for a
   * new row. A problem: a value another row holds; a pk whose row has neither
   * the record's username nor its email (another person's: Django and Laravel
   * ids both start at 1); a row another record of this load already wrote.
   */
  private target(file: string, user: ImportedUser, existing: Existing): { row: ExistingRow | undefined; clean: boolean } {
    const { usernameField, emailField } = this.contract;
    const byPk = user.pk !== null ? existing.byId.get(user.pk) : undefined;
    const row = byPk ?? existing.byUsername.get(user.username);
    const problem = (column: string, key: string, params: LocatedProblem['params']): void =>
      this.report({ file, record: user.record, field: user.fieldNames[column] ?? column, key, params });
    let clean = true;
    const holders: [string, string, ExistingRow | undefined][] = [
      [usernameField, user.username, existing.byUsername.get(user.username)],
      [emailField, user.email, existing.byEmail.get(user.email.toLowerCase())],
    ];
    for (const [column, value, holder] of holders) {
      if (!holder || holder.id === row?.id) continue;
      clean = false;
      problem(column, 'loaddata.duplicate_in_database', { value, id: holder.id, username: holder.username });
    }
    if (clean && byPk && byPk.username !== user.username && byPk.email.toLowerCase() !== user.email.toLowerCase()) {
      clean = false;
      problem('id', 'loaddata.pk_of_another_user', { id: byPk.id, username: byPk.username });
    }
    const writer = row && row.username !== user.username ? this.claims.username.get(row.username) : undefined;
    if (clean && row && writer) {
      clean = false;
      problem('id', 'loaddata.row_written_in_files', { id: row.id, other_file: writer.file, other_record: writer.record });
    }
    return { row, clean };
  }

  private async write(file: string, batch: readonly ImportedUser[], report: FileReport): Promise<void> {
    const claimed = batch.filter((user) => this.claim(file, user));
    if (claimed.length === 0) return;
    const existing = await this.existing(claimed);
    const inserts: ImportedUser[] = [];
    const updates: [number, ImportedUser][] = [];
    for (const user of claimed) {
      const { row, clean } = this.target(file, user, existing);
      if (!clean) continue;
      if (row) updates.push([row.id, user]);
      else inserts.push(user);
    }
    // Once the load is known to fail, the rest of the files are only checked.
    if (this.problems.any) return;
    try {
      // A savepoint: on PostgreSQL a failed statement would otherwise end the checks of every later batch.
      await this.sequelize.transaction({ transaction: this.transaction }, async () => {
        await this.insert(inserts);
        await this.update(updates);
      });
    } catch (error) {
      if (!(error instanceof UniqueConstraintError)) throw error;
      // Values that differ only in a letter case the database folds and JavaScript does not (or the reverse).
      const [first, last] = [batch[0]?.record ?? 0, batch.at(-1)?.record ?? 0];
      this.report({ file, key: 'loaddata.conflict_in_batch', params: { first, last } });
      return;
    }
    report.created += inserts.length;
    report.updated += updates.length;
  }

  private async password(user: ImportedUser): Promise<string | undefined> {
    if (!user.password) return undefined;
    return 'hash' in user.password ? user.password.hash : this.hasher.make(user.password.plaintext);
  }

  /** Every column of a new account: the record's values over the declared defaults. */
  private async newRow(user: ImportedUser, now: Date): Promise<Record<string, unknown>> {
    const row: Record<string, unknown> = { ...this.defaults, ...user.newRowValues, ...user.values };
    row.password = (await this.password(user)) ?? unusablePassword();
    const { created, updated } = this.users.timestamps;
    if (created) row[created] ??= now;
    if (updated) row[updated] ??= created ? row[created] : now;
    return row;
  }

  /** Many rows in one statement; with `updateColumns`, rows whose id exists get only those columns set. */
  private async insertRows(rows: Record<string, unknown>[], updateColumns?: string[]): Promise<void> {
    await insertRows(this.users, this.transaction, rows, updateColumns);
  }

  private async insert(users: readonly ImportedUser[]): Promise<void> {
    const now = clock().now();
    const rows = await Promise.all(
      users.map(async (user) => ({ ...(await this.newRow(user, now)), ...(user.pk === null ? {} : { id: user.pk }) })),
    );
    const withId = rows.filter((row) => row.id !== undefined);
    await this.insertRows(withId);
    if (withId.length > 0) await advanceIdSequence(this.users, this.transaction);
    await this.insertRows(rows.filter((row) => row.id === undefined));
  }

  /**
   * Rows found by id or username get the columns their record brings; the
   * rest of the row (a password the file leaves out) stays. One upsert per set
   * of columns: were the row deleted meanwhile, it is made anew, whole.
   */
  private async update(updates: readonly [number, ImportedUser][]): Promise<void> {
    const now = clock().now();
    const { updated } = this.users.timestamps;
    const prepared = await Promise.all(
      updates.map(async ([id, user]) => {
        const row: Record<string, unknown> = { ...(await this.newRow(user, now)), id };
        if (updated && user.values[updated] === undefined) row[updated] = now;
        const columns = [...Object.keys(user.values), ...(user.password ? ['password'] : []), ...(updated ? [updated] : [])];
        return { row, columns: [...new Set(columns)].sort() };
      }),
    );
    const groups = new Map<string, { columns: string[]; rows: Record<string, unknown>[] }>();
    for (const { row, columns } of prepared) {
      const key = columns.join(',');
      const group = groups.get(key) ?? { columns, rows: [] };
      group.rows.push(row);
      groups.set(key, group);
    }
    for (const { columns, rows } of groups.values()) await this.insertRows(rows, columns);
  }
}
