import { readFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { defineSeeder, type DemoAccount } from 'declarest';

/** Demo accounts with their plaintext passwords, which `loaddata` hashes; `npm run example:blog` prints them. */
export default defineSeeder({
  development: true,
  async run({ dataFile, loadUsers }) {
    const file = dataFile('demo_users.csv');
    await loadUsers(file);
    const rows = parse(readFileSync(file, 'utf8'), { columns: true }) as Record<string, string>[];
    const accounts: DemoAccount[] = rows.map((row) => ({
      username: row.username ?? '',
      password: row.password ?? '',
      role: row.is_superuser === 'true' ? 'superuser' : row.is_staff === 'true' ? 'staff' : 'user',
    }));
    return { accounts };
  },
});
