import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import i18next, { type i18n, type Resource } from 'i18next';
import Negotiator from 'negotiator';
import { frameworkLocalesDir } from './paths.js';

export const LANGUAGES = ['ja', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

type Catalogue = Record<string, unknown>;

function isCatalogue(value: unknown): value is Catalogue {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `over`'s keys over `base`'s, nested objects merged key by key. */
function merged(base: Catalogue, over: Catalogue): Catalogue {
  const result: Catalogue = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const below = result[key];
    result[key] = isCatalogue(below) && isCatalogue(value) ? merged(below, value) : value;
  }
  return result;
}

/** Every catalogue of `dirs`, a later directory's keys over an earlier's; a missing directory adds nothing. */
function readCatalogues(dirs: readonly string[]): Resource {
  const resources: Resource = {};
  for (const language of LANGUAGES) {
    const namespaces: Record<string, Catalogue> = {};
    for (const dir of dirs) {
      const languageDir = path.join(dir, language);
      if (!existsSync(languageDir)) continue;
      for (const file of readdirSync(languageDir).filter((name) => name.endsWith('.json'))) {
        const namespace = path.basename(file, '.json');
        namespaces[namespace] = merged(namespaces[namespace] ?? {}, JSON.parse(readFileSync(path.join(languageDir, file), 'utf8')) as Catalogue);
      }
    }
    resources[language] = namespaces;
  }
  return resources;
}

let instance: i18n | undefined;
let catalogueDirs: readonly string[] = [frameworkLocalesDir];

/**
 * Adds an application's own messages over the framework's (its resources'
 * labels, its hooks' refusals). A process serves one application.
 */
export function useApplicationLocales(dir: string): void {
  const dirs = dir === frameworkLocalesDir ? [frameworkLocalesDir] : [frameworkLocalesDir, dir];
  if (dirs.join('\0') === catalogueDirs.join('\0')) return;
  catalogueDirs = dirs;
  instance = undefined;
}

/** The one i18next instance, loaded synchronously on first use: the framework's catalogues, the application's over them. */
export function messages(): i18n {
  if (!instance) {
    instance = i18next.createInstance();
    void instance.init({
      resources: readCatalogues(catalogueDirs),
      initAsync: false,
      fallbackLng: false,
      supportedLngs: [...LANGUAGES],
      defaultNS: 'common',
      interpolation: { escapeValue: false },
      returnNull: false,
    });
  }
  return instance;
}

/** A message lookup bound to one language; params fill the `{{name}}` slots. */
export type Translate = (key: string, params?: Record<string, string | number>) => string;

/**
 * A translator for one language that looks keys up in `namespaces` in order,
 * so a site's own texts win over the shared ones.
 */
export function translator(language: Language, namespaces: readonly string[]): Translate {
  const i18n = messages();
  const key = `${language}:${namespaces.join(',')}`;
  let made = translators.get(i18n)?.get(key);
  if (!made) {
    const ns = [...namespaces];
    // A message without parameters is the same every time: looked up once per translator.
    const fixed = new Map<string, string>();
    made = (message, params) => {
      if (params) return i18n.t(message, { ...params, lng: language, ns }) as string;
      let text = fixed.get(message);
      if (text === undefined) {
        text = i18n.t(message, { lng: language, ns }) as string;
        if (fixed.size < FIXED_MESSAGES_KEPT) fixed.set(message, text);
      }
      return text;
    };
    if (!translators.has(i18n)) translators.set(i18n, new Map());
    translators.get(i18n)?.set(key, made);
  }
  return made;
}

/** More keys than the catalogues hold: a key made from a request is not kept. */
const FIXED_MESSAGES_KEPT = 5000;

/** Translators by language and namespaces, per catalogue instance (a test may load other catalogues). */
const translators = new WeakMap<i18n, Map<string, Translate>>();

/** The languages chosen for the Accept-Language values seen, up to a bound (clients send few distinct ones). */
const chosenLanguages = new Map<string, Language>();
const CHOSEN_LANGUAGES_KEPT = 500;

/**
 * The language of a request among ja and en, by the q-values of Accept-Language.
 * `*`, an absent header or only unknown languages give the site's default:
 * Node's fetch sends `Accept-Language: *` on every request.
 */
export function chooseLanguage(acceptLanguage: string | undefined, fallback: Language): Language {
  const key = `${fallback}|${acceptLanguage ?? ''}`;
  let chosen = chosenLanguages.get(key);
  if (chosen === undefined) {
    const offers = [fallback, ...LANGUAGES.filter((language) => language !== fallback)];
    const [preferred] = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).languages(offers);
    chosen = (preferred as Language | undefined) ?? fallback;
    if (chosenLanguages.size >= CHOSEN_LANGUAGES_KEPT) chosenLanguages.clear();
    chosenLanguages.set(key, chosen);
  }
  return chosen;
}
