import { defineResource, field } from 'declarest';

/** Accounts: Django's auth.user columns plus Laravel's, so users of either migrate as they are. */
export default defineResource({
  name: 'User',
  table: 'users',
  fields: {
    id: field.id(),
    username: field.string({ maxLength: 150, format: 'username', unique: true, example: 'alice' }),
    name: field.string({ maxLength: 255, default: '', example: 'Alice Example' }),
    first_name: field.string({ maxLength: 150, default: '' }),
    last_name: field.string({ maxLength: 150, default: '' }),
    email: field.string({ maxLength: 254, format: 'email', unique: true, caseInsensitive: true, example: 'alice@example.com' }),
    password: field.string({ maxLength: 255, hidden: true }),
    is_superuser: field.boolean({ default: false }),
    is_staff: field.boolean({ default: false }),
    is_active: field.boolean({ default: true }),
    email_verified_at: field.datetime({ nullable: true }),
    remember_token: field.string({ maxLength: 100, nullable: true, hidden: true }),
    last_login: field.datetime({ nullable: true }),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
  userModel: { usernameField: 'username', emailField: 'email', displayField: 'name' },
  admin: {
    list: ['id', 'username', 'email', 'name', 'is_staff', 'is_superuser', 'is_active'],
    // What tells accounts apart on a phone: who, how to reach them, and whether they may use the admin.
    phoneList: ['username', 'email', 'is_staff'],
    filters: ['username', 'email', 'name', 'is_staff', 'is_superuser', 'is_active', 'last_login', 'created_at'],
    search: ['username', 'email', 'name'],
  },
  sites: {
    // GET /api/user: the logged-in user with their own comments; also the user of a login's answer.
    token: {
      path: 'user',
      actions: ['current'],
      fields: ['id', 'name', 'email', 'email_verified_at', 'created_at', 'updated_at'],
      include: ['comments'],
      wrap: { item: 'user' },
    },
  },
});
