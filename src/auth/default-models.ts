/**
 * The account and token models an application gets when it declares none, as
 * Django's `auth.User` (replaced through `AUTH_USER_MODEL`) and Sanctum's
 * `personal_access_tokens`: Django's and Laravel's columns together, so users
 * of either are loaded as they are. An application that declares its own
 * `userModel` replaces both (and declares a `tokenModel` if it wants tokens).
 */
import { field } from '../fields.js';
import { defineResource } from '../resource.js';
import type { ResourceDeclaration } from '../types/resource.js';

export const DEFAULT_USER_MODEL = defineResource({
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
    phoneList: ['username', 'email', 'is_staff'],
    filters: ['username', 'email', 'name', 'is_staff', 'is_superuser', 'is_active', 'last_login', 'created_at'],
    search: ['username', 'email', 'name'],
  },
  sites: {
    // Sanctum's GET /api/user: the signed-in user, also the user of a login's answer.
    token: { path: 'user', actions: ['current'], fields: ['id', 'name', 'email', 'email_verified_at', 'created_at', 'updated_at'], wrap: { item: 'user' } },
  },
});

export const DEFAULT_TOKEN_MODEL = defineResource({
  name: 'AccessToken',
  table: 'personal_access_tokens',
  fields: {
    id: field.id(),
    tokenable_id: field.reference('User', { as: 'user', related: 'tokens', readOnly: true, onDelete: 'CASCADE' }),
    name: field.string({ maxLength: 255 }),
    token: field.string({ maxLength: 64, unique: true, hidden: true, readOnly: true }),
    abilities: field.text({ nullable: true }),
    last_used_at: field.datetime({ nullable: true, readOnly: true }),
    expires_at: field.datetime({ nullable: true }),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
  tokenModel: { userField: 'tokenable_id', loginTokenName: 'api-token' },
  displayField: 'name',
  abilities: { read: 'tokens:read', write: 'tokens:write' },
  admin: {
    actions: ['list', 'show', 'delete'],
    list: ['id', 'tokenable_id', 'name', 'last_used_at', 'created_at'],
    filters: ['tokenable_id', 'name', 'last_used_at', 'created_at'],
    search: ['name'],
  },
});

/** An application's declarations, with the default account and token models when it declares no account model. */
export function withDefaultModels(declarations: readonly ResourceDeclaration[]): ResourceDeclaration[] {
  if (declarations.some((declaration) => declaration.userModel)) return [...declarations];
  const taken = new Set(declarations.flatMap(({ name, table }) => [name, table]));
  const clash = [DEFAULT_USER_MODEL, DEFAULT_TOKEN_MODEL].flatMap(({ name, table }) => [name, table]).filter((name) => taken.has(name));
  if (clash.length > 0) {
    throw new Error(`${clash.join(', ')}: the default account and token models use these names; declare your own account model (userModel) instead`);
  }
  return [DEFAULT_USER_MODEL, DEFAULT_TOKEN_MODEL, ...declarations];
}
