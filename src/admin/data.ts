/**
 * What the admin adds to every resource's list and to the admin as a whole
 * for the data itself: the CSV export action (export.ts) and the audit log
 * (audit.ts) as a read-only resource, newest first, filterable by resource,
 * account and action. The texts are in `admin.json`, under `export` and `audit`.
 */
import './env.js';
import { Resource as SequelizeResource } from '@adminjs/sequelize';
import { BaseRecord, type ActionContext, type ActionResponse, type Filter, type LocaleTranslations, type ResourceOptions, type ResourceWithOptions } from 'adminjs';
import type { WhereOptions } from 'sequelize';
import { translator, type Language } from '../i18n.js';
import { parsePk } from '../pk.js';
import type { ResourceRegistry } from '../registry.js';
import { field } from '../resource.js';
import { AUDIT_LOG_TABLE_NAME } from '../db/audit-table.js';
import { AuditLog, auditModel, readableChanges, type AuditAction } from './audit.js';
import { EXPORT_COMPONENT } from './components.js';
import { EXPORT_ACTION } from './export.js';
import { listOrder, readAfter, type ListBatch, type ListPlace, type ListSort, type ReadsAfter } from './keyset.js';
import { boundedInteger, listWhere, MAX_PER_PAGE, type Queried } from './queries.js';
import type { localeOption } from './locale.js';
import type { Row, RowModel } from '../types/rows.js';

const AUDIT_ACTIONS: readonly AuditAction[] = ['create', 'edit', 'delete'];
const AUDIT_COLUMNS = ['id', 'created_at', 'account', 'account_id', 'action', 'resource', 'record_id', 'record_title', 'changes'] as const;
const refused = { isAccessible: false, isVisible: false };

/** The export action of a resource's list: offered to whoever may list it (`canList`), as a drawer over the list. */
export function exportAction(canList: boolean | ((context: ActionContext) => boolean)) {
  return {
    actionType: 'resource' as const,
    icon: 'Download',
    showInDrawer: true,
    isAccessible: canList,
    component: EXPORT_COMPONENT,
    // The page links to the download (router.ts, /export/:resourceId); the action itself does nothing.
    handler: async () => ({}),
  };
}

/** The audit log's columns as the list's filters read them (queries.ts): what each filter matches, and how. */
function auditFields(tables: readonly string[]): Queried {
  return {
    displayFields: ['record_title'],
    declaration: {
      fields: {
        id: field.id(),
        created_at: field.datetime(),
        account_id: field.integer(),
        account: field.string(),
        action: field.enum(AUDIT_ACTIONS),
        resource: field.enum(tables),
        record_id: field.string(),
        record_title: field.string(),
        changes: field.text(),
      },
    },
  };
}

/**
 * The audit log as AdminJS's Sequelize adapter shows it, but read as the
 * declared resources are (resource.ts): filters on unknown columns or with
 * values that name nothing, unknown sorts, and pages or ids that are no
 * numbers are ignored or match nothing, where the adapter answered 500. Its
 * export reads the same list a batch after the other (keyset.ts).
 */
class AuditResource extends SequelizeResource implements ReadsAfter {
  constructor(
    private readonly entries: RowModel,
    private readonly queried: Queried,
  ) {
    super(entries as unknown as ConstructorParameters<typeof SequelizeResource>[0]);
  }

  private where(filter: Filter): WhereOptions {
    const dialect = this.entries.sequelize?.getDialect() === 'postgres' ? 'postgres' : 'sqlite';
    return listWhere(this.queried, dialect, filter);
  }

  private listSort(sort?: { sortBy?: string; direction?: string }): ListSort {
    const sortBy = sort?.sortBy !== undefined && Object.hasOwn(this.entries.getAttributes(), sort.sortBy) ? sort.sortBy : this.entries.primaryKeyAttribute;
    return { sortBy, direction: sort?.direction === 'asc' ? 'asc' : 'desc' };
  }

  private records(rows: readonly Row[]): BaseRecord[] {
    return rows.map((row) => new BaseRecord(row.toJSON(), this));
  }

  override async count(filter: Filter): Promise<number> {
    return this.entries.count({ where: this.where(filter) });
  }

