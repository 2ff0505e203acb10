import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { ERRORS, FIELD_ERRORS } from '../../src/errors.js';
import { chooseLanguage, LANGUAGES, translator } from '../../src/i18n.js';
import { frameworkLocalesDir } from '../../src/paths.js';

function keys(value: unknown, prefix = ''): string[] {
  if (typeof value !== 'object' || value === null) return [prefix];
  return Object.entries(value).flatMap(([key, child]) => keys(child, prefix ? `${prefix}.${key}` : key));
}

function catalogue(language: string, namespace: string): unknown {
  return JSON.parse(readFileSync(path.join(frameworkLocalesDir, language, `${namespace}.json`), 'utf8'));
}

describe('messages', () => {
  const namespaces = readdirSync(path.join(frameworkLocalesDir, 'en')).map((file) => path.basename(file, '.json'));

  test.each(namespaces)('the %s catalogue has the same keys in every language', (namespace) => {
    const [first, ...others] = LANGUAGES.map((language) => keys(catalogue(language, namespace)).sort());
    for (const other of others) expect(other).toEqual(first);
  });

  test('the framework’s catalogues name no application: the comment service and the blog say their own names', () => {
    const named = LANGUAGES.flatMap((language) =>
      namespaces.flatMap((namespace) => (/comment|コメント|blog|ブログ/i.test(JSON.stringify(catalogue(language, namespace))) ? [`${language}/${namespace}`] : [])),
    );
    expect(named).toEqual([]);
  });

  test('every error of the catalogue has a message on the paginated site in both languages', () => {
    for (const language of LANGUAGES) {
      const t = translator(language, ['paginated', 'common']);
      for (const { key } of Object.values(ERRORS)) expect(t(key)).not.toBe(key);
      for (const key of Object.values(FIELD_ERRORS)) expect(t(key)).not.toBe(key);
    }
  });

  test.each([
    [undefined, 'ja', 'ja'],
    ['*', 'ja', 'ja'],
    ['*', 'en', 'en'],
    ['fr-FR, de', 'ja', 'ja'],
    ['en', 'ja', 'en'],
    ['en-GB,en;q=0.9', 'ja', 'en'],
    ['ja-JP', 'en', 'ja'],
    ['en;q=0.3, ja;q=0.7', 'en', 'ja'],
    ['', 'en', 'en'],
  ])('Accept-Language %p on a site defaulting to %s gives %s', (header, fallback, expected) => {
    expect(chooseLanguage(header, fallback as 'ja' | 'en')).toBe(expected);
  });
});
