import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import i18next, { type i18n, type Resource } from 'i18next';
import Negotiator from 'negotiator';
import { localesDir } from './paths.js';

export const LANGUAGES = ['ja', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];

function readCatalogues(dir: string): Resource {
  const resources: Resource = {};
  for (const language of LANGUAGES) {
    const languageDir = path.join(dir, language);
    const namespaces: Record<string, Record<string, unknown>> = {};
    for (const file of readdirSync(languageDir).filter((name) => name.endsWith('.json'))) {
      namespaces[path.basename(file, '.json')] = JSON.parse(readFileSync(path.join(languageDir, file), 'utf8'));
    }
    resources[language] = namespaces;
  }
  return resources;
}

let instance: i18n | undefined;

/** The one i18next instance, loaded synchronously from `locales/` on first use. */
export function messages(): i18n {
  if (!instance) {
    instance = i18next.createInstance();
    void instance.init({
      resources: readCatalogues(localesDir),
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
  const ns = [...namespaces];
  return (key, params) => i18n.t(key, { ...params, lng: language, ns }) as string;
}

/**
 * The language of a request among ja and en, by the q-values of Accept-Language.
 * `*`, an absent header or only unknown languages give the site's default:
 * Node's fetch sends `Accept-Language: *` on every request.
 */
export function chooseLanguage(acceptLanguage: string | undefined, fallback: Language): Language {
  const offers = [fallback, ...LANGUAGES.filter((language) => language !== fallback)];
  const [preferred] = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).languages(offers);
  return (preferred as Language | undefined) ?? fallback;
}
