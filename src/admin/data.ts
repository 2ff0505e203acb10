/**
 * What the admin adds to every resource's list and to the admin as a whole
 * for the data itself: the CSV export action (export.ts) and the audit log
 * (audit.ts) as a read-only resource, newest first, filterable by resource,
 * account and action. The texts are in `admin.json`, under `export` and `audit`.
 */
import './env.js';
import { convertFilter, Resource as SequelizeResource } from '@adminjs/sequelize';
import { BaseRecord, type ActionContext, type ActionResponse, type Filter, type LocaleTranslations, type ResourceOptions, type ResourceWithOptions } from 'adminjs';
import type { WhereOptions } from 'sequelize';
import { translator, type Language } from '../i18n.js';
import type { ResourceRegistry, RowModel } from '../registry.js';
import { AUDIT_LOG_TABLE_NAME } from '../db/audit-table.js';
import { AuditLog, auditModel, readableChanges, type AuditAction } from './audit.js';
import { EXPORT_COMPONENT } from './components.js';
import { EXPORT_ACTION } from './export.js';
import { readAfter, type ListBatch, type ListPlace, type ListSort, type ReadsAfter } from './keyset.js';
import type { localeOption } from './locale.js';

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

/**
 * The audit log as AdminJS's Sequelize adapter lists it, filters included;
 * its export reads the same list a batch after the other (keyset.ts), the
 * id breaking ties of the sort column.
 */
class AuditResource extends SequelizeResource implements ReadsAfter {
  constructor(private readonly entries: RowModel) {
    super(entries as unknown as ConstructorParameters<typeof SequelizeResource>[0]);
  }

  async findAfter(filter: Filter, sort: ListSort, after: ListPlace | null, limit: number): Promise<ListBatch> {
    const sortBy = sort.sortBy in this.entries.getAttributes() ? sort.sortBy : this.entries.primaryKeyAttribute;
    const where = convertFilter(filter) as WhereOptions;
    const { rows, last } = await readAfter(this.entries, where, { sortBy, direction: sort.direction }, after, limit);
    return { records: rows.map((row) => new BaseRecord(row.toJSON(), this)), last };
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
  return { trail: new AuditLog(model), resource: { resource: new AuditResource(model), options } };
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
        resources: { ...base.resources, [AUDIT_LOG_TABLE_NAME]: { properties, actions: { list: t('audit.name'), show: t('audit.entry') } } },
        actions: { ...block(base.actions), [EXPORT_ACTION]: t('export.action') },
        messages: { ...block(base.messages), exportExplained: t('export.explained'), exportDownload: t('export.download') },
      };
      cache.set(language, texts);
    }
    return { ...option, translations: { ...option.translations, [language]: texts } };
  };
}