  override async find(filter: Filter, options: { limit?: number; offset?: number; sort?: { sortBy?: string; direction?: string } } = {}): Promise<BaseRecord[]> {
    const rows = await this.entries.findAll({
      where: this.where(filter),
      order: listOrder(this.entries, this.listSort(options.sort)),
      limit: boundedInteger(options.limit, 1, MAX_PER_PAGE, 10),
      offset: boundedInteger(options.offset, 0, Number.MAX_SAFE_INTEGER, 0),
    });
    return this.records(rows);
  }

  override async findOne(id: string | number): Promise<BaseRecord | null> {
    const pk = parsePk(String(id));
    const row = pk === null ? null : await this.entries.findByPk(pk);
    return row ? new BaseRecord(row.toJSON(), this) : null;
  }

  override async findMany(ids: (string | number)[]): Promise<BaseRecord[]> {
    const pks = ids.map((id) => parsePk(String(id))).filter((pk): pk is number => pk !== null);
    return pks.length === 0 ? [] : this.records(await this.entries.findAll({ where: { id: pks }, order: [['id', 'ASC']] }));
  }

  async findAfter(filter: Filter, sort: ListSort, after: ListPlace | null, limit: number): Promise<ListBatch> {
    const { rows, last } = await readAfter(this.entries, this.where(filter), this.listSort(sort), after, limit);
    return { records: this.records(rows), last };
  }
}

/** The audit log in the admin: listed, shown, filtered and exported; never created, edited or deleted. */
export function auditResource(registry: ResourceRegistry): { trail: AuditLog; resource: ResourceWithOptions } {
  const model = auditModel(registry.sequelize);
  const tables = registry.all().map((bound) => bound.declaration.table);
  const options: ResourceOptions = {
    id: AUDIT_LOG_TABLE_NAME,
    navigation: { name: null, icon: 'Activity' },
    titleProperty: 'record_title',
    listProperties: ['created_at', 'account', 'action', 'resource', 'record_id', 'record_title'],
    showProperties: [...AUDIT_COLUMNS],
    filterProperties: ['created_at', 'account_id', 'account', 'action', 'resource', 'record_id'],
    sort: { sortBy: 'id', direction: 'desc' },
    properties: {
      account_id: { reference: registry.users().declaration.table },
      action: { availableValues: AUDIT_ACTIONS.map((value) => ({ value, label: value })) },
      resource: { availableValues: tables.map((value) => ({ value, label: value })) },
      changes: { type: 'textarea' },
    },
    actions: {
      new: refused,
      edit: refused,
      delete: refused,
      bulkDelete: refused,
      // The show page reads the changes a line a field; the list's data and the export keep the stored JSON.
      show: {
        after: async (response: ActionResponse) => {
          const params = (response as { record?: { params?: Record<string, unknown> } }).record?.params;
          if (params && typeof params.changes === 'string') params.changes = readableChanges(String(params.action), params.changes);
          return response;
        },
      },
      [EXPORT_ACTION]: exportAction(true),
    },
  };
  return { trail: new AuditLog(model), resource: { resource: new AuditResource(model, auditFields(tables)), options } };
}

type LocaleOption = ReturnType<typeof localeOption>;

/** A block of a catalogue (its type allows plain text too). */
const block = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});

/** The export action's and the audit log's texts on top of the admin's locale option (locale.ts). */
export function withDataTexts(locale: LocaleOption): LocaleOption {
  const cache = new Map<Language, LocaleTranslations>();
  return async () => {
    const option = await locale();
    const { language } = option;
    let texts = cache.get(language);
    if (!texts) {
      const base: LocaleTranslations = option.translations[language] ?? {};
      const t = translator(language, ['admin']);
      const properties = Object.fromEntries(AUDIT_COLUMNS.map((name) => [name, t(`audit.fields.${name}`)]));
      texts = {
        ...base,
        labels: { ...block(base.labels), [AUDIT_LOG_TABLE_NAME]: t('audit.name') },
        resources: { ...base.resources, [AUDIT_LOG_TABLE_NAME]: { ...base.resources?.[AUDIT_LOG_TABLE_NAME], properties, actions: { list: t('audit.name'), show: t('audit.entry') } } },
        actions: { ...block(base.actions), [EXPORT_ACTION]: t('export.action') },
        messages: { ...block(base.messages), exportExplained: t('export.explained'), exportDownload: t('export.download') },
      };
      cache.set(language, texts);
    }
    return { ...option, translations: { ...option.translations, [language]: texts } };
  };
}
