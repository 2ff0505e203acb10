import { describe, expect, test } from '@jest/globals';
import { checkDeclarations } from '../../src/declaration-checks.js';
import { defineResource, field } from '../../src/resource.js';
import { declaredSchema } from '../../src/schema/declared.js';
import { loadDeclarations } from '../../src/registry.js';
import type { ResourceDeclaration } from '../../src/types/resource.js';

const project = await loadDeclarations();

/** A resource named `name` on `table`, served at `path` on the root site, with `fields` besides its id. */
function resource(name: string, { table = name.toLowerCase() + 's', path = table, fields = {} }: { table?: string; path?: string; fields?: ResourceDeclaration['fields'] } = {}): ResourceDeclaration {
  return defineResource({
    name,
    table,
    fields: { id: field.id(), label: field.string({ maxLength: 20 }), ...fields },
    sites: { paginated: { path, actions: ['list'], fields: ['id', 'label'], ordering: [['id', 'ASC']] } },
  });
}

describe('declarations that disagree are refused, each mistake named', () => {
  test.each([
    ['a name declared twice', [resource('Tag'), resource('Tag', { table: 'labels', path: 'labels' })], 'Resource Tag is declared twice'],
    ['a table declared twice', [resource('Tag', { table: 'comments', path: 'tags' })], 'Resources Comment and Tag both declare table "comments"'],
    ['a path served twice', [resource('Tag', { path: 'comments' })], 'Resources Comment and Tag are both served at "comments" on the paginated site'],
    [
      'a reference to no resource',
      [resource('Tag', { fields: { comment_id: field.reference('Coment', { as: 'comment', onDelete: 'CASCADE' }) } })],
      'Tag.comment_id refers to Coment, but no resource is named so (the resources: AccessToken, Comment, Tag, User)',
    ],
    [
      'a reference named as a field is',
      [resource('Tag', { fields: { comment: field.string({ maxLength: 5 }), comment_id: field.reference('Comment', { as: 'comment', onDelete: 'CASCADE' }) } })],
      'Tag.comment_id: its `as` name "comment" is also a field of Tag',
    ],
    [
      'a related name taken by another reference',
      [resource('Tag', { fields: { user_id: field.reference('User', { as: 'user', related: 'comments', onDelete: 'CASCADE' }) } })],
      'Comment.user_id and Tag.user_id both name rows "comments" on User',
    ],
    [
      'two references of one resource named alike',
      [resource('Tag', { fields: { user_id: field.reference('User', { as: 'user', onDelete: 'CASCADE' }), editor_id: field.reference('User', { as: 'user', onDelete: 'CASCADE' }) } })],
      'Tag.user_id and Tag.editor_id are both named "user" (`as`)',
    ],
    [
      "a related name that is one of the target's references",
      [resource('Tag', { fields: { comment_id: field.reference('Comment', { as: 'comment', related: 'owner', onDelete: 'CASCADE' }) } })],
      'Comment.user_id and Tag.comment_id both name rows "owner" on Comment',
    ],
  ])('%s', (_case, added, message) => {
    const declarations = [...project, ...added];
    expect(() => checkDeclarations(declarations)).toThrow(message);
    // makemigrations reads them the same way.
    expect(() => declaredSchema(declarations)).toThrow(message);
  });

  test("the project's own declarations agree", () => {
    expect(() => checkDeclarations(project)).not.toThrow();
  });
});
