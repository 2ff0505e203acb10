/**
 * Loads the access tokens of data files into the token model, inside the
 * load's transaction and after every file's users. A Sanctum row keeps its id
 * and hash, so the client's `<id>|<secret>` still checks out; a DRF key is
 * found again by its hash. Each token must name a user of this database.
 */
import { Op, type Sequelize, type Transaction } from 'sequelize';
import { clock } from '../clock.js';
import type { ResourceRegistry } from '../registry.js';
import { Problem, type LocatedProblem, type ProblemCollector } from './problems.js';
import type { DataSource } from './sources.js';
import type { ModelCatalogue } from './models.js';
import { TokenRecordReader, type ImportedToken } from './token-records.js';
import { advanceIdSequence, BATCH_SIZE, insertRows, readInBatches, type FileReport, type LoadProgress } from './writing.js';
import type { BoundResource } from '../types/resource.js';

export interface TokenLoadOptions {
  onProgress?: (progress: LoadProgress) => void;
  /** Whether a user record of this load has the pk: when the load already fails, its row is not written, yet it is no problem of the token. */
  loadedUser(pk: number): boolean;
}

interface Claim {
  file: string;
  record: number;
}

interface ExistingToken {
  id: number;
  hash: string;
}

/** What a new token row holds in the columns its record leaves out. */
const NEW_TOKEN_DEFAULTS = { abilities: null, last_used_at: null, expires_at: null };

/** The token model, when the application has one, with its owner column and the reader of its records. */
interface TokenTable {
  resource: BoundResource;
  userField: string;
  reader: TokenRecordReader;
}

export class TokenLoader {
  private readonly table: TokenTable | null;
  private readonly users: BoundResource;
  /** The first record to use an id or a hash keeps it; a later one is a duplicate. */
  private readonly claims = { id: new Map<number, Claim>(), hash: new Map<string, Claim>() };
  /**
   * New rows without an id of their own (DRF keys), written once every
   * Sanctum row has its id: made earlier, one could take an id a later file
   * keeps for its token.
   */
  private readonly unnumbered: { token: ImportedToken; report: FileReport }[] = [];

  constructor(
    registry: ResourceRegistry,
    private readonly transaction: Transaction,
    private readonly problems: ProblemCollector,
    /** What each record of a file is: this loader reads the tokens'. */
    private readonly catalogue: ModelCatalogue,
    private readonly options: TokenLoadOptions,
  ) {
    const resource = registry.tokens();
    const userField = resource?.declaration.tokenModel?.userField;
    this.table = resource && userField ? { resource, userField, reader: new TokenRecordReader(resource) } : null;
    this.users = registry.users();
  }

  /** The token model: written to only with records its reader read, so never missing then. */
  private get tokens(): TokenTable {
    if (!this.table) throw new Error('no token model to write to');
    return this.table;
  }

  /** The token records of a file (its users are in already); the counts go to its report. */
  async loadFile(source: DataSource, report: FileReport): Promise<void> {
    const ignored = new Set(report.ignored);
    await readInBatches<ImportedToken>(source, this.problems, {
      read: async ({ record, data }) => {
        if (this.catalogue.kindOf(data).kind !== 'token') return null;
        const located = (problem: Problem) => this.problems.report(problem.located({ file: source.file, record }));
        if (!this.table) {
          located(new Problem('loaddata.no_token_model'));
          return null;
        }
        const read = this.table.reader.read({ record, data }, source.format);
        for (const name of read.ignored) ignored.add(name);
        read.problems.forEach(located);
        return read.token;
      },
      write: (batch) => this.write(source.file, batch, report),
      written: (records) =>
        this.options.onProgress?.({ file: source.file, phase: 'tokens', bytesRead: source.bytesRead(), bytesTotal: source.size, records }),
    });
    report.ignored = [...ignored];
  }

  private report(file: string, token: ImportedToken, field: string, key: string, params: LocatedProblem['params'] = {}): void {
    this.problems.report({ file, record: token.record, field, key, params });
  }

  private claim(file: string, token: ImportedToken): boolean {
    const earlierId = token.id === null ? undefined : this.claims.id.get(token.id);
    const earlierHash = this.claims.hash.get(token.hash);
    if (earlierId) {
      const params = { value: String(token.id), other_file: earlierId.file, other_record: earlierId.record };
      this.report(file, token, token.fieldNames.id, 'loaddata.duplicate_in_files', params);
    }
    // The hash (or a DRF key) is a secret: the message names the other record, not the value.
    if (earlierHash) {
      const params = { other_file: earlierHash.file, other_record: earlierHash.record };
      this.report(file, token, token.fieldNames.token, 'loaddata.token_duplicate_in_files', params);
    }
    if (earlierId || earlierHash) return false;
    if (token.id !== null) this.claims.id.set(token.id, { file, record: token.record });
    this.claims.hash.set(token.hash, { file, record: token.record });
    return true;
  }

