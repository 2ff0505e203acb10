import { createRowCounter, createTextIndex, dropRowCounter, dropTextIndex, type Migration } from 'declarest/migrations';

// What the comment lists may be filtered and ordered by (resources/comment.ts, `query`) leads an index, and the
// tie-break id rides along, so each order reads its index alone. An owner's list in the root site's order
// reads its own stretch of (user_id, updated_at, id), which also serves what (user_id) served.
export const up: Migration = async ({ context: db }) => {
  await db.addIndex('comments', ['title', 'id'], { name: 'comments_title_id' });
  await db.addIndex('comments', ['created_at', 'id'], { name: 'comments_created_at_id' });
  await db.addIndex('comments', ['user_id', 'updated_at', 'id'], { name: 'comments_user_id_updated_at_id' });
  await db.removeIndex('comments', 'comments_user_id');
  // Search and title__icontains: a trigram index (SQLite FTS5, PostgreSQL pg_trgm).
  await createTextIndex(db, 'comments', ['title', 'body']);
  // Every page shows the list's count: kept as rows come and go, instead of counted each time (its version came in 0007).
  await createRowCounter(db, 'comments', { versioned: false });
};

export const down: Migration = async ({ context: db }) => {
  await dropRowCounter(db, 'comments');
  await dropTextIndex(db, 'comments', ['title', 'body']);
  await db.addIndex('comments', ['user_id'], { name: 'comments_user_id' });
  await db.removeIndex('comments', 'comments_user_id_updated_at_id');
  await db.removeIndex('comments', 'comments_created_at_id');
  await db.removeIndex('comments', 'comments_title_id');
};
