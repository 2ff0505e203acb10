import './env.js';
import { Op, type Order } from 'sequelize';
import { currentLanguage } from './locale.js';
import { ADMIN_PATH } from './path.js';
import { resourceNames } from './names.js';
import type { PageHandler } from 'adminjs';
import { AUDIT_LOG_TABLE_NAME } from '../db/audit-table.js';
import { translator, type Language, type Translate } from '../i18n.js';
import { firstNamed, userModelOf, type ResourceRegistry } from '../registry.js';
import { isStaffMember } from './staff.js';
import { ALL_ADMIN_ACTIONS } from '../resource.js';
import { countRows } from '../pagination/rows.js';
import type { Row, RowModel } from '../types/rows.js';
import type { AdminAction } from '../types/declaration.js';
import type { BoundResource } from '../types/resource.js';

/** Rows of each resource, and sign-ins, the dashboard shows. */
export const DASHBOARD_LATEST = 5;
/** Every account model has it (auth/accounts.ts); a login sets it. */
const LAST_LOGIN = 'last_login';

/** A row as the dashboard links to it: never more than its id, its name for people and one time. */
export interface DashboardRow {
  id: string;
  title: string;
  /** Its show page, if the resource has one. */
  href: string | null;
  /** When it was last changed (or created), ISO 8601; null for a resource without timestamps. */
  at: string | null;
}

export interface DashboardResource {
  id: string;
  name: string;
  plural: string;
  count: number;
  /** Its list page, if the resource has one. */
  href: string | null;
  latest: DashboardRow[];
}

/** One of the staff member's own changes (Django admin's "My actions"): the row, what was done, to which resource. */
export interface DashboardAction extends DashboardRow {
  /** "Added", "Changed", "Deleted", in the page's language. */
  verb: string;
  /** The resource's name for people. */
  resource: string;
}

export interface DashboardData {
  resources: DashboardResource[];
  /** The accounts that logged in last, the latest first. */
  logins: (DashboardRow & { username: string })[];
  /** The staff member's own latest changes, the latest first. */
  actions: DashboardAction[];
  /** The whole audit log: its name, its entries, its list page. */
  log: { name: string; count: number; href: string };
}

function actionsOf(resource: BoundResource): readonly AdminAction[] {
  return resource.declaration.admin?.actions ?? ALL_ADMIN_ACTIONS;
}

/**
 * The columns that name a row: its display columns, or, where it names rows
 * by id only, its first visible string column (a title, say).
 */
function titleFields(resource: BoundResource): string[] {
  if (resource.displayFields.some((name) => name !== 'id')) return [...resource.displayFields];
  const text = Object.entries(resource.declaration.fields).find(([, field]) => !field.hidden && field.kind === 'string');
  return text ? [text[0]] : [];
}

