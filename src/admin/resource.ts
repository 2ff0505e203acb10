import './env.js';
import { Resource as SequelizeResource } from '@adminjs/sequelize';
import {
  ValidationError as AdminValidationError,
  ForbiddenError,
  NotFoundError,
  type ActionContext,
  type BaseProperty,
  type Filter,
  type ParamsType,
  type PropertyErrors,
} from 'adminjs';
import { UniqueConstraintError, type Transaction, type WhereOptions } from 'sequelize';
import { RowChanged, type HeldCheck } from '../db/row-version.js';
import { violatedColumns } from '../db/unique-violation.js';
import { fieldErrorMessages, ValidationError } from '../errors.js';
import { translator, type Translate } from '../i18n.js';
import { attachRelations, storedValues, type LoadPlan } from '../relations/loader.js';
import { Serializer } from '../serializers.js';
import { utcTimestamp } from '../timestamps.js';
import { parsePk } from '../pk.js';
import { RowWriter } from '../writes.js';
import { accountField, mayChange, SUPERUSER_FIELD } from '../ownership.js';
import { staffOf, type StaffMember } from './staff.js';
import { adminParams, changedFields, DeclaredProperty, DeclaredRecord, FORBIDDEN, isAdminWritable, rowVersion, VERSION_PARAM, withoutHidden } from './records.js';
import { boundedInteger, listWhere, MAX_PER_PAGE, searchWhere, type QueryDialect } from './queries.js';
import { listOrder, readAfter, type ListBatch, type ListPlace, type ListSort } from './keyset.js';
import { formInput } from './forms.js';
import type { AuditAction, AuditTrail } from './audit.js';
import type { Row } from '../types/rows.js';
import type { AuthUser } from '../types/auth.js';
import type { BoundResource } from '../types/resource.js';

/** What a policy learns about a write: who asks, the row as it is (null on create), in which language. */
export interface WriteContext {
  staff: StaffMember;
  row: Row | null;
}

/** Field path → message key in the `admin` catalogue. */
export type Refusals = Record<string, string>;

/**
 * Rules a resource adds to the admin's generic create, edit and delete: the
 * account model brings its password field and its privileges this way.
 */
export interface AdminPolicy {
  properties(): BaseProperty[];
  /** Adds to the validated `values` what the form's `input` asks for; returns the fields it refuses. */
  prepare(input: Record<string, unknown>, values: Record<string, unknown>, context: WriteContext): Promise<Refusals>;
  /** The message key of why this row may not be deleted, or null. */
  refuseDelete(context: WriteContext): string | null;
  /** Whether the page offers the edit or delete action on a row (the writes above check again). */
  offers(action: 'edit' | 'delete', staff: StaffMember, value: (field: string) => unknown): boolean;
}

/** The type of the error a stale edit form gets (the edit form's warning looks for it). */
export const CONFLICT = 'conflict';
/** The type of the error an edit form gets when its row was deleted meanwhile (router.ts). */
export const DELETED = 'deleted';

/**
 * A declared resource in AdminJS: the Sequelize adapter with its queries,
 * properties and writes taken from the declaration. Filters, sorting and ids
 * that name nothing match nothing; writes go through the same serializer
 * rules as the APIs.
 */
export class DeclaredResource extends SequelizeResource {
  private readonly declared: DeclaredProperty[];
  /** The declared properties and the policy's, made once: AdminJS asks for them on every filter and decoration. */
  private readonly all: BaseProperty[];
  private readonly serializer: Serializer;

  private readonly writer: RowWriter;
  /** What a row's params need beyond its columns: many-to-many ids and computed values, loaded for a page at once. */
  private readonly plan: LoadPlan;
  /** Computed fields that are a function of the row's own values. */
  private readonly computed: [string, (row: Readonly<Record<string, unknown>>) => unknown][];

