import { DataTypes } from 'sequelize';
import { createRowCounter, createTextIndex, dropRowCounter, dropTextIndex, type Migration } from 'declarest/migrations';

// Every field the post lists are filtered or ordered by (resources/post.ts, `query`) leads an index, the
// tie-break id riding along; search has its trigram index; join rows go with either of their rows.
export const up: Migration = async ({ context: db }) => {
  await db.createTable('posts', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    title: { type: DataTypes.STRING(200), allowNull: false },
    body: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
    status: { type: DataTypes.STRING(9), allowNull: false, defaultValue: 'draft' },
    published_at: { type: DataTypes.DATE, allowNull: true },
    reading_minutes: { type: DataTypes.INTEGER, allowNull: true },
    price: { type: DataTypes.DECIMAL(8, 2), allowNull: true },
    metadata: { type: DataTypes.JSON, allowNull: true },
    publish_on: { type: DataTypes.DATEONLY, allowNull: true },
    author_id: {
      type: DataTypes.INTEGER,
      allowNull: false,
      references: { model: 'users', key: 'id' },
      onDelete: 'CASCADE',
    },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await db.addIndex('posts', ['created_at', 'id'], { name: 'posts_created_at_id' });
  await db.addIndex('posts', ['published_at', 'id'], { name: 'posts_published_at_id' });
  await db.addIndex('posts', ['title', 'id'], { name: 'posts_title_id' });
  await db.addIndex('posts', ['status', 'created_at', 'id'], { name: 'posts_status_created_at_id' });
  await db.addIndex('posts', ['author_id', 'created_at', 'id'], { name: 'posts_author_id_created_at_id' });
  await createTextIndex(db, 'posts', ['title', 'body']);
  await createRowCounter(db, 'posts', { versioned: false }); // as made before counters kept a version (0009 adds it)

  await db.createTable('post_tags', {
    post_id: {
      type: DataTypes.INTEGER,
      primaryKey: true,
      allowNull: false,
      references: { model: 'posts', key: 'id' },
      onDelete: 'CASCADE',
    },
    tag_id: {
      type: DataTypes.INTEGER,
      primaryKey: true,
      allowNull: false,
      references: { model: 'tags', key: 'id' },
      onDelete: 'CASCADE',
    },
  });
  // The primary key (post_id, tag_id) finds a post's tags; this finds a tag's posts (`?tags=`).
  await db.addIndex('post_tags', ['tag_id', 'post_id'], { name: 'post_tags_tag_id_post_id' });
};

export const down: Migration = async ({ context: db }) => {
  await db.dropTable('post_tags');
  await dropRowCounter(db, 'posts');
  await dropTextIndex(db, 'posts', ['title', 'body']);
  await db.dropTable('posts');
};
