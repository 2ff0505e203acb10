import type { Migration } from '../../src/db/migrator.js';
import { createTextIndex, dropTextIndex } from '../../src/db/text-index.js';

// What the comment lists may be filtered and ordered by (resources/comment.ts, `query`) leads an index:
// user_id and updated_at already do (0002); the tie-break id rides along, so each order reads its index alone.
export const up: Migration = async ({ context: db }) => {
  await db.addIndex('comments', ['title', 'id'], { name: 'comments_title_id' });
  await db.addIndex('comments', ['created_at', 'id'], { name: 'comments_created_at_id' });
  // Search and title__icontains: a trigram index (SQLite FTS5, PostgreSQL pg_trgm).
  await createTextIndex(db, 'comments', ['title', 'body']);
};

export const down: Migration = async ({ context: db }) => {
  await dropTextIndex(db, 'comments', ['title', 'body']);
  await db.removeIndex('comments', 'comments_created_at_id');
  await db.removeIndex('comments', 'comments_title_id');
};