  /** `userOf`: the account a staff member writes as, which the declaration's hooks see; null if it is gone. */
  constructor(
    readonly bound: BoundResource,
    targets: (name: string) => BoundResource,
    private readonly policy: AdminPolicy | null,
    private readonly userOf: (staff: StaffMember) => Promise<AuthUser | null>,
    private readonly audit: AuditTrail | null = null,
  ) {
    super(bound.model as unknown as ConstructorParameters<typeof SequelizeResource>[0]);
    const entries = Object.entries(bound.declaration.fields).filter(([, field]) => !field.hidden);
    this.declared = entries.map(([name, field], index) => {
      const target = field.kind === 'reference' || field.kind === 'manyToMany' ? targets(field.to) : undefined;
      return new DeclaredProperty(name, field, target, index);
    });
    this.all = [...this.declared, ...(policy?.properties() ?? [])];
    const writable = entries.filter(([, field]) => isAdminWritable(field)).map(([name]) => name);
    this.serializer = new Serializer(bound, { fields: writable, formatTimestamp: utcTimestamp });
    this.writer = new RowWriter(bound, (name) => targets(name).model);
    this.plan = loadPlan(bound);
    this.computed = entries.flatMap(([name, field]) => (field.kind === 'computed' && field.value ? [[name, field.value] as [string, typeof field.value]] : []));
  }

  override id(): string {
    return this.bound.declaration.table;
  }

  override properties(): BaseProperty[] {
    return this.all;
  }

  override property(path: string): BaseProperty | null {
    return this.all.find((property) => property.path() === path) ?? null;
  }

  override build(params: ParamsType): DeclaredRecord {
    return new DeclaredRecord(params, this, this.bound);
  }

  /** The rows' params, with their many-to-many ids and computed values (one query per such field for all rows; inside `transaction` when given). */
  private async paramsOf(rows: readonly Row[], transaction?: Transaction): Promise<Record<string, unknown>[]> {
    const stored = storedValues(this.bound, rows);
    // Computed values from the row as the model read it (no second reading of its stored text).
    const extra: Record<string, unknown>[] = stored.map((values) => Object.fromEntries(this.computed.map(([name, value]) => [name, value(values) ?? null])));
    await attachRelations(this.plan, stored, extra, transaction);
    return stored.map((values, index) => {
      const params = adminParams(this.bound, values, extra[index] ?? {});
      // The edit form sends this back: a save from a form opened on an older row is refused (update).
      params[VERSION_PARAM] = rowVersion(this.bound, params);
      return params;
    });
  }

  private async records(rows: readonly Row[]): Promise<DeclaredRecord[]> {
    return (await this.paramsOf(rows)).map((params) => this.build(params));
  }

  private get dialect(): QueryDialect {
    return this.bound.model.sequelize?.getDialect() === 'postgres' ? 'postgres' : 'sqlite';
  }

  private where(filter: Filter): WhereOptions {
    return listWhere(this.bound, this.dialect, filter);
  }

  override async count(filter: Filter): Promise<number> {
    return this.bound.model.count({ where: this.where(filter) });
  }

  override async find(
    filter: Filter,
    options: { limit?: number; offset?: number; sort?: { sortBy?: string; direction?: 'asc' | 'desc' } } = {},
  ): Promise<DeclaredRecord[]> {
    return this.findRows(this.where(filter), options);
  }

  /** Rows whose search fields contain `text`, ignoring case (the search action and reference pickers). */
  async search(text: string, options: { limit?: number }): Promise<DeclaredRecord[]> {
    return this.findRows(searchWhere(this.bound, this.dialect, text), options);
  }

  /**
   * The rows of the list `filter` selects after `after` (from its start when
   * null), in the list's order: the CSV export's batches (keyset.ts).
   */
  async findAfter(filter: Filter, sort: ListSort, after: ListPlace | null, limit: number): Promise<ListBatch> {
    const { rows, last } = await readAfter(this.bound.model, this.where(filter), this.listSort(sort), after, limit);
    return { records: await this.records(rows), last };
  }

  /** The sort as the list applies it: by a sortable column, else by the key. */
  private listSort(sort?: { sortBy?: string; direction?: string }): ListSort {
    const sortable = this.declared.find((property) => property.path() === sort?.sortBy && property.isSortable());
    return { sortBy: sortable ? sortable.path() : this.bound.model.primaryKeyAttribute, direction: sort?.direction === 'desc' ? 'desc' : 'asc' };
  }

  private async findRows(
    where: WhereOptions,
    { limit, offset, sort }: { limit?: number; offset?: number; sort?: { sortBy?: string; direction?: string } },
  ): Promise<DeclaredRecord[]> {
    const rows = await this.bound.model.findAll({
      where,
      order: listOrder(this.bound.model, this.listSort(sort)),
      limit: boundedInteger(limit, 1, MAX_PER_PAGE, 10),
      offset: boundedInteger(offset, 0, Number.MAX_SAFE_INTEGER, 0),
    });
    return this.records(rows);
  }

  override async findById(id: string | number): Promise<Row | null> {
    const pk = parsePk(String(id));
    return pk === null ? null : this.bound.model.findByPk(pk);
  }

