import { describe, expect, test } from '@jest/globals';
import { actionTitles, resourceNames } from '../../../src/admin/names.js';
import type { BoundResource } from '../../../src/types/resource.js';

/** A resource with no entry in the resources catalogue: its declared name is all there is. */
function undeclared(name: string): BoundResource {
  return { key: name.toLowerCase().replace(/ /g, ''), declaration: { name } } as unknown as BoundResource;
}

describe('the names of a resource in the admin', () => {
  test('a resource without catalogue entries is named, in both languages, by its declared name', () => {
    expect(resourceNames('en', undeclared('Invoice line'))).toEqual({ name: 'Invoice line', plural: 'Invoice line' });
    expect(resourceNames('ja', undeclared('Invoice line'))).toEqual({ name: 'Invoice line', plural: 'Invoice line' });
  });

  test('an English title writes the name in lower case inside the sentence, except an acronym', () => {
    expect(actionTitles('en', undeclared('Invoice line'))).toEqual({
      list: 'Invoice line',
      show: 'View invoice line',
      edit: 'Edit invoice line',
      new: 'Add invoice line',
    });
    expect(actionTitles('en', undeclared('API key')).edit).toBe('Edit API key');
  });

  test('a Japanese title keeps the name as it is', () => {
    expect(actionTitles('ja', undeclared('API key'))).toEqual({ list: 'API key一覧', show: 'API keyの詳細', edit: 'API keyの編集', new: 'API keyの追加' });
  });
});
