import { DataTypes } from 'sequelize';
import type { Migration } from 'declarest/migrations';

export const up: Migration = async ({ context: db }) => {
  await db.createTable('comments', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    title: { type: DataTypes.STRING(255), allowNull: false },
    body: { type: DataTypes.TEXT, allowNull: false },
    // Nullable for imported rows; a deleted user's comments stay, ownerless.
    user_id: {
      type: DataTypes.INTEGER,
      allowNull: true,
      references: { model: 'users', key: 'id' },
      onDelete: 'SET NULL',
    },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  // The paginated list: newest update first, id as tie-break. The token list walks the primary key.
  await db.addIndex('comments', ['updated_at', 'id'], { name: 'comments_updated_at_id' });
  await db.addIndex('comments', ['user_id'], { name: 'comments_user_id' });
};

export const down: Migration = async ({ context: db }) => {
  await db.dropTable('comments');
};