  override async findOne(id: string | number): Promise<DeclaredRecord | null> {
    const row = await this.findById(id);
    return row ? ((await this.records([row]))[0] ?? null) : null;
  }

  override async findMany(ids: (string | number)[]): Promise<DeclaredRecord[]> {
    return this.records(await this.findRowsById(ids));
  }

  /** The rows of those ids that name one, by id. */
  private async findRowsById(ids: readonly (string | number)[]): Promise<Row[]> {
    const pks = ids.map((id) => parsePk(String(id))).filter((pk): pk is number => pk !== null);
    if (pks.length === 0) return [];
    return this.bound.model.findAll({ where: { id: pks }, order: [['id', 'ASC']] });
  }

  override async populate(records: DeclaredRecord[], property: BaseProperty): Promise<DeclaredRecord[]> {
    const referenced = await this.findMany(records.map((record) => record.param(property.path()) as string));
    const byId = new Map(referenced.map((record) => [String(record.id()), record]));
    for (const record of records) {
      const found = byId.get(String(record.param(property.path())));
      if (found) record.populated[property.path()] = found;
    }
    return records;
  }

  override async create(params: Record<string, unknown>, context?: ActionContext): Promise<ParamsType> {
    const staff = staffOf(context);
    const owner = this.bound.declaration.ownerField;
    const owned = owner ? { [owner]: Number(staff.id) } : {};
    const values = { ...(await this.validated(params, { staff, row: null }, owned)), ...owned };
    let saved: ParamsType = {};
    const within = async (row: Row, transaction: Transaction): Promise<void> => {
      saved = await this.savedParams(row, transaction);
      await this.audited('create', staff, null, saved, values, transaction);
    };
    await this.write(staff, (user) => this.writer.create(values, { user, within }));
    return saved;
  }

  /**
   * An edit form's save. Lost-update protection: a form that carries the
   * version of the row it was opened with (every edit form AdminJS renders
   * does) is not saved over a row that changed since. The check is made on
   * the row as read, then again inside the transaction that holds the row
   * and writes it (src/db/row-version.ts, holdRow), so that of two staff
   * saving forms opened at the same version exactly one writes. A payload
   * without a version (a hand-made request) is not checked.
   */
  override async update(id: string, params: Record<string, unknown>, context?: ActionContext): Promise<ParamsType> {
    const staff = staffOf(context);
    const row = await this.findById(id);
    if (!row) throw new NotFoundError(`No record ${id}`, 'update');
    await this.refuseSuperusersRow(staff, row);
    const version = params[VERSION_PARAM];
    const opened = typeof version === 'string' && version !== '' ? version : undefined;
    let before: ParamsType | null | undefined = (await this.paramsOf([row]))[0];
    if (opened) this.refuseStale(staff, opened, before);
    const values = await this.validated(params, { staff, row });
    const expected: HeldCheck | undefined = opened
      ? {
          stillHolds: async (transaction) => {
            before = await this.currentParams(row, transaction);
            return before?.[VERSION_PARAM] === opened;
          },
        }
      : undefined;
    let saved: ParamsType = {};
    const within = async (written: Row, transaction: Transaction): Promise<void> => {
      saved = await this.savedParams(written, transaction);
      await this.audited('edit', staff, before ?? null, saved, values, transaction);
    };
    try {
      await this.write(staff, (user) => this.writer.update(row, values, { user, expected, within }));
    } catch (error) {
      if (error instanceof RowChanged && opened) throw await this.changedMeanwhile(staff, id, opened);
      // Deleted meanwhile, by another request, under a form that named no version.
      if (error instanceof RowChanged) throw new NotFoundError(`No record ${id}`, 'update');
      throw error;
    }
    return saved;
  }

  /** A save refused inside its transaction: the row changed or went between the first check and the write, answered as if that check had seen it. */
  private async changedMeanwhile(staff: StaffMember, id: string, opened: string): Promise<Error> {
    const current = await this.findById(id);
    if (!current) return new NotFoundError(`No record ${id}`, 'update');
    const [now] = await this.paramsOf([current]);
    return this.conflict(staff, opened, String(now?.[VERSION_PARAM] ?? ''));
  }

