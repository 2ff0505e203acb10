import { DataTypes } from 'sequelize';
import type { Migration } from 'declarest/migrations';

export const up: Migration = async ({ context: db }) => {
  await db.createTable('personal_access_tokens', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    tokenable_id: {
      type: DataTypes.INTEGER,
      allowNull: false,
      references: { model: 'users', key: 'id' },
      onDelete: 'CASCADE',
    },
    name: { type: DataTypes.STRING(255), allowNull: false },
    // SHA-256 hex of the secret; the secret itself is never stored.
    token: { type: DataTypes.STRING(64), allowNull: false, unique: true },
    abilities: { type: DataTypes.TEXT, allowNull: true },
    last_used_at: { type: DataTypes.DATE, allowNull: true },
    expires_at: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  await db.addIndex('personal_access_tokens', ['tokenable_id'], { name: 'personal_access_tokens_tokenable_id' });
};

export const down: Migration = async ({ context: db }) => {
  await db.dropTable('personal_access_tokens');
};
