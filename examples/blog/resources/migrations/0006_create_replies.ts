import { DataTypes } from 'sequelize';
import type { Migration } from 'declarest/migrations';

export const up: Migration = async ({ context: db }) => {
  await db.createTable('replies', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    post_id: {
      type: DataTypes.INTEGER,
      allowNull: false,
      references: { model: 'posts', key: 'id' },
      onDelete: 'CASCADE',
    },
    // A reply whose parent is deleted stays, at the top of its post's thread.
    parent_id: {
      type: DataTypes.INTEGER,
      allowNull: true,
      references: { model: 'replies', key: 'id' },
      onDelete: 'SET NULL',
    },
    body: { type: DataTypes.TEXT, allowNull: false },
    author_id: {
      type: DataTypes.INTEGER,
      allowNull: false,
      references: { model: 'users', key: 'id' },
      onDelete: 'CASCADE',
    },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  // A post's replies (filtered, expanded, counted), a reply's children, an author's replies.
  await db.addIndex('replies', ['post_id', 'id'], { name: 'replies_post_id_id' });
  await db.addIndex('replies', ['parent_id', 'id'], { name: 'replies_parent_id_id' });
  await db.addIndex('replies', ['created_at', 'id'], { name: 'replies_created_at_id' });
  await db.addIndex('replies', ['author_id'], { name: 'replies_author_id' });
};

export const down: Migration = async ({ context: db }) => {
  await db.dropTable('replies');
};
