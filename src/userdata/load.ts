/**
 * loaddata: data files into the application's resources, in one
 * transaction, all of them or (when any record has a problem) nothing.
 * Each kind of record is loaded after those it refers to, whatever the
 * order of the files: every user of every file first, then access tokens,
 * then each other resource's rows (models.ts says in which order).
 */
import { Transaction, type Sequelize } from 'sequelize';
import type { PasswordHasher } from '../auth/hashers.js';
import type { ResourceRegistry } from '../registry.js';
import { UserLoader, type LoadOptions } from './loader.js';
import { fixtureLabel, ModelCatalogue } from './models.js';
import { ProblemCollector, ProblemList, type LocatedProblem } from './problems.js';
import { RowLoader } from './row-loader.js';
import { openSource, type DataSource } from './sources.js';
import { TokenLoader } from './token-loader.js';
import type { FileReport } from './writing.js';
import type { BoundResource } from '../types/resource.js';

export type { FileReport, LoadOptions };

/**
 * PostgreSQL plans each look-up from the statistics of the table as it was
 * before the load (empty, perhaps), and then scans the whole growing table for
 * every batch. The look-ups all go by a unique index: say so, for this
 * transaction only.
 */
async function preferIndexes(sequelize: Sequelize, transaction: Transaction): Promise<void> {
  if (sequelize.getDialect() === 'postgres') await sequelize.query('SET LOCAL enable_seqscan = off', { transaction });
}

function openAll(files: readonly string[]): DataSource[] {
  const sources: DataSource[] = [];
  const unopened: LocatedProblem[] = [];
  for (const file of files) {
    try {
      sources.push(openSource(file));
    } catch (error) {
      if (!(error instanceof ProblemList)) throw error;
      unopened.push(...error.problems);
    }
  }
  if (unopened.length > 0) throw new ProblemList(unopened);
  return sources;
}

/** One load: its files, its problems, and which rows of which resource its records claim. */
class Load {
  private readonly problems = new ProblemCollector();
  private readonly catalogue: ModelCatalogue;
  /** Per resource, whether a record of the load has a pk (its row written, unless the load fails). */
  private readonly claims = new Map<BoundResource, (pk: number) => boolean>();
  /** The resources whose rows are in. */
  private readonly loaded = new Set<BoundResource>();

  constructor(
    private readonly registry: ResourceRegistry,
    private readonly hasher: PasswordHasher,
    private readonly transaction: Transaction,
    private readonly options: LoadOptions,
  ) {
    this.catalogue = new ModelCatalogue(registry);
  }

  async run(sources: readonly DataSource[]): Promise<FileReport[]> {
    await preferIndexes(this.registry.sequelize, this.transaction);
    // Files read through: a file that could not be (not JSON, not UTF-8) is not read again, its problem told once.
    const { reports, readThrough } = await this.loadUsers(sources);
    await this.loadTokens(readThrough);
    const rowLoaders: RowLoader[] = [];
    for (const resource of this.catalogue.order) {
      if (resource.declaration.userModel || resource.declaration.tokenModel || this.problems.full) continue;
      const label = fixtureLabel(resource);
      const loader = new RowLoader(resource, {
        transaction: this.transaction,
        problems: this.problems,
        catalogue: this.catalogue,
        onProgress: this.options.onProgress,
        loadedBefore: (target) => this.loaded.has(target),
        claimed: (target, pk) => this.claims.get(target)?.(pk) ?? false,
      });
      this.claims.set(resource, (pk) => loader.claimedPk(pk));
      for (const [source, report] of readThrough) {
        if ((report.rows[label]?.records ?? 0) > 0 && !this.problems.full) await loader.loadFile(source, report);
      }
      this.loaded.add(resource);
      rowLoaders.push(loader);
    }
    // References to rows that came later (a parent further on in its own table), now that every row is in.
    for (const loader of rowLoaders) if (!this.problems.full) await loader.finish();
    this.problems.finish();
    return reports;
  }

  private async loadUsers(sources: readonly DataSource[]): Promise<{ reports: FileReport[]; readThrough: [DataSource, FileReport][] }> {
    const users = new UserLoader(this.registry.users(), this.hasher, this.transaction, this.catalogue, this.options, this.problems);
    this.claims.set(this.registry.users(), (pk) => users.claimedPk(pk));
    const reports: FileReport[] = [];
    const readThrough: [DataSource, FileReport][] = [];
    for (const source of sources) {
      const report: FileReport = { file: source.file, records: 0, created: 0, updated: 0, tokens: { records: 0, created: 0, updated: 0 }, rows: {}, ignored: [] };
      if (await users.loadFile(source, report)) readThrough.push([source, report]);
      reports.push(report);
      if (this.problems.full) break;
    }
    this.loaded.add(this.registry.users());
    return { reports, readThrough };
  }

  private async loadTokens(readThrough: readonly [DataSource, FileReport][]): Promise<void> {
    const model = this.registry.tokens();
    if (model) this.loaded.add(model);
    const withTokens = readThrough.filter(([, report]) => report.tokens.records > 0);
    if (withTokens.length === 0 || this.problems.full) return;
    const tokens = new TokenLoader(this.registry, this.transaction, this.problems, this.catalogue, {
      ...this.options,
      // A user of the files whose row is not written because the load already fails: not a problem of the token.
      loadedUser: (pk) => this.claims.get(this.registry.users())?.(pk) ?? false,
    });
    for (const [source, report] of withTokens) {
      await tokens.loadFile(source, report);
      if (this.problems.full) break;
    }
    await tokens.finish();
  }
}

/**
 * Loads every file in one transaction: all of them, or (when any has a
 * problem) nothing. Throws a ProblemList naming each file, record and field.
 */
export async function loadDataFiles(
  registry: ResourceRegistry,
  hasher: PasswordHasher,
  files: readonly string[],
  options: LoadOptions = {},
): Promise<FileReport[]> {
  const sources = openAll(files);
  const load = (transaction: Transaction): Promise<FileReport[]> => new Load(registry, hasher, transaction, options).run(sources);
  if (options.transaction) return load(options.transaction);
  // IMMEDIATE: SQLite takes the write lock at once instead of failing to upgrade a read lock later.
  return registry.sequelize.transaction({ type: Transaction.TYPES.IMMEDIATE }, load);
}
