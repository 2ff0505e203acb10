import { resourceLabel } from '../errors.js';
import { translator, type Language } from '../i18n.js';
import type { BoundResource } from '../types/resource.js';

/** A resource's names in one language, from `locales/<lang>/resources.json` (its `name`, and its `plural` where the language has one). */
export interface ResourceNames {
  name: string;
  plural: string;
}

/** The page headings of a resource's admin pages, by AdminJS action name (`titles` in admin.json). */
export type ActionTitles = Record<'list' | 'show' | 'edit' | 'new', string>;

export function resourceNames(language: Language, resource: BoundResource): ResourceNames {
  const t = translator(language, ['resources']);
  const name = resourceLabel(t, resource);
  return { name, plural: t(`resources:${resource.key}.plural`, { defaultValue: name }) };
}

/**
 * The name as it reads inside a sentence ("Edit invoice line"): a leading
 * capital goes, unless the first word is an acronym ("API key" stays).
 */
function inSentence(name: string, language: Language): string {
  const first = name.split(' ')[0] ?? '';
  if (first.length > 1 && first === first.toLocaleUpperCase(language)) return name;
  return name.charAt(0).toLocaleLowerCase(language) + name.slice(1);
}

export function actionTitles(language: Language, resource: BoundResource): ActionTitles {
  const t = translator(language, ['admin']);
  const { name, plural } = resourceNames(language, resource);
  const params = { name, plural, lower: inSentence(name, language) };
  return {
    list: t('titles.list', params),
    show: t('titles.show', params),
    edit: t('titles.edit', params),
    new: t('titles.new', params),
  };
}
