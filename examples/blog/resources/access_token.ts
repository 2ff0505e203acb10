import { defineResource, field } from 'declarest';

/** API tokens, as Laravel Sanctum's personal_access_tokens: only the SHA-256 of the secret is kept. */
export default defineResource({
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
  tokenModel: { userField: 'tokenable_id', loginTokenName: 'blog-api-token' },
  displayField: 'name',
  // What a token must hold to list, make and revoke its owner's tokens (GET, POST, DELETE /api/tokens).
  abilities: { read: 'tokens:read', write: 'tokens:write' },
  admin: {
    actions: ['list', 'show', 'delete'],
    list: ['id', 'tokenable_id', 'name', 'last_used_at', 'created_at'],
  },
});
