import './env.js';
import AdminJS, {
  NotFoundError,
  ValidationError as AdminValidationError,
  type ActionContext,
  type ActionRequest,
  type BulkActionResponse,
  type ResourceOptions,
  type ResourceWithOptions,
} from 'adminjs';
import { translator } from '../i18n.js';
import type { ResourceRegistry } from '../registry.js';
import { ALL_ADMIN_ACTIONS } from '../resource.js';
import type { Accounts } from '../auth/accounts.js';
import type { Router } from 'express';
import type { Services } from '../services.js';
import { AccountPolicy } from './accounts.js';
import { adminRouter } from './router.js';
import { componentLoader, DASHBOARD_COMPONENT } from './components.js';
import { dashboardHandler } from './dashboard.js';
import { currentLanguage, localeOption } from './locale.js';
import { ADMIN_PATH } from './path.js';
import { isAdminFilterable, isAdminWritable } from './records.js';
import { DeclaredResource, type AdminPolicy } from './resource.js';
import { staffOf } from './staff.js';
import { auditResource, exportAction, withDataTexts } from './data.js';
import { EXPORT_ACTION } from './export.js';
import type { AdminAction } from '../types/declaration.js';
import type { BoundResource } from '../types/resource.js';

const DEFAULT_LIST_COLUMNS = 6;
const SEARCH_RESULTS = 50;

function visibleFields(resource: BoundResource): string[] {
  return Object.entries(resource.declaration.fields)
    .filter(([, field]) => !field.hidden)
    .map(([name]) => name);
}

/** Who may run an action on a record: the action must be declared, and the policy must offer it on that row. */
function accessible(action: AdminAction, allowed: readonly AdminAction[], policy: AdminPolicy | null) {
  return (context: ActionContext): boolean => {
    if (!allowed.includes(action)) return false;
    const staff = staffOf(context);
    const record = context.record;
    if (!policy || !record || (action !== 'edit' && action !== 'delete')) return true;
    return policy.offers(action, staff, (field) => record.param(field));
  };
}

/**
 * The bulk delete, all or nothing (AdminJS's own deletes row by row, and a
 * refused row left the others deleted): DeclaredResource.deleteAll deletes
 * every row or none, and a refusal is the notice, as on a single delete.
 */
function bulkDelete(resource: DeclaredResource) {
  return async (request: ActionRequest, _response: unknown, context: ActionContext): Promise<BulkActionResponse> => {
    const records = context.records ?? [];
    if (records.length === 0) throw new NotFoundError('no records were selected.', 'Action#handler');
    const shown = records.map((record) => record.toJSON(context.currentAdmin));
    if (request.method !== 'post') return { records: shown };
    try {
      await resource.deleteAll(records.map((record) => String(record.id())), context);
    } catch (error) {
      if (!(error instanceof AdminValidationError)) throw error;
      return { records: shown, notice: { message: error.baseError?.message ?? 'thereWereValidationErrors', type: 'error' } };
    }
    return {
      records: shown,
      notice: { message: records.length > 1 ? 'successfullyBulkDeleted_plural' : 'successfullyBulkDeleted', options: { count: records.length }, resourceId: resource.id(), type: 'success' },
      redirectUrl: context.h.resourceUrl({ resourceId: resource.id() }),
    };
  };
}

function resourceOptions(resource: DeclaredResource, policy: AdminPolicy | null): ResourceOptions {
  const { declaration } = resource.bound;
  const exposure = declaration.admin ?? {};
  const visible = visibleFields(resource.bound);
  const writable = visible.filter((name) => isAdminWritable(declaration.fields[name]!));
  const extra = policy ? policy.properties().map((property) => property.path()) : [];
  const allowed = exposure.actions ?? ALL_ADMIN_ACTIONS;
  const action = (name: AdminAction) => ({ isAccessible: accessible(name, allowed, policy) });
  const list = [...(exposure.list ?? visible.slice(0, DEFAULT_LIST_COLUMNS))];
  // The columns a phone leaves out, marked for the page's layout rules (ui/layout.jsx).
  const offPhone = exposure.phoneList ? list.filter((name) => !exposure.phoneList?.includes(name)) : [];
  return {
    id: resource.id(),
    navigation: { name: null, icon: declaration.userModel ? 'Users' : 'Database' },
    titleProperty: resource.bound.displayFields[0],
    listProperties: list,
    showProperties: visible,
    editProperties: [...writable, ...extra],
    // JSON, many-to-many and computed fields have no filter, even when the declaration names them.
    filterProperties: (exposure.filters ?? visible).filter((name) => isAdminFilterable(declaration.fields[name]!)),
    sort: { sortBy: 'id', direction: 'desc' },
    properties: Object.fromEntries([
      ...extra.map((name) => [name, { isVisible: { list: false, show: false, filter: false, edit: true } }]),
      ...offPhone.map((name) => [name, { custom: { phone: false } }]),
    ]),
    actions: {
      list: action('list'),
      show: action('show'),
      new: action('new'),
      edit: action('edit'),
      delete: action('delete'),
      // AdminJS asks this once per selected record: one refused row stops the whole bulk delete.
      bulkDelete: { ...action('delete'), handler: bulkDelete(resource) },
      [EXPORT_ACTION]: exportAction(accessible('list', allowed, policy)),
      search: {
        isAccessible: allowed.includes('list'),
        handler: async (request: ActionRequest, _response: unknown, context: ActionContext) => {
          const text = typeof request.params.query === 'string' ? request.params.query : '';
          const records = await resource.search(text, { limit: SEARCH_RESULTS });
          return { records: records.map((record) => record.toJSON(context.currentAdmin)) };
        },
      },
    },
  };
}

/** The AdminJS instance for every declared resource; the account model brings its password and privileges. */
export function createAdmin(registry: ResourceRegistry, accounts: Accounts, timeZone = 'UTC'): AdminJS {
  const bound = registry.all();
  const audit = auditResource(registry);
  const resources: ResourceWithOptions[] = bound.map((resource) => {
    const policy = resource.declaration.userModel ? new AccountPolicy(accounts) : null;
    const declared = new DeclaredResource(resource, (name) => registry.get(name), policy, (staff) => accounts.findActiveById(Number(staff.id)), audit.trail);
    return { resource: declared, options: resourceOptions(declared, policy) };
  });
  resources.push(audit.resource);
  return new AdminJS({
    rootPath: ADMIN_PATH,
    loginPath: `${ADMIN_PATH}/login`,
    logoutPath: `${ADMIN_PATH}/logout`,
    resources,
    componentLoader,
    dashboard: { component: DASHBOARD_COMPONENT, handler: dashboardHandler(registry, audit.trail.model) },
    locale: withDataTexts(localeOption(bound, timeZone)),
    branding: async () => ({
      companyName: translator(currentLanguage(), ['admin'])('brand'),
      withMadeWithLove: false,
      logo: false,
    }),
    settings: { defaultPerPage: 20 },
  });
}

/** The admin site over the services' resources, accounts and session store. */
export function adminSite(services: Services): Router {
  const { registry, accounts, config, logger, sessions, throttles } = services;
  return adminRouter({ admin: createAdmin(registry, accounts, config.timeZone), accounts, sessionStore: sessions.store, loginThrottle: throttles.login, config, logger });
}
