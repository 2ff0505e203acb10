/**
 * Django's system checks (`manage.py check`, `check --deploy`): what is wrong
 * with an application, found without serving a request. Each finding has an
 * id in Django's form (`translations.W001`: E for an error, W for a
 * warning), and a message key under `check.` in the `cli` catalogue; the
 * command and the server's start decide how to show them.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defaultAllowedHosts, SECRET_KEY_MIN_LENGTH, secretKeyIsWeak, servingProcesses, type Config } from './config.js';
import { LANGUAGES } from './i18n.js';
import { frameworkLocalesDir, type ApplicationPaths } from './paths.js';
import { unmigrated } from './schema/unmigrated.js';
import type { ResourceDeclaration } from './types/resource.js';

export type CheckLevel = 'error' | 'warning';

export interface CheckMessage {
  /** `<area>.<E|W><number>`, as Django names its checks; what a reader searches the docs for. */
  id: string;
  level: CheckLevel;
  /** Under `check.` in the `cli` catalogue. */
  key: string;
  params: Record<string, string | number>;
}

const finding = (id: string, key: string, params: Record<string, string | number> = {}): CheckMessage => ({
  id,
  level: id.split('.')[1]?.startsWith('E') ? 'error' : 'warning',
  key,
  params,
});

type Catalogue = { [key: string]: string | Catalogue };

/** A catalogue's message keys, dotted (`post.fields.title`). */
function messageKeys(catalogue: Catalogue, prefix = ''): string[] {
  return Object.entries(catalogue).flatMap(([key, value]) => (typeof value === 'string' ? [`${prefix}${key}`] : messageKeys(value, `${prefix}${key}.`)));
}

/** Each namespace of locales folders, by language: the message keys they hold together (an application's over the framework's). */
function catalogueKeys(dirs: readonly string[]): Map<string, Map<string, Set<string>>> {
  const namespaces = new Map<string, Map<string, Set<string>>>();
  for (const dir of dirs) {
    for (const language of LANGUAGES) {
      const languageDir = path.join(dir, language);
      if (!existsSync(languageDir)) continue;
      for (const file of readdirSync(languageDir).filter((name) => name.endsWith('.json'))) {
        const namespace = path.basename(file, '.json');
        const byLanguage = namespaces.get(namespace) ?? new Map<string, Set<string>>();
        namespaces.set(namespace, byLanguage);
        const keys = byLanguage.get(language) ?? new Set<string>();
        byLanguage.set(language, keys);
        for (const key of messageKeys(JSON.parse(readFileSync(path.join(languageDir, file), 'utf8')) as Catalogue)) keys.add(key);
      }
    }
  }
  return namespaces;
}

export interface CatalogueGap {
  /** `namespace:key`, as a translation names it. */
  key: string;
  /** The languages that have no message for it (they show another language's). */
  missingIn: string[];
}

/** Examples in the API description fall back to the one the declaration gives, written in one language. */
const OPTIONAL_MESSAGE = /^openapi:examples\./;

/** i18next's plural forms: a language has those it needs (Japanese `_other` only), so a key is compared without them. */
const PLURAL_SUFFIX = /_(zero|one|two|few|many|other)$/;

/**
 * Messages an application's catalogues have in some languages and not in
 * others, where the framework's catalogues do not give them either (a
 * request in those languages gets the key).
 */
export function catalogueGaps(localesDir: string): CatalogueGap[] {
  const framework = catalogueKeys([frameworkLocalesDir]);
  const gaps: CatalogueGap[] = [];
  for (const [namespace, byLanguage] of catalogueKeys([localesDir])) {
    const base = (keys: Set<string> | undefined): Set<string> => new Set([...(keys ?? [])].map((key) => key.replace(PLURAL_SUFFIX, '')));
    const has = new Map(LANGUAGES.map((language) => [language, new Set([...base(byLanguage.get(language)), ...base(framework.get(namespace)?.get(language))])]));
    const every = new Set([...byLanguage.values()].flatMap((keys) => [...base(keys)]));
    for (const key of [...every].sort()) {
      const missingIn = LANGUAGES.filter((language) => !has.get(language)?.has(key));
      if (missingIn.length > 0 && !OPTIONAL_MESSAGE.test(`${namespace}:${key}`)) gaps.push({ key: `${namespace}:${key}`, missingIn });
    }
  }
  return gaps;
}