  override async delete(id: string, context?: ActionContext): Promise<void> {
    const staff = staffOf(context);
    const row = await this.findById(id);
    if (!row) throw new NotFoundError(`No record ${id}`, 'delete');
    await this.refuseDelete(staff, row);
    const [before] = await this.paramsOf([row]);
    const within = (_: Row, transaction: Transaction): Promise<void> => this.audited('delete', staff, before ?? null, null, {}, transaction);
    try {
      await this.write(staff, (user) => this.writer.destroy(row, { user, within }));
    } catch (error) {
      // Deleted meanwhile, by another request.
      if (error instanceof RowChanged) throw new NotFoundError(`No record ${id}`, 'delete');
      throw error;
    }
  }

  /**
   * A bulk delete, all or nothing: every row's refusals are checked before
   * any row is deleted, and the rows go, each with its audit entry, in one
   * transaction, so a hook that refuses one of them undoes them all. An id
   * whose row is already gone is skipped.
   */
  async deleteAll(ids: readonly string[], context?: ActionContext): Promise<void> {
    const staff = staffOf(context);
    const rows = await this.findRowsById(ids);
    for (const row of rows) await this.refuseDelete(staff, row);
    const before = await this.paramsOf(rows);
    await this.write(staff, (user) =>
      this.writer.transaction(async (transaction) => {
        for (const [index, row] of rows.entries()) {
          const within = (_: Row, inner: Transaction): Promise<void> => this.audited('delete', staff, before[index] ?? null, null, {}, inner);
          // A row another request deleted meanwhile is skipped, as one already gone when the list was read.
          await this.writer.destroy(row, { user, transaction, within }).catch((error: unknown) => {
            if (!(error instanceof RowChanged)) throw error;
          });
        }
      }),
    );
  }

  /** Why the staff member may not delete the row, as the error the delete answers; nothing when they may. */
  private async refuseDelete(staff: StaffMember, row: Row): Promise<void> {
    const refusal = this.policy?.refuseDelete({ staff, row });
    if (refusal) throw new AdminValidationError({}, { message: t(staff)(`admin:${refusal}`), type: FORBIDDEN });
    await this.refuseSuperusersRow(staff, row);
  }

  /** One entry in the audit log, in the write's transaction: no change without its entry, no entry without its change. */
  private async audited(
    action: AuditAction,
    staff: StaffMember,
    before: ParamsType | null,
    after: ParamsType | null,
    written: Record<string, unknown>,
    transaction: Transaction,
  ): Promise<void> {
    const record = this.build(after ?? before ?? {});
    await this.audit?.record({ action, staff, bound: this.bound, id: String(record.id()), title: record.title(), before, after, written }, transaction);
  }

  /**
   * Staff who are not superusers neither edit nor delete what belongs to a
   * superuser (ownership.ts: the same rule as the APIs'). The refusal names
   * the field that makes the row a superuser's (AdminJS counts an edit with
   * no field error as saved), as the whole row's error.
   */
  private async refuseSuperusersRow(staff: StaffMember, row: Row): Promise<void> {
    if (await mayChange(staff, this.bound, row)) return;
    const account = this.bound.declaration.userModel !== undefined;
    const refusal = { message: t(staff)(account ? 'admin:accounts.superuser_only' : 'admin:accounts.superuser_owned'), type: FORBIDDEN };
    throw new AdminValidationError({ [accountField(this.bound) ?? SUPERUSER_FIELD]: refusal }, refusal);
  }

  /** The conflict warning unless the row's params (`current`, null if gone) are still at the version the form was opened with. */
  private refuseStale(staff: StaffMember, opened: string, current: ParamsType | undefined | null): void {
    const now = String(current?.[VERSION_PARAM] ?? '');
    if (now !== opened) throw this.conflict(staff, opened, now);
  }

  /** The staff member keeps what they typed, reads which fields someone else changed, and is told to reload. */
  private conflict(staff: StaffMember, opened: string, now: string): AdminValidationError {
    const translate = t(staff);
    const errors: PropertyErrors = {};
    for (const field of changedFields(this.bound, opened, now)) errors[field] = { message: translate('admin:conflict.field'), type: CONFLICT };
    // AdminJS counts a record with no field error as saved: the version itself carries the refusal.
    errors[VERSION_PARAM] = { message: translate('admin:conflict.changed'), type: CONFLICT };
    return new AdminValidationError(errors, { message: translate('admin:conflict.changed'), type: CONFLICT });
  }

  /** The row's params as they are now, read inside `transaction`; null if it is gone. */
  private async currentParams(row: Row, transaction: Transaction): Promise<ParamsType | null> {
    const current = await this.bound.model.findByPk(row.get(this.bound.model.primaryKeyAttribute) as number, { transaction });
    if (!current) return null;
    const [params] = await this.paramsOf([current], transaction);
    return params ?? null;
  }

