import { defineResource, field, isAuthenticated, isOwnerOrStaff } from 'declarest';

/**
 * A note: one declaration gives its table (after `npm run makemigrations`),
 * both APIs (`/notes/` and `/api/notes`), the admin, OPTIONS and /docs.
 */
export default defineResource({
  name: 'Note',
  table: 'notes',
  fields: {
    id: field.id(),
    title: field.string({ maxLength: 200, example: 'Groceries' }),
    body: field.text({ default: '', example: 'Milk, eggs, bread.' }),
    owner_id: field.reference('User', { as: 'owner', related: 'notes', readOnly: true, onDelete: 'CASCADE' }),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
  ownerField: 'owner_id',
  displayField: 'title',
  // Anyone signed in reads; a note is changed by its owner or staff.
  permissions: [isAuthenticated, isOwnerOrStaff],
  query: {
    filters: { title: ['exact', 'icontains'] },
    search: ['title', 'body'],
    orderingFields: ['id', 'title', 'updated_at'],
  },
  admin: {
    list: ['id', 'title', 'owner_id', 'updated_at'],
    search: ['title', 'body'],
  },
  sites: {
    // Django REST Framework's style at the root: /notes/, page numbers, {"detail": …} errors.
    paginated: {
      path: 'notes',
      actions: ['list', 'retrieve', 'create', 'update', 'partial_update', 'destroy'],
      fields: ['id', 'title', 'body', 'updated_at'],
      ordering: [['updated_at', 'DESC'], ['id', 'DESC']],
    },
    // Laravel Sanctum's style under /api: /api/notes, bearer tokens, {"note": …} bodies.
    token: {
      path: 'notes',
      actions: ['list', 'retrieve', 'create', 'update', 'partial_update', 'destroy'],
      fields: ['id', 'title', 'body', 'updated_at'],
      ordering: [['id', 'ASC']],
      wrap: { item: 'note', list: 'notes' },
    },
  },
});