/** The most keys one finding names; the rest are counted. */
const LISTED_KEYS = 10;

/** One finding per language that misses messages, naming them. */
function untranslated(localesDir: string): CheckMessage[] {
  const gaps = catalogueGaps(localesDir);
  return LANGUAGES.flatMap((language) => {
    const keys = gaps.filter(({ missingIn }) => missingIn.includes(language)).map(({ key }) => key);
    if (keys.length === 0) return [];
    const listed = keys.slice(0, LISTED_KEYS).join(', ') + (keys.length > LISTED_KEYS ? ` (+${keys.length - LISTED_KEYS})` : '');
    return [finding('translations.W001', 'untranslated', { language, count: keys.length, keys: listed })];
  });
}

/** Resources and fields shown somewhere (not hidden) that no language has a label for: their declared names are shown. */
function unlabelled(localesDir: string, declarations: readonly ResourceDeclaration[]): CheckMessage[] {
  const byLanguage = catalogueKeys([frameworkLocalesDir, localesDir]).get('resources');
  const labelled = (label: string): boolean => LANGUAGES.some((language) => byLanguage?.get(language)?.has(label));
  return declarations.flatMap(({ name, fields }) => {
    const key = name.toLowerCase();
    const shown = Object.entries(fields).filter(([, field]) => !field.hidden).map(([field]) => `${key}.fields.${field}`);
    const missing = [`${key}.name`, ...shown].filter((label) => !labelled(label));
    return missing.length > 0 ? [finding('translations.W002', 'unlabelled', { resource: name, labels: missing.join(', ') })] : [];
  });
}

/** The application's checks: its migrations and its catalogues. */
export function applicationChecks(application: ApplicationPaths, declarations: readonly ResourceDeclaration[]): CheckMessage[] {
  const { changes, uncompiled } = unmigrated(application, declarations);
  return [
    ...(changes.length > 0 ? [finding('migrations.E001', 'unmigrated', { changes: changes.join('; ') })] : []),
    ...(uncompiled.length > 0 ? [finding('migrations.W001', 'uncompiled', { migrations: uncompiled.join(', ') })] : []),
    ...untranslated(application.locales),
    ...unlabelled(application.locales, declarations),
  ];
}

const sameHosts = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((host) => b.includes(host));

/** `--deploy`: the settings as they would be served, against what production needs (Django's security.* checks). */
export function deploymentChecks(config: Config): CheckMessage[] {
  const found: CheckMessage[] = [];
  if (config.environment !== 'production') found.push(finding('security.W001', 'not_production', { environment: config.environment }));
  if (config.debug) found.push(finding('security.E003', 'debug'));
  if (config.secretKey === undefined) found.push(finding('security.E001', 'no_secret_key'));
  else if (secretKeyIsWeak(config.secretKey)) found.push(finding('security.E002', 'weak_secret_key', { length: config.secretKey.length, minimum: SECRET_KEY_MIN_LENGTH }));
  if (config.allowedHosts.includes('*')) found.push(finding('security.W003', 'any_host'));
  else if (sameHosts(config.allowedHosts, defaultAllowedHosts(config.host))) {
    found.push(finding('security.W005', 'local_hosts_only', { hosts: config.allowedHosts.join(', ') }));
  }
  const plain = Array.isArray(config.corsAllowedOrigins) ? config.corsAllowedOrigins.filter((origin) => origin.startsWith('http://')) : [];
  if (plain.length > 0) found.push(finding('security.W004', 'plain_cors_origins', { origins: plain.join(', ') }));
  const processes = servingProcesses(config);
  if (processes > 1 && config.redisUrl === undefined) {
    found.push(finding('throttling.W001', 'limits_per_process', { processes, machines: config.siteMachines, workers: config.webConcurrency }));
  }
  if (config.databaseUrl === 'sqlite::memory:') found.push(finding('database.E001', 'memory_database'));
  return found;
}
