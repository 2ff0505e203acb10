import { describe, expect, test } from '@jest/globals';
import comment from '../../resources/comment.js';
import user from '../../resources/user.js';
import { loadDeclarations } from '../../src/registry.js';
import { defineResource, field } from '../../src/resource.js';

describe('resource declarations', () => {
  test('resources/ holds the comment and user declarations, found without naming them', async () => {
    const names = (await loadDeclarations()).map((declaration) => declaration.name).sort();
    expect(names).toEqual(['Comment', 'User']);
  });

  test('the comment is exposed on the paginated site with the limits of the document', () => {
    expect(comment.sites.paginated.rules).toEqual({ title: { maxLength: 10 }, body: { maxLength: 15 } });
    expect(comment.sites.paginated.fields).not.toContain('created_at');
  });

  test('the password and remember token are hidden fields of the user', () => {
    expect(user.fields.password.hidden).toBe(true);
    expect(user.fields.remember_token.hidden).toBe(true);
  });

  test('a declaration naming an unknown field fails when it loads', () => {
    expect(() =>
      defineResource({
        name: 'Broken',
        table: 'broken',
        fields: { id: field.id() },
        sites: { paginated: { path: 'broken', actions: ['list'], fields: ['id', 'nope'], ordering: [['id', 'ASC']] } },
      }),
    ).toThrow('Resource Broken: sites.paginated.fields names unknown field "nope"');
  });

  test('a hidden field cannot be exposed on a site', () => {
    expect(() =>
      defineResource({
        name: 'Leaky',
        table: 'leaky',
        fields: { id: field.id(), secret: field.string({ hidden: true }) },
        sites: { paginated: { path: 'leaky', actions: ['list'], fields: ['id', 'secret'], ordering: [['id', 'ASC']] } },
      }),
    ).toThrow('hidden field "secret" cannot be exposed');
  });

  test('an owner field must be a reference', () => {
    expect(() =>
      defineResource({ name: 'Owned', table: 'owned', fields: { id: field.id(), who: field.string() }, ownerField: 'who' }),
    ).toThrow('ownerField must be a reference field');
  });
});
