import './env.js';
import { Resource as SequelizeResource } from '@adminjs/sequelize';
import {
  ValidationError as AdminValidationError,
  NotFoundError,
  type ActionContext,
  type BaseProperty,
  type Filter,
  type ParamsType,
  type PropertyErrors,
} from 'adminjs';
import { UniqueConstraintError, type FindOptions, type WhereOptions } from 'sequelize';
import { clock } from '../clock.js';
import { fieldErrorMessages, ValidationError } from '../errors.js';
import { translator, type Translate } from '../i18n.js';
import type { BoundResource, Row } from '../registry.js';
import { Serializer } from '../serializers.js';
import { utcTimestamp } from '../timestamps.js';
import { parsePk } from '../pk.js';
import { staffOf, type StaffMember } from './staff.js';
import { DeclaredProperty, DeclaredRecord, isAdminWritable, withoutHidden } from './records.js';
import { listWhere, searchWhere, type QueryDialect } from './queries.js';

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

const MAX_PER_PAGE = 500;

/** AdminJS's `{limit, offset}` come from the query string unchecked. */
function boundedInteger(value: unknown, min: number, max: number, fallback: number): number {
  const number = Number(value);
  return Number.isSafeInteger(number) ? Math.min(Math.max(number, min), max) : fallback;
}

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

  constructor(
    readonly bound: BoundResource,
    targets: (name: string) => BoundResource,
    private readonly policy: AdminPolicy | null,
  ) {
    super(bound.model as unknown as ConstructorParameters<typeof SequelizeResource>[0]);
    const entries = Object.entries(bound.declaration.fields).filter(([, field]) => !field.hidden);
    this.declared = entries.map(
      ([name, field], index) => new DeclaredProperty(name, field, field.kind === 'reference' ? targets(field.to) : undefined, index),
    );
    this.all = [...this.declared, ...(policy?.properties() ?? [])];
    const writable = entries.filter(([, field]) => isAdminWritable(field)).map(([name]) => name);
    this.serializer = new Serializer(bound, { fields: writable, formatTimestamp: utcTimestamp });
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

  private record(row: Row): DeclaredRecord {
    return this.build(row.toJSON());
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

  private async findRows(
    where: WhereOptions,
    { limit, offset, sort }: { limit?: number; offset?: number; sort?: { sortBy?: string; direction?: string } },
  ): Promise<DeclaredRecord[]> {
    const sortable = this.declared.find((property) => property.path() === sort?.sortBy);
    const order: FindOptions['order'] = [
      [sortable ? sortable.path() : 'id', sort?.direction === 'desc' ? 'DESC' : 'ASC'],
      ...(sortable && sortable.path() !== 'id' ? [['id', 'ASC'] as [string, string]] : []),
    ];
    const rows = await this.bound.model.findAll({
      where,
      order,
      limit: boundedInteger(limit, 1, MAX_PER_PAGE, 10),
      offset: boundedInteger(offset, 0, Number.MAX_SAFE_INTEGER, 0),
    });
    return rows.map((row) => this.record(row));
  }

  override async findById(id: string | number): Promise<Row | null> {
    const pk = parsePk(String(id));
    return pk === null ? null : this.bound.model.findByPk(pk);
  }

  override async findOne(id: string | number): Promise<DeclaredRecord | null> {
    const row = await this.findById(id);
    return row ? this.record(row) : null;
  }

  override async findMany(ids: (string | number)[]): Promise<DeclaredRecord[]> {
    const pks = ids.map((id) => parsePk(String(id))).filter((pk): pk is number => pk !== null);
    if (pks.length === 0) return [];
    const rows = await this.bound.model.findAll({ where: { id: pks }, order: [['id', 'ASC']] });
    return rows.map((row) => this.record(row));
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
    const values = await this.validated(params, { staff, row: null });
    const owner = this.bound.declaration.ownerField;
    if (owner) values[owner] = Number(staff.id);
    const row = await this.write(staff, () => this.bound.model.create(values));
    return withoutHidden(this.bound, row.toJSON());
  }

  override async update(id: string, params: Record<string, unknown>, context?: ActionContext): Promise<ParamsType> {
    const staff = staffOf(context);
    const row = await this.findById(id);
    if (!row) throw new NotFoundError(`No record ${id}`, 'update');
    const values = await this.validated(params, { staff, row });
    const updated = this.bound.timestamps.updated;
    if (updated) values[updated] = clock().now();
    await this.write(staff, () => row.update(values));
    return withoutHidden(this.bound, row.toJSON());
  }

  override async delete(id: string, context?: ActionContext): Promise<void> {
    const staff = staffOf(context);
    const row = await this.findById(id);
    if (!row) throw new NotFoundError(`No record ${id}`, 'delete');
    const refusal = this.policy?.refuseDelete({ staff, row });
    if (refusal) throw new AdminValidationError({}, { message: t(staff)(`admin:${refusal}`), type: 'forbidden' });
    await row.destroy();
  }

  /** The serializer's values plus the policy's, or one AdminJS ValidationError naming every refused field. */
  private async validated(params: Record<string, unknown>, context: WriteContext): Promise<Record<string, unknown>> {
    const input = this.formInput(params);
    const translate = t(context.staff);
    const errors: PropertyErrors = {};
    let values: Record<string, unknown> = {};
    try {
      values = await this.serializer.validate(input, { partial: context.row !== null, instance: context.row ?? undefined });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      for (const { field, messages } of fieldErrorMessages(translate, error)) errors[field] = { message: messages.join(' ') };
    }
    const refusals = (await this.policy?.prepare(params, values, context)) ?? {};
    for (const [field, key] of Object.entries(refusals)) errors[field] ??= { message: translate(`admin:${key}`), type: 'forbidden' };
    if (Object.keys(errors).length > 0) {
      throw new AdminValidationError(errors, { message: translate('admin:errors.validation_failed') });
    }
    return values;
  }

  /** An empty form field of a nullable column means NULL, as in Django's admin. */
  private formInput(params: Record<string, unknown>): Record<string, unknown> {
    const input: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(this.bound.declaration.fields)) {
      if (!isAdminWritable(field) || !Object.hasOwn(params, name)) continue;
      const value = params[name];
      input[name] = value === '' && field.nullable ? null : value;
    }
    return input;
  }

  /** Another writer may take a unique value between the check and the write. */
  private async write(staff: StaffMember, save: () => Promise<Row>): Promise<Row> {
    try {
      return await save();
    } catch (error) {
      if (!(error instanceof UniqueConstraintError)) throw error;
      const translate = t(staff);
      const fields = Object.keys(error.fields ?? {}).filter((name) => name in this.bound.declaration.fields);
      const message = translate('validation.unique');
      const errors: PropertyErrors = Object.fromEntries((fields.length > 0 ? fields : ['id']).map((name) => [name, { message }]));
      throw new AdminValidationError(errors, { message: translate('admin:errors.validation_failed') });
    }
  }
}

function t(staff: StaffMember): Translate {
  return translator(staff.language, ['admin', 'common']);
}
