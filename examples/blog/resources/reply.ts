import { isAuthenticated, isOwnerOrStaff } from '../../../src/permissions.js';
import { defineResource, field } from '../../../src/resource.js';

const FIELDS = ['id', 'post_id', 'parent_id', 'body', 'author_id', 'author', 'created_at', 'updated_at'] as const;

/** A reply to a post, or to another reply of it (a thread): written with the post's id and, in a thread, the parent's. */
export default defineResource({
  name: 'Reply',
  table: 'replies',
  fields: {
    id: field.id(),
    post_id: field.reference('Post', { as: 'post', related: 'replies', onDelete: 'CASCADE' }),
    parent_id: field.reference('Reply', { as: 'parent', related: 'children', nullable: true, onDelete: 'SET NULL' }),
    body: field.text({ maxLength: 10_000, example: 'Nice post!' }),
    author_id: field.reference('User', { as: 'author', related: 'replies', readOnly: true, onDelete: 'CASCADE' }),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
  ownerField: 'author_id',
  permissions: [isAuthenticated, isOwnerOrStaff],
  query: {
    filters: {
      post_id: ['exact', 'in'],
      parent_id: ['exact', 'in', 'isnull'],
    },
    orderingFields: ['id', 'created_at'],
    expand: ['post', 'parent', 'author'],
  },
  sites: {
    paginated: {
      path: 'replies',
      actions: ['list', 'retrieve', 'create', 'update', 'partial_update', 'destroy'],
      fields: FIELDS,
    },
    token: {
      path: 'replies',
      actions: ['list', 'retrieve', 'create', 'update', 'partial_update', 'destroy'],
      fields: FIELDS,
      wrap: { item: 'reply', list: 'replies' },
    },
  },
});
