import { defineResource, field, isAuthenticated } from 'declarest';

/** The blog's accounts: the columns the framework's account model needs, and a name shown as a post's author. */
export default defineResource({
  name: 'User',
  table: 'users',
  fields: {
    id: field.id(),
    username: field.string({ maxLength: 150, format: 'username', unique: true, example: 'alice' }),
    name: field.string({ maxLength: 255, default: '', example: 'Alice Example' }),
    email: field.string({ maxLength: 254, format: 'email', unique: true, caseInsensitive: true, example: 'alice@example.com' }),
    password: field.string({ maxLength: 255, hidden: true }),
    is_superuser: field.boolean({ default: false }),
    is_staff: field.boolean({ default: false }),
    is_active: field.boolean({ default: true }),
    last_login: field.datetime({ nullable: true }),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
  userModel: { usernameField: 'username', emailField: 'email', displayField: 'name' },
  admin: {
    list: ['id', 'username', 'email', 'name', 'is_staff', 'is_active'],
    // What tells accounts apart on a phone: who, how to reach them, and whether they may use the admin.
    phoneList: ['username', 'email', 'is_staff'],
    search: ['username', 'email', 'name'],
  },
  sites: {
    // Authors, read-only: what `?expand=author` shows of a post's or a reply's author on the root site.
    paginated: {
      path: 'users',
      actions: ['list', 'retrieve'],
      fields: ['id', 'username', 'name'],
      permissions: [isAuthenticated],
    },
    // GET /api/user: the logged-in author with their own posts.
    token: {
      path: 'user',
      actions: ['current'],
      fields: ['id', 'username', 'name', 'email', 'created_at'],
      include: ['posts'],
      wrap: { item: 'user' },
    },
  },
});
