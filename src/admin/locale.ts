import './env.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import type { LocaleTranslations } from 'adminjs';
import { AUDIT_LOG_TABLE_NAME } from '../db/audit-table.js';
import { chooseLanguage, messages, translator, type Language } from '../i18n.js';
import { actionTitles, resourceNames } from './names.js';
import type { BoundResource } from '../types/resource.js';

const requestLanguage = new AsyncLocalStorage<Language>();

/** The admin's language: Japanese when the browser prefers it, English otherwise. */
export function adminLanguage(acceptLanguage: string | undefined): Language {
  return chooseLanguage(acceptLanguage, 'en');
}

/** Runs one request's handling with its language, which AdminJS's `locale` function reads. */
export function withLanguage<T>(language: Language, run: () => T): T {
  return requestLanguage.run(language, run);
}

export function currentLanguage(): Language {
  return requestLanguage.getStore() ?? 'en';
}

function booleanFields(resource: BoundResource): string[] {
  return Object.entries(resource.declaration.fields)
    .filter(([, field]) => field.kind === 'boolean' && !field.hidden)
    .map(([name]) => name);
}

/**
 * The audit log's badges (its action and resource columns, and their
 * filters), which AdminJS looks up as `<column>.<value>` and otherwise shows
 * as the stored value in English capitals ("Edit", "Comments"): what was done,
 * in the words of `audit.actions` (the dashboard's "My actions" says the
 * same), and the resource's name.
 */
function auditLabels(language: Language, resources: readonly BoundResource[]): Record<string, Record<string, string>> {
  const { audit } = messages().getResourceBundle(language, 'admin') as { audit?: { actions?: Record<string, string> } };
  return {
    action: { ...audit?.actions },
    resource: Object.fromEntries(resources.map((resource) => [resource.declaration.table, resourceNames(language, resource).name])),
  };
}

/** Our texts on top of AdminJS's own catalogue of the language: resource and field labels, login page. */
function translationsFor(language: Language, resources: readonly BoundResource[]): LocaleTranslations {
  const t = translator(language, ['admin', 'resources']);
  // AdminJS's own words where they differ from ours ("record" for a row, "Show" for what our titles call "View").
  const own = messages().getResourceBundle(language, 'admin') as { adminjs?: { actions?: Record<string, string>; messages?: Record<string, string> } };
  const labels = messages().getResourceBundle(language, 'resources') as Record<string, { name?: string; fields?: Record<string, string> }>;
  const resourceTexts: NonNullable<LocaleTranslations['resources']> = {};
  const yesNo = { true: t('values.yes'), false: t('values.no') };
  const resourceLabels: Record<string, string> = {};
  for (const resource of resources) {
    const catalogue = labels[resource.key] ?? {};
    const table = resource.declaration.table;
    // The sidebar and the breadcrumbs name a resource by its plural, as Django's admin does.
    resourceLabels[table] = resourceNames(language, resource).plural;
    // AdminJS heads each page with its action's label, looked up per resource first.
    resourceTexts[table] = {
      properties: { ...(catalogue.fields ?? {}) },
      actions: actionTitles(language, resource),
      // A yes/no value's badge and filter read `<field>.true` / `<field>.false` here, else say Yes / No in English.
      labels: Object.fromEntries(booleanFields(resource).map((name) => [name, yesNo])),
    };
  }
  // The audit log's other texts are the data module's (data.ts), which keeps these.
  resourceTexts[AUDIT_LOG_TABLE_NAME] = { labels: auditLabels(language, resources) };
  return {
    actions: { ...own.adminjs?.actions },
    labels: resourceLabels,
    resources: resourceTexts,
    components: {
      Login: {
        welcomeHeader: t('login.welcome_header'),
        welcomeMessage: t('login.welcome_message'),
        properties: { email: t('login.identifier'), password: t('login.password') },
        loginButton: t('login.submit'),
      },
    },
    messages: {
      ...own.adminjs?.messages,
      invalidCredentials: t('login.failed'),
      // The paginated site's text: one wording of a throttled login for the whole product.
      throttled: translator(language, ['paginated'])('errors.throttled'),
      dashboardTitle: t('dashboard.title'),
      dashboardCounts: t('dashboard.counts'),
      dashboardLatest: t('dashboard.latest'),
      dashboardLogins: t('dashboard.logins'),
      dashboardNoRows: t('dashboard.no_rows'),
      dashboardNoLogins: t('dashboard.no_logins'),
      dashboardActions: t('dashboard.actions_title'),
      dashboardNoActions: t('dashboard.no_actions'),
      dashboardWholeLog: t('dashboard.whole_log'),
      // Drop-down lists' hints (ui/layout.jsx).
      selectPlaceholder: t('select.placeholder'),
      selectNoOptions: t('select.no_options'),
      selectLoading: t('select.loading'),
      // The edit form's warning when its row changed or went since it was opened (ui/edit.jsx).
      conflictReload: t('conflict.reload'),
      conflictBack: t('conflict.back'),
    },
  };
}

/**
 * AdminJS's `locale` option: one language per page, the request's, with no
 * switcher and no detection in the browser. It also carries TIME_ZONE, in
 * which the admin's components show every time (ui/time.jsx): the page's
 * state has no other place for a setting of the server's.
 */
export function localeOption(resources: readonly BoundResource[], timeZone = 'UTC') {
  const cache = new Map<Language, LocaleTranslations>();
  return async () => {
    const language = currentLanguage();
    let translations = cache.get(language);
    if (!translations) {
      translations = translationsFor(language, resources);
      cache.set(language, translations);
    }
    return { language, availableLanguages: [language], localeDetection: false, timeZone, translations: { [language]: translations } };
  };
}
