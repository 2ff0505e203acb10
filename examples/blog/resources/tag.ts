import { defineResource, field, isAuthenticated, isStaffOrReadOnly } from 'declarest';

/**
 * A label posts are filed under; posts reach their tags, and tags their posts,
 * through post_tags. Tags are shared by every post: any signed-in user reads
 * them, only staff make, rename or delete one (a rename or a delete changes
 * other people's posts).
 */
export default defineResource({
  name: 'Tag',
  table: 'tags',
  fields: {
    id: field.id(),
    name: field.string({ maxLength: 50, unique: true, example: 'typescript' }),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
  displayField: 'name',
  permissions: [isAuthenticated, isStaffOrReadOnly],
  query: {
    filters: { name: ['exact', 'icontains', 'in'] },
    search: ['name'],
    orderingFields: ['id', 'name'],
  },
  sites: {
    paginated: {
      path: 'tags',
      actions: ['list', 'retrieve', 'create', 'update', 'partial_update', 'destroy'],
      fields: ['id', 'name', 'created_at', 'updated_at'],
      ordering: [
        ['name', 'ASC'],
        ['id', 'ASC'],
      ],
    },
    token: {
      path: 'tags',
      actions: ['list', 'retrieve', 'create', 'update', 'partial_update', 'destroy'],
      fields: ['id', 'name', 'created_at', 'updated_at'],
      wrap: { item: 'tag', list: 'tags' },
    },
  },
});
