import { clock, defineResource, field, type HookContext, isAuthenticated, isOwnerOrStaff, type ValidationContext } from 'declarest';
import { apiKeyAuthentication } from '../policies/api-key.js';
import { csvRenderer } from '../policies/csv.js';

const EXCERPT_LENGTH = 40;

/** A post is published with a body: checked on the post as the write would leave it (by a write or by the publish action). */
function publishable(ctx: ValidationContext): void {
  if (ctx.values.status === 'published' && String(ctx.values.body ?? '').trim() === '') ctx.refuse('status', 'empty_body');
}

/** Its publication time is set once, by the server, when it first becomes published. */
function publishing(ctx: HookContext): void {
  const status = 'status' in ctx.data ? ctx.data.status : ctx.row?.get('status');
  if (status === 'published' && !ctx.row?.get('published_at')) ctx.data.published_at = clock().now();
}

const SHOWN = [
  'id', 'title', 'body', 'status', 'published_at', 'reading_minutes', 'price', 'metadata', 'publish_on',
  'author_id', 'author', 'tags', 'reply_count', 'excerpt', 'created_at', 'updated_at',
] as const;

const ACTIONS = ['list', 'retrieve', 'create', 'update', 'partial_update', 'destroy'] as const;

export default defineResource({
  name: 'Post',
  table: 'posts',
  fields: {
    id: field.id(),
    title: field.string({ maxLength: 200, example: 'Hello, blog' }),
    // A draft may be empty; publishing one is refused (the hook below).
    body: field.text({ default: '', example: 'My first post.' }),
    status: field.enum(['draft', 'published'], { default: 'draft' }),
    published_at: field.datetime({ nullable: true, readOnly: true }),
    reading_minutes: field.integer({ min: 1, nullable: true, example: 3 }),
    // The price of a paid article; null when free.
    price: field.decimal({ maxDigits: 8, decimalPlaces: 2, nullable: true, example: '4.50' }),
    metadata: field.json({ nullable: true, example: { lang: 'en' } }),
    publish_on: field.date({ nullable: true, example: '2025-01-31' }),
    author_id: field.reference('User', { as: 'author', related: 'posts', readOnly: true, onDelete: 'CASCADE' }),
    tags: field.manyToMany('Tag', { through: { table: 'post_tags', from: 'post_id', to: 'tag_id' }, related: 'posts' }),
    reply_count: field.count('replies'),
    excerpt: field.computed('string', (row) => String(row.body ?? '').slice(0, EXCERPT_LENGTH)),
    created_at: field.createdAt(),
    updated_at: field.updatedAt(),
  },
  ownerField: 'author_id',
  displayField: 'title',
  permissions: [isAuthenticated, isOwnerOrStaff],
  // The blog's own policies, on both sites, after each site's own: scripts authenticate with an X-Api-Key,
  // and lists also come as CSV (`?format=csv`, `Accept: text/csv`).
  authenticators: [apiKeyAuthentication],
  renderers: [csvRenderer],
  validate: publishable,
  hooks: {
    beforeCreate: publishing,
    beforeUpdate: publishing,
  },
  actions: {
    // POST /posts/<pk>/publish/ and POST /api/posts/<pk>/publish: the owner (or staff) publishes a draft.
    publish: {
      detail: true,
      methods: ['POST'],
      permissions: [isAuthenticated, isOwnerOrStaff],
      run: async (ctx) => {
        await ctx.update({ status: 'published' });
      },
    },
  },
  query: {
    filters: {
      status: ['exact', 'in'],
      author_id: ['exact', 'in'],
      tags: ['exact', 'in'],
      published_at: ['gt', 'gte', 'lt', 'lte', 'isnull'],
      created_at: ['gt', 'gte', 'lt', 'lte'],
    },
    search: ['title', 'body'],
    orderingFields: ['id', 'title', 'created_at', 'published_at'],
    sparseFields: true,
    expand: ['author', 'tags', 'replies', 'replies.author'],
  },
  admin: {
    list: ['id', 'title', 'status', 'author_id', 'published_at', 'updated_at'],
    search: ['title', 'body'],
  },
  sites: {
    paginated: {
      path: 'posts',
      actions: ACTIONS,
      fields: SHOWN,
      ordering: [
        ['created_at', 'DESC'],
        ['id', 'DESC'],
      ],
      pagination: { default: 'page', styles: ['limitOffset', 'cursor'] },
      // Pages by cursor, which continue after NOT NULL values only: published_at (null for drafts) is left out here.
      query: { orderingFields: ['id', 'title', 'created_at'] },
    },
    token: {
      path: 'posts',
      actions: ACTIONS,
      fields: SHOWN,
      wrap: { item: 'post', list: 'posts' },
    },
  },
});
