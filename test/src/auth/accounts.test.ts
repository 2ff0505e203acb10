import { describe, expect, jest, test } from '@jest/globals';
import { Accounts } from '../../../src/auth/accounts.js';
import { PasswordHasher } from '../../../src/auth/hashers.js';
import { ValidationError } from '../../../src/errors.js';
import { TEST_ITERATIONS, useTestApp } from '../../helpers/app.js';
import { unguarded } from '../../../src/throttling.js';
import { adminLogin } from '../../helpers/admin.js';

describe('accounts', () => {

  const t = useTestApp(async (t) => {
    await t.createUser('alice', { password: 'pw' });
    await t.createUser('retired', { password: 'pw', active: false });
    await t.createUser('plain', { password: 'pw', email: 'plain@example.com' });
    await t.createUser('root', { password: 'pw', email: 'root@example.com', staff: true });
  });

  const storedHash = async (username: string) =>
    (await t.services.accounts.findByUsername(username, { withHidden: true }))?.get('password');

  test('only the right password of an active account authenticates', async () => {
    const { accounts } = t.services;
    expect(await accounts.authenticate('alice', 'pw', unguarded)).toMatchObject({ username: 'alice', isStaff: false });
    expect(await accounts.authenticate('alice', 'wrong', unguarded)).toBeNull();
    expect(await accounts.authenticate('nobody', 'pw', unguarded)).toBeNull();
    expect(await accounts.authenticate('retired', 'pw', unguarded)).toBeNull();
  });

  test('a hash weaker than configured is replaced once, at the next successful login', async () => {
    const stronger = new Accounts(t.services.registry, new PasswordHasher(TEST_ITERATIONS * 2));
    const before = await storedHash('alice');
    expect(await stronger.authenticate('alice', 'wrong', unguarded)).toBeNull();
    expect(await storedHash('alice')).toBe(before);
    expect(await stronger.authenticate('alice', 'pw', unguarded)).not.toBeNull();
    const upgraded = await storedHash('alice');
    expect(upgraded).toMatch(new RegExp(`^pbkdf2_sha256\\$${TEST_ITERATIONS * 2}\\$`));
    expect(await stronger.authenticate('alice', 'pw', unguarded)).not.toBeNull();
    expect(await storedHash('alice')).toBe(upgraded);
  });

  test('the admin refuses an account that is not staff without upgrading its older hash, and upgrades a staff account at its login', async () => {
    const older = new PasswordHasher(TEST_ITERATIONS / 2);
    for (const username of ['plain', 'root']) {
      const row = await t.services.accounts.findByUsername(username, { withHidden: true });
      await row?.update({ password: await older.make('pw') });
    }
    const plainBefore = await storedHash('plain');
    expect((await adminLogin(t, 'plain@example.com', 'pw')).res.status).toBe(200);
    expect(await storedHash('plain')).toBe(plainBefore);
    expect((await adminLogin(t, 'root@example.com', 'pw')).res.status).toBe(302);
    expect(await storedHash('root')).toMatch(new RegExp(`^pbkdf2_sha256\\$${TEST_ITERATIONS}\\$`));
  });

  test.each([
    ['email', { username: 'other', email: 'ALICE@example.com' }],
    ['username', { username: 'alice', email: 'fresh@example.com' }],
  ])('a duplicate %s inserted by a concurrent writer is reported on that field', async (field, account) => {
    const model = t.services.registry.users().model;
    // As if another process inserted the same name between the check and the insert.
    const count = jest.spyOn(model, 'count').mockResolvedValue(0 as never);
    try {
      const attempt = t.services.accounts.create({ ...account, password: 'x' });
      await expect(attempt).rejects.toBeInstanceOf(ValidationError);
      await expect(attempt).rejects.toMatchObject({ fields: { [field]: [{ code: 'unique' }] } });
    } finally {
      count.mockRestore();
    }
  });
});
