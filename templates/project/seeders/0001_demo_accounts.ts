import { defineSeeder } from 'declarest';

/** Accounts to try the application with on a fresh development database; `npm start` prints them. */
export default defineSeeder({
  development: true,
  async run({ dataFile, loadUsers }) {
    await loadUsers(dataFile('demo_users.csv'));
    return {
      accounts: [
        { username: 'admin', password: 'admin-password', role: 'superuser' },
        { username: 'alice', password: 'alice-password', role: 'user' },
      ],
    };
  },
});