  /** The token rows holding any of the batch's ids or hashes, and which of its users exist. */
  private async existing(batch: readonly ImportedToken[]) {
    const tokens = this.tokens.resource;
    const ids = batch.flatMap((token) => (token.id === null ? [] : [token.id]));
    const rows = (await tokens.model.unscoped().findAll({
      attributes: ['id', 'token'],
      where: { [Op.or]: [{ id: ids }, { token: batch.map((token) => token.hash) }] },
      transaction: this.transaction,
      raw: true,
    })) as unknown as { id: number; token: string }[];
    const byId = new Map<number, ExistingToken>();
    const byHash = new Map<string, ExistingToken>();
    for (const row of rows) {
      const found = { id: Number(row.id), hash: String(row.token) };
      byId.set(found.id, found);
      byHash.set(found.hash, found);
    }
    const users = (await this.users.model.unscoped().findAll({
      attributes: ['id'],
      where: { id: [...new Set(batch.map((token) => token.userId))] },
      transaction: this.transaction,
      raw: true,
    })) as unknown as { id: number }[];
    return { byId, byHash, users: new Set(users.map((user) => Number(user.id))) };
  }

  private async write(file: string, batch: readonly ImportedToken[], report: FileReport): Promise<void> {
    const claimed = batch.filter((token) => this.claim(file, token));
    if (claimed.length === 0) return;
    const existing = await this.existing(claimed);
    const inserts: ImportedToken[] = [];
    const updates: [number, ImportedToken][] = [];
    for (const token of claimed) {
      if (!existing.users.has(token.userId) && !(this.problems.any && this.options.loadedUser(token.userId))) {
        this.report(file, token, token.fieldNames.user, 'loaddata.token_user_unknown', { id: token.userId });
        continue;
      }
      const byHash = existing.byHash.get(token.hash);
      const byId = token.id === null ? undefined : existing.byId.get(token.id);
      if (token.id !== null && byId && byId.hash !== token.hash) {
        // Another token has the id: the client's `<id>|<secret>` could not name this one.
        this.report(file, token, token.fieldNames.id, 'loaddata.token_id_taken', { id: token.id });
      } else if (token.id !== null && byHash && byHash.id !== token.id) {
        this.report(file, token, token.fieldNames.token, 'loaddata.token_in_database', { id: byHash.id });
      } else if (byHash) {
        updates.push([byHash.id, token]);
      } else {
        inserts.push(token);
      }
    }
    // Once the load is known to fail, the rest of the files are only checked.
    if (this.problems.any) return;
    const numbered = inserts.filter((token) => token.id !== null);
    for (const token of inserts) if (token.id === null) this.unnumbered.push({ token, report });
    await this.savepoint(async () => {
      await this.insert(numbered);
      await this.update(updates);
    });
    report.tokens.created += numbered.length;
    report.tokens.updated += updates.length;
  }

  /** The new rows without an id of their own, after every file's tokens. */
  async finish(): Promise<void> {
    if (this.problems.any || this.unnumbered.length === 0) return;
    for (let start = 0; start < this.unnumbered.length; start += BATCH_SIZE) {
      const batch = this.unnumbered.slice(start, start + BATCH_SIZE);
      await this.savepoint(() => this.insert(batch.map(({ token }) => token)));
      for (const { report } of batch) report.tokens.created += 1;
    }
  }

  /** A savepoint, as for users: on PostgreSQL a failed statement would otherwise end every later check. */
  private async savepoint(write: () => Promise<void>): Promise<void> {
    const sequelize = this.tokens.resource.model.sequelize as Sequelize;
    await sequelize.transaction({ transaction: this.transaction }, write);
  }

  private row(token: ImportedToken, now: Date): Record<string, unknown> {
    const { resource, userField } = this.tokens;
    const row: Record<string, unknown> = { ...NEW_TOKEN_DEFAULTS, ...token.values, [userField]: token.userId, token: token.hash };
    const { created, updated } = resource.timestamps;
    if (created) row[created] ??= now;
    if (updated) row[updated] ??= created ? row[created] : now;
    return row;
  }

  private async insert(batch: readonly ImportedToken[]): Promise<void> {
    const tokens = this.tokens.resource;
    const now = clock().now();
    const rows = batch.map((token) => ({ ...this.row(token, now), ...(token.id === null ? {} : { id: token.id }) }));
    const withId = rows.filter((row) => row.id !== undefined);
    await insertRows(tokens, this.transaction, withId);
    if (withId.length > 0) await advanceIdSequence(tokens, this.transaction);
    await insertRows(tokens, this.transaction, rows.filter((row) => row.id === undefined));
  }

  /** A token already here gets what its record brings; what it leaves out (a DRF key's last use) stays. */
  private async update(batch: readonly [number, ImportedToken][]): Promise<void> {
    const { resource: tokens, userField } = this.tokens;
    const now = clock().now();
    const { updated } = tokens.timestamps;
    const groups = new Map<string, { columns: string[]; rows: Record<string, unknown>[] }>();
    for (const [id, token] of batch) {
      const row: Record<string, unknown> = { ...this.row(token, now), id };
      if (updated && token.values[updated] === undefined) row[updated] = now;
      const columns = [...new Set([userField, ...Object.keys(token.values), ...(updated ? [updated] : [])])].sort();
      const key = columns.join(',');
      const group = groups.get(key) ?? { columns, rows: [] };
      group.rows.push(row);
      groups.set(key, group);
    }
    for (const { columns, rows } of groups.values()) await insertRows(tokens, this.transaction, rows, columns);
  }
}