function isoTime(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  // Not `instanceof Date`: a driver's dates may come from another realm (the test runner's do).
  const date = new Date(value as string | number | Date);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function showHref(resource: BoundResource, id: string): string | null {
  return actionsOf(resource).includes('show') ? `${ADMIN_PATH}/resources/${resource.declaration.table}/records/${encodeURIComponent(id)}/show` : null;
}

function dashboardRow(resource: BoundResource, row: Row, fields: readonly string[], time: string | null): DashboardRow {
  const id = String(row.get('id'));
  // The first of the naming columns with a value, as a display name is chosen.
  const title = firstNamed(fields, (field) => row.get(field));
  return { id, title: title === '' ? `#${id}` : title, href: showHref(resource, id), at: time ? isoTime(row.get(time)) : null };
}

async function latestRows(resource: BoundResource): Promise<DashboardRow[]> {
  const fields = titleFields(resource);
  const time = resource.timestamps.updated ?? resource.timestamps.created ?? null;
  const order: Order = time ? [[time, 'DESC'], ['id', 'DESC']] : [['id', 'DESC']];
  // Only the columns shown: no hidden column is ever read here.
  const attributes = [...new Set(['id', ...fields, ...(time ? [time] : [])])];
  const rows = await resource.model.findAll({ attributes, order, limit: DASHBOARD_LATEST });
  return rows.map((row) => dashboardRow(resource, row, fields, time));
}

async function latestLogins(accounts: BoundResource): Promise<DashboardData['logins']> {
  const { usernameField } = userModelOf(accounts);
  const fields = [...accounts.displayFields];
  const attributes = [...new Set(['id', usernameField, ...fields, LAST_LOGIN])];
  const rows = await accounts.model.findAll({
    attributes,
    where: { [LAST_LOGIN]: { [Op.ne]: null } },
    order: [[LAST_LOGIN, 'DESC'], ['id', 'DESC']],
    limit: DASHBOARD_LATEST,
  });
  return rows.map((row) => ({ ...dashboardRow(accounts, row, fields, LAST_LOGIN), username: String(row.get(usernameField) ?? '') }));
}

/** The staff member's own changes the dashboard lists, as Django's admin index does. */
export const DASHBOARD_ACTIONS = 10;

async function ownActions(registry: ResourceRegistry, log: RowModel, staffId: number, language: Language, t: Translate): Promise<DashboardAction[]> {
  const byTable = new Map(registry.all().map((resource) => [resource.declaration.table, resource]));
  const rows = await log.findAll({
    attributes: ['id', 'created_at', 'action', 'resource', 'record_id', 'record_title'],
    where: { account_id: staffId },
    order: [['id', 'DESC']],
    limit: DASHBOARD_ACTIONS,
  });
  return rows.map((row) => {
    const resource = byTable.get(String(row.get('resource')));
    const id = String(row.get('record_id'));
    const action = String(row.get('action'));
    // A deleted row has no page to go to.
    const href = resource && action !== 'delete' ? showHref(resource, id) : null;
    return {
      id: String(row.get('id')),
      title: String(row.get('record_title')) || `#${id}`,
      href,
      at: isoTime(row.get('created_at')),
      // The audit log's own words for it (its list's badges say the same).
      verb: t(`audit.actions.${action}`, { defaultValue: action }),
      resource: resource ? resourceNames(language, resource).name : String(row.get('resource')),
    };
  });
}

/**
 * What the admin's start page shows, in the request's language
 * (ui/dashboard.jsx renders it); `staffId`: whose own changes it lists.
 */
export async function dashboardData(registry: ResourceRegistry, log: RowModel, staffId: number | null): Promise<DashboardData> {
  const language = currentLanguage();
  const resources = await Promise.all(
    registry.all().map(async (resource): Promise<DashboardResource> => {
      const id = resource.declaration.table;
      // The kept count where the table has a counter, as an unfiltered page reads it.
      const [count, latest] = await Promise.all([countRows(resource.model, undefined), latestRows(resource)]);
      const href = actionsOf(resource).includes('list') ? `${ADMIN_PATH}/resources/${id}` : null;
      return { id, ...resourceNames(language, resource), count, href, latest };
    }),
  );
  const t = translator(language, ['admin']);
  // An application migrated before the audit log existed has no table for it: the rest of the page still shows.
  const [logins, actions, logCount] = await Promise.all([
    latestLogins(registry.users()),
    staffId === null ? [] : ownActions(registry, log, staffId, language, t).catch((): DashboardAction[] => []),
    log.count().catch(() => 0),
  ]);
  return { resources, logins, actions, log: { name: t('audit.name'), count: logCount, href: `${ADMIN_PATH}/resources/${AUDIT_LOG_TABLE_NAME}` } };
}

/** AdminJS's `dashboard.handler`: it is given the request's context, whose staff member the page is for. */
export function dashboardHandler(registry: ResourceRegistry, log: RowModel): PageHandler {
  return (_request, _response, context) => {
    const admin = context.currentAdmin;
    return dashboardData(registry, log, isStaffMember(admin) ? Number(admin.id) : null);
  };
}
