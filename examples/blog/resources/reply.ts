import { defineResource, field, isAuthenticated, isOwnerOrStaff, type ValidationContext } from 'declarest';

const FIELDS = ['id', 'post_id', 'parent_id', 'body', 'author_id', 'author', 'created_at', 'updated_at'] as const;

/**
 * Every reply's thread stays a tree inside its post: a parent of the same
 * post, never the reply itself nor one of its own replies, and a reply that
 * has been answered stays with its post (its answers would be left in another).
 */
async function threaded(ctx: ValidationContext): Promise<void> {
  const { transaction } = ctx;
  const replies = ctx.model('Reply');
  const id = ctx.row?.get('id');
  const { post_id: postId, parent_id: parentId } = ctx.values;
  const moved = ctx.row !== null && ctx.row.get('post_id') !== postId;
  // Threads change one write at a time per post (the posts' rows held, in id order): two writes checked
  // side by side could each pass against the other's thread as it was, and together make a loop.
  const held = new Set<number>();
  if (moved) held.add(Number(ctx.row?.get('post_id')));
  if (parentId !== null && parentId !== undefined) held.add(Number(postId));
  for (const post of [...held].sort((a, b) => a - b)) await ctx.model('Post').findByPk(post, { attributes: ['id'], transaction, lock: true });
  if (moved && (await replies.count({ where: { parent_id: id }, transaction })) > 0) ctx.refuse('post_id', 'answered_elsewhere');
  if (parentId === null || parentId === undefined) return;
  if (parentId === id) ctx.refuse('parent_id', 'own_parent');
  const parent = await replies.findByPk(parentId as number, { attributes: ['post_id', 'parent_id'], transaction });
  if (parent && parent.get('post_id') !== postId) ctx.refuse('parent_id', 'other_post');
  if (id === undefined) return;
  // Up from the new parent: reaching this reply would close a loop. `seen` ends the walk on a loop already stored.
  const seen = new Set<unknown>([parentId]);
  for (let above = parent?.get('parent_id'); above !== null && above !== undefined && !seen.has(above); ) {
    if (above === id) ctx.refuse('parent_id', 'own_answer');
    seen.add(above);
    above = (await replies.findByPk(above as number, { attributes: ['parent_id'], transaction }))?.get('parent_id');
  }
}

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
  validate: threaded,
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
