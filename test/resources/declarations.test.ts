import { describe, expect, test } from '@jest/globals';
import accessToken from '../../resources/access_token.js';
import comment from '../../resources/comment.js';
import user from '../../resources/user.js';
import { loadDeclarations } from '../../src/registry.js';
import { defineResource, field } from '../../src/resource.js';
import type { ResourceDeclaration } from '../../src/types/resource.js';

describe('resource declarations', () => {
  test('resources/ holds the access token, comment and user declarations, found without naming them', async () => {
    const names = (await loadDeclarations()).map((declaration) => declaration.name).sort();
    expect(names).toEqual(['AccessToken', 'Comment', 'User']);
  });

  test('the token hash is a hidden field and tokens are exposed on no site', () => {
    expect(accessToken.fields.token.hidden).toBe(true);
    expect(accessToken).not.toHaveProperty('sites');
  });

  test('the comment is exposed on the token site with the column limits and its owner on single reads', () => {
    expect(comment.sites.token).not.toHaveProperty('rules');
    expect(comment.fields.title.maxLength).toBe(255);
    expect(comment.fields.body.maxLength).toBe(65_535);
    expect(comment.sites.token.retrieveFields).toContain('owner');
    expect(comment.sites.token.fields).not.toContain('owner');
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

  test('a declaration without an id field, or with two, fails when it loads, saying so', () => {
    const declare = (fields: ResourceDeclaration['fields']) => () =>
      defineResource({ name: 'Idless', table: 'idless', fields, sites: { paginated: { path: 'idless', actions: ['list'], fields: ['label'], ordering: [['label', 'ASC']] } } });
    expect(declare({ label: field.string() })).toThrow('Resource Idless: declares one id field, as every resource does (id: field.id()); it declares none');
    expect(declare({ id: field.id(), key: field.id(), label: field.string() })).toThrow('it declares id, key');
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

  test("an admin list's phone columns must be columns of the list, and none hidden", () => {
    const fields = { id: field.id(), title: field.string(), body: field.text(), secret: field.string({ hidden: true }) };
    const declare = (admin: ResourceDeclaration['admin']) => () => defineResource({ name: 'Phoned', table: 'phoned', fields, admin });
    expect(declare({ list: ['id', 'title', 'body'], phoneList: ['title'] })).not.toThrow();
    expect(declare({ list: ['id', 'title'], phoneList: ['title', 'body'] })).toThrow('Resource Phoned: admin.phoneList names "body", which admin.list does not show');
    expect(declare({ phoneList: ['nope'] })).toThrow('Resource Phoned: admin names unknown field "nope"');
    expect(declare({ phoneList: ['secret'] })).toThrow('hidden field "secret" cannot be shown in the admin');
  });

  test('a reference is shown by its as-name, and only there', () => {
    const fields = { id: field.id(), who: field.reference('User', { as: 'owner', onDelete: 'CASCADE' }) };
    const site = (shown: string[]) => ({ path: 'x', actions: ['list'] as const, fields: shown });
    expect(() => defineResource({ name: 'Shown', table: 'shown', fields, sites: { token: site(['id', 'owner']) } })).not.toThrow();
    expect(() => defineResource({ name: 'Shown', table: 'shown', fields, sites: { token: site(['id', 'user']) } })).toThrow(
      'sites.token.fields names unknown field "user"',
    );
  });

  test('only the user model may expose the current action', () => {
    expect(() =>
      defineResource({
        name: 'Note',
        table: 'notes',
        fields: { id: field.id() },
        sites: { token: { path: 'note', actions: ['current'], fields: ['id'] } },
      }),
    ).toThrow('only the user model has a current action');
  });

  test('an owner field must be a reference', () => {
    expect(() =>
      defineResource({ name: 'Owned', table: 'owned', fields: { id: field.id(), who: field.string() }, ownerField: 'who' }),
    ).toThrow('ownerField must be a reference field');
  });
});
