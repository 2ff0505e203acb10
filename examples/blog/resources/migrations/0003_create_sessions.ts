import { DataTypes } from 'sequelize';
import type { Migration } from '../../../../src/db/migrator.js';

/** Browser sessions (express-session's store), as the framework's session store expects them. */
export const up: Migration = async ({ context: db }) => {
  await db.createTable('sessions', {
    sid: { type: DataTypes.STRING(36), primaryKey: true, allowNull: false },
    expires: { type: DataTypes.DATE, allowNull: true },
    data: { type: DataTypes.TEXT, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  // The store deletes expired sessions by this column.
  await db.addIndex('sessions', ['expires'], { name: 'sessions_expires' });
};

export const down: Migration = async ({ context: db }) => {
  await db.dropTable('sessions');
};
