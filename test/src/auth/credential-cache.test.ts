import { afterEach, beforeEach, describe, expect, jest, test } from '@jest/globals';
import { CachedPasswordCheck } from '../../../src/auth/credential-cache.js';
import { ApiError } from '../../../src/errors.js';
import { unguarded, type PasswordGuard } from '../../../src/throttling.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { manualClock } from '../../helpers/clock.js';

/**
 * HTTP Basic checks a password with PBKDF2 once, then trusts the keyed digest
 * of the same credentials for a while; every change to the account counts on
 * the very next request.
 */
describe('the HTTP Basic credential cache', () => {
  let t: TestApp;
  let passwordChecks: jest.SpiedFunction<TestApp['services']['accounts']['hasher']['check']>;
  const clock = manualClock();

  async function start(env: Record<string, string> = {}): Promise<void> {
    t = await createTestApp(env);
    await t.createUser('alice', { password: 'alice-pw' });
    passwordChecks = jest.spyOn(t.services.accounts.hasher, 'check');
  }

  const get = (username: string, password: string) => t.http.get('/comments/').auth(username, password);
  const users = () => t.services.registry.users().model;

  beforeEach(() => clock.install());
  afterEach(async () => {
    clock.restore();
    await t.close();
  });

  test('a password is hashed once for many requests with the same credentials', async () => {
    await start();
    for (let i = 0; i < 5; i += 1) expect((await get('alice', 'alice-pw')).status).toBe(200);
    expect(passwordChecks).toHaveBeenCalledTimes(1);
  });

  test('a wrong password is checked, and refused, every time, even after the right one was remembered', async () => {
    await start();
    expect((await get('alice', 'alice-pw')).status).toBe(200);
    for (let i = 0; i < 3; i += 1) expect((await get('alice', 'wrong')).status).toBe(401);
    expect(passwordChecks).toHaveBeenCalledTimes(4);
  });

  test('a failed check is never remembered as a success', async () => {
    await start();
    expect((await get('alice', 'not-yet')).status).toBe(401);
    await t.services.accounts.setPassword('alice', 'not-yet');
    expect((await get('alice', 'not-yet')).status).toBe(200);
    expect((await get('alice', 'alice-pw')).status).toBe(401);
  });

  test('a changed password refuses the old one on the very next request', async () => {
    await start();
    expect((await get('alice', 'alice-pw')).status).toBe(200);
    await t.services.accounts.setPassword('alice', 'new-pw');
    expect((await get('alice', 'alice-pw')).status).toBe(401);
    expect((await get('alice', 'new-pw')).status).toBe(200);
  });

  test('setting the same password again (a new salt) asks for the password once more and lets it in', async () => {
    await start();
    expect((await get('alice', 'alice-pw')).status).toBe(200);
    await t.services.accounts.setPassword('alice', 'alice-pw');
    expect((await get('alice', 'alice-pw')).status).toBe(200);
    expect(passwordChecks).toHaveBeenCalledTimes(2);
  });

  test('a deactivated account is refused on the very next request, and let in again once reactivated', async () => {
    await start();
    expect((await get('alice', 'alice-pw')).status).toBe(200);
    await users().update({ is_active: false }, { where: { username: 'alice' } });
    expect((await get('alice', 'alice-pw')).status).toBe(401);
    await users().update({ is_active: true }, { where: { username: 'alice' } });
    expect((await get('alice', 'alice-pw')).status).toBe(200);
  });

  test('a deleted account is refused on the very next request', async () => {
    await start();
    expect((await get('alice', 'alice-pw')).status).toBe(200);
    await users().destroy({ where: { username: 'alice' } });
    const res = await get('alice', 'alice-pw');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'ユーザ名かパスワードが違います。' });
  });

  test('a renamed account no longer answers to its old name', async () => {
    await start();
    expect((await get('alice', 'alice-pw')).status).toBe(200);
    await users().update({ username: 'alicia' }, { where: { username: 'alice' } });
    expect((await get('alice', 'alice-pw')).status).toBe(401);
    expect((await get('alicia', 'alice-pw')).status).toBe(200);
  });

  test('credentials that read as a remembered pair once run together are checked on their own, and refused', async () => {
    await start();
    expect((await get('alice', 'alice-pw')).status).toBe(200);
    expect((await get('alic', 'ealice-pw')).status).toBe(401);
    expect((await get('alicealice-', 'pw')).status).toBe(401);
  });

  test('rights granted after the password was remembered count on the next request', async () => {
    await start();
    await t.createUser('bob', { password: 'bob-pw' });
    const comment = await t.http.post('/comments/').auth('bob', 'bob-pw').send({ title: 'bob', body: 'text' });
    const edit = () => t.http.patch(`/comments/${comment.body.id as number}/`).auth('alice', 'alice-pw').send({ title: 'staff' });
    expect((await edit()).status).toBe(403);
    await users().update({ is_staff: true }, { where: { username: 'alice' } });
    expect((await edit()).status).toBe(200);
  });

  test('credentials are hashed again once their time is over', async () => {
    await start({ BASIC_AUTH_CACHE_SECONDS: '60' });
    expect((await get('alice', 'alice-pw')).status).toBe(200);
    clock.advance(59_000);
    expect((await get('alice', 'alice-pw')).status).toBe(200);
    expect(passwordChecks).toHaveBeenCalledTimes(1);
    clock.advance(2_000);
    expect((await get('alice', 'alice-pw')).status).toBe(200);
    expect(passwordChecks).toHaveBeenCalledTimes(2);
  });

  test('BASIC_AUTH_CACHE_SECONDS=0 hashes the password on every request', async () => {
    await start({ BASIC_AUTH_CACHE_SECONDS: '0' });
    for (let i = 0; i < 3; i += 1) expect((await get('alice', 'alice-pw')).status).toBe(200);
    expect(passwordChecks).toHaveBeenCalledTimes(3);
  });

  test('a remembered password lets its client in where failures of the account have refused further checks', async () => {
    await start({ LOGIN_RATE_ACCOUNT_ADDRESS: '2/hour' });
    expect((await get('alice', 'alice-pw')).status).toBe(200);
    for (let i = 0; i < 3; i += 1) await get('alice', `guess-${i}`);
    expect((await get('alice', 'guess-x')).status).toBe(429);
    expect((await get('alice', 'alice-pw')).status).toBe(200);
  });

  describe('simultaneous first checks (called in one tick, as concurrent requests arrive)', () => {
    const cache = () => new CachedPasswordCheck(t.services.accounts, { ttlSeconds: 60, maxEntries: 10 });

    test('share one password check for the same credentials', async () => {
      await start();
      const check = cache();
      const users = await Promise.all(Array.from({ length: 8 }, () => check.authenticate('alice', 'alice-pw', unguarded)));
      expect(users.map((user) => user?.username)).toEqual(Array(8).fill('alice'));
      expect(passwordChecks).toHaveBeenCalledTimes(1);
    });

    test('share one refusal for the same wrong password, and the next one is checked again', async () => {
      await start();
      const check = cache();
      expect(await Promise.all(Array.from({ length: 4 }, () => check.authenticate('alice', 'wrong', unguarded)))).toEqual(Array(4).fill(null));
      expect(passwordChecks).toHaveBeenCalledTimes(1);
      expect(await check.authenticate('alice', 'wrong', unguarded)).toBeNull();
      expect(passwordChecks).toHaveBeenCalledTimes(2);
    });

    /** Holds the next password hashing until released; resolves `started` once it has begun. */
    function holdNextHashing(): { started: Promise<void>; release: () => void } {
      const hasher = t.services.accounts.hasher;
      let release!: () => void;
      let begun!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      const started = new Promise<void>((resolve) => (begun = resolve));
      const check = hasher.check.bind(hasher);
      passwordChecks.mockImplementationOnce(async (password, stored) => {
        begun();
        await released;
        return check(password, stored);
      });
      // A name that is no account costs one hashing too.
      const spend = hasher.spendTimeOfOneCheck.bind(hasher);
      jest.spyOn(hasher, 'spendTimeOfOneCheck').mockImplementationOnce(async (password) => {
        begun();
        await released;
        return spend(password);
      });
      return { started, release };
    }

    /**
     * Two requests with the same credentials: the first one's check is held
     * while `change` commits, then the second comes and joins it; the check
     * is let go. Their answers, as usernames (null: refused).
     */
    async function acrossAChange(username: string, password: string, change: () => Promise<unknown>): Promise<[string | null, string | null]> {
      await start();
      const check = cache();
      const hashing = holdNextHashing();
      const before = check.authenticate(username, password, unguarded);
      await hashing.started;
      await change();
      const after = check.authenticate(username, password, unguarded);
      hashing.release();
      return [(await before)?.username ?? null, (await after)?.username ?? null];
    }

    test('do not let in a request that came after a password change on a check begun before it', async () => {
      expect(await acrossAChange('alice', 'alice-pw', () => t.services.accounts.setPassword('alice', 'new-pw'))).toEqual(['alice', null]);
      expect(await cache().authenticate('alice', 'new-pw', unguarded)).toMatchObject({ username: 'alice' });
    });

    test('do not let in a request that came after a deactivation on a check begun before it', async () => {
      const [, after] = await acrossAChange('alice', 'alice-pw', () => users().update({ is_active: false }, { where: { username: 'alice' } }));
      expect(after).toBeNull();
    });

    test('do not refuse a request that came after its password was set on a check begun before it', async () => {
      expect(await acrossAChange('alice', 'new-pw', () => t.services.accounts.setPassword('alice', 'new-pw'))).toEqual([null, 'alice']);
    });

    test('do not refuse a request that came after its account was created on a check begun before it', async () => {
      expect(await acrossAChange('bob', 'bob-pw', () => t.createUser('bob', { password: 'bob-pw' }))).toEqual([null, 'bob']);
    });

    test("do not pass one client's throttle refusal on to another client", async () => {
      await start();
      const check = cache();
      const throttledAddress: PasswordGuard = () => Promise.reject(new ApiError('throttled'));
      const [refused, admitted] = await Promise.allSettled([
        check.authenticate('alice', 'alice-pw', throttledAddress),
        check.authenticate('alice', 'alice-pw', unguarded),
      ]);
      expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'throttled' } });
      expect(admitted).toMatchObject({ status: 'fulfilled', value: { username: 'alice' } });
    });
  });

  test('the least recently used credentials are forgotten first when the cache is full', async () => {
    await start();
    await t.createUser('bob', { password: 'bob-pw' });
    await t.createUser('carol', { password: 'carol-pw' });
    const cache = new CachedPasswordCheck(t.services.accounts, { ttlSeconds: 60, maxEntries: 2 });
    for (const name of ['alice', 'bob', 'alice', 'carol']) {
      expect(await cache.authenticate(name, `${name}-pw`, unguarded)).toMatchObject({ username: name });
    }
    passwordChecks.mockClear();
    await cache.authenticate('alice', 'alice-pw', unguarded);
    await cache.authenticate('carol', 'carol-pw', unguarded);
    expect(passwordChecks).not.toHaveBeenCalled();
    await cache.authenticate('bob', 'bob-pw', unguarded);
    expect(passwordChecks).toHaveBeenCalledTimes(1);
  });
});