  /** The row as written, read back with its links and computed values inside the write's transaction; never a hidden field (AdminJS echoes these params). */
  private async savedParams(row: Row, transaction: Transaction): Promise<ParamsType> {
    const saved = (await this.bound.model.findByPk(row.get(this.bound.model.primaryKeyAttribute) as number, { transaction })) ?? row;
    const [params] = await this.paramsOf([saved], transaction);
    return withoutHidden(this.bound, params ?? {});
  }

  /** The serializer's values plus the policy's, or one AdminJS ValidationError naming every refused field. `fixed`: as the serializer's. */
  private async validated(params: Record<string, unknown>, context: WriteContext, fixed: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    const translate = t(context.staff);
    const { input, errors: formErrors } = formInput(this.bound, params);
    let errors: PropertyErrors = {};
    // What no field of the form can show (a unique set repeated): said in the notice.
    let notice = translate('admin:errors.validation_failed');
    let values: Record<string, unknown> = {};
    try {
      values = await this.serializer.validate(input, { partial: context.row !== null, instance: context.row ?? undefined, fixed });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const refusal = this.refused(translate, error);
      errors = refusal.propertyErrors;
      notice = refusal.baseError?.message ?? notice;
    }
    // A form value the serializer never saw (JSON text that does not parse) says why in its own words.
    for (const [field, code] of Object.entries(formErrors)) errors[field] = { message: translate(code) };
    const refusals = (await this.policy?.prepare(params, values, context)) ?? {};
    for (const [field, key] of Object.entries(refusals)) errors[field] ??= { message: translate(`admin:${key}`), type: FORBIDDEN };
    if (Object.keys(errors).length > 0) throw new AdminValidationError(errors, { message: notice });
    return values;
  }

  /**
   * Runs a write as the staff member's account. A declaration's hook that
   * refuses it, or another writer that takes a unique value between the
   * check and the write, becomes the form's field errors.
   */
  private async write<T>(staff: StaffMember, save: (user: AuthUser) => Promise<T>): Promise<T> {
    const user = await this.userOf(staff);
    if (!user) throw new ForbiddenError('No staff member');
    const translate = t(staff);
    try {
      return await save(user);
    } catch (error) {
      if (error instanceof ValidationError) throw this.refused(translate, error);
      if (!(error instanceof UniqueConstraintError)) throw error;
      const fields = (violatedColumns(error) ?? []).filter((name) => this.property(name));
      const message = translate('validation.unique');
      // On the form's fields the index names; when it names none of them, on the version, and said in the notice
      // (AdminJS counts a record with no field error as saved).
      const errors: PropertyErrors = Object.fromEntries((fields.length > 0 ? fields : [VERSION_PARAM]).map((name) => [name, { message }]));
      throw new AdminValidationError(errors, { message: fields.length > 0 ? translate('admin:errors.validation_failed') : message });
    }
  }

  /** A hook's refusal: on the form's fields, and in the notice too when it names none of them (a delete, say). */
  private refused(translate: Translate, error: ValidationError): AdminValidationError {
    const errors: PropertyErrors = {};
    const elsewhere: string[] = [];
    for (const { field, messages } of fieldErrorMessages(translate, error)) {
      errors[field] = { message: messages.join(' ') };
      if (!this.property(field)) elsewhere.push(...messages);
    }
    return new AdminValidationError(errors, { message: elsewhere.length > 0 ? elsewhere.join(' ') : translate('admin:errors.validation_failed') });
  }
}

/** Many-to-many ids and counted fields of a resource's rows, as the API's relation loader fills them. */
function loadPlan(bound: BoundResource): LoadPlan {
  const plan: LoadPlan = { resource: bound, ids: [], counts: [], values: [], expansions: [] };
  for (const [name, field] of Object.entries(bound.declaration.fields)) {
    if (field.hidden) continue;
    if (field.kind === 'manyToMany') {
      const relation = bound.relations.get(name);
      if (relation?.kind === 'manyToMany') plan.ids.push({ name, relation });
    } else if (field.kind === 'computed' && field.count !== undefined) {
      const relation = bound.relations.get(field.count);
      if (relation && relation.kind !== 'reference') plan.counts.push({ name, relation });
    }
  }
  return plan;
}

function t(staff: StaffMember): Translate {
  return translator(staff.language, ['admin', 'common']);
}
