import { DataTypes, fn, col } from 'sequelize';
import type { Migration } from 'declarest/migrations';

export const up: Migration = async ({ context: db }) => {
  await db.createTable('users', {
    id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true, allowNull: false },
    username: { type: DataTypes.STRING(150), allowNull: false, unique: true },
    name: { type: DataTypes.STRING(255), allowNull: false, defaultValue: '' },
    first_name: { type: DataTypes.STRING(150), allowNull: false, defaultValue: '' },
    last_name: { type: DataTypes.STRING(150), allowNull: false, defaultValue: '' },
    email: { type: DataTypes.STRING(254), allowNull: false },
    password: { type: DataTypes.STRING(255), allowNull: false },
    is_superuser: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    is_staff: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
    is_active: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
    email_verified_at: { type: DataTypes.DATE, allowNull: true },
    remember_token: { type: DataTypes.STRING(100), allowNull: true },
    last_login: { type: DataTypes.DATE, allowNull: true },
    created_at: { type: DataTypes.DATE, allowNull: false },
    updated_at: { type: DataTypes.DATE, allowNull: false },
  });
  // Emails are unique regardless of case, as the login compares them.
  await db.addIndex('users', { fields: [fn('lower', col('email'))], unique: true, name: 'users_email_lower_unique' });
};

export const down: Migration = async ({ context: db }) => {
  await db.dropTable('users');
};
