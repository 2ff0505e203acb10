import { DataTypes } from 'sequelize';
import { createTextIndex, dropTextIndex, type Migration } from 'declarest/migrations';

export const up: Migration = async ({ context: db }) => {
  await db.createTable('tags', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    name: { type: DataTypes.STRING(50), allowNull: false },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  // Unique, and the list's order (name, then id).
  await db.addIndex('tags', ['name'], { name: 'tags_name_unique', unique: true });
  // Its search and name__icontains.
  await createTextIndex(db, 'tags', ['name']);
};

export const down: Migration = async ({ context: db }) => {
  await dropTextIndex(db, 'tags', ['name']);
  await db.dropTable('tags');
};
