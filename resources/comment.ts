import { defineResource, field, isAuthenticated, isOwnerOrStaff } from 'declarest';

export default defineResource({
  name: 'Comment',
  table: 'comments',
  fields: {
    id: field.id(),
    title: field.string({ maxLength: 255, example: 'はじめまして' }),
    body: field.text({ maxLength: 65_535, example: '最初のコメントです。' }),
    user_id: field.reference('User', {
      as: 'owner',
      related: 'comments',
      nullable: true,
      readOnly: true,
      onDelete: 'SET NULL',
    }),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
  ownerField: 'user_id',
  // How a comment is named where it is shown by name (the admin's record titles, its links and searches).
  displayField: 'title',
  permissions: [isAuthenticated, isOwnerOrStaff],
  // What clients may ask of comment lists, on both sites, each in its own dialect. Neither site
  // shows `created_at` (the document's rule), so neither filters nor orders by it.
  query: {
    filters: {
      user_id: ['exact', 'in', 'isnull'],
      title: ['exact', 'icontains', 'in'],
      updated_at: ['gt', 'gte', 'lt', 'lte'],
    },
    search: ['title', 'body'],
    orderingFields: ['id', 'title', 'updated_at'],
    sparseFields: true,
    expand: ['owner'],
    // No list shows the owner's id, but the owner is no secret (`expand=owner` names them on both
    // sites) and both documents filter by it (`?user_id=`, `filter[user_id]`).
    unshown: ['user_id'],
  },
  // The sites no longer filter by creation time, but staff's admin does (its `created_at` filter below).
  indexes: { comments_created_at_id: { columns: ['created_at', 'id'] } },
  admin: {
    list: ['id', 'title', 'body', 'user_id', 'updated_at'],
    filters: ['title', 'body', 'user_id', 'created_at', 'updated_at'],
    search: ['title', 'body'],
  },
  sites: {
    paginated: {
      path: 'comments',
      actions: ['list', 'retrieve', 'create', 'update', 'partial_update', 'destroy'],
      fields: ['id', 'title', 'body', 'updated_at'],
      rules: { title: { maxLength: 10 }, body: { maxLength: 15 } },
      ordering: [
        ['updated_at', 'DESC'],
        ['id', 'DESC'],
      ],
      // Page numbers stay the default; `limit`/`offset` and `cursor` are there for clients that name them.
      pagination: { styles: ['limitOffset', 'cursor'] },
    },
    token: {
      path: 'comments',
      actions: ['list', 'retrieve', 'create', 'update', 'partial_update', 'destroy'],
      fields: ['id', 'title', 'body', 'updated_at'],
      // A single comment read also names its owner.
      retrieveFields: ['id', 'title', 'body', 'updated_at', 'owner'],
      ordering: [['id', 'ASC']],
      wrap: { item: 'comment', list: 'comments' },
      // The whole list stays the default; `page`/`per_page` and `cursor` page it.
      pagination: { styles: ['page', 'cursor'] },
    },
  },
});
