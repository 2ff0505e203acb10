import { describe, expect, test } from '@jest/globals';
import { FreshRead } from '../../../src/db/fresh-read.js';

/** A database stand-in: each read answers what was committed when it began, once the test ends it. */
function fakeDatabase() {
  let committed = 0;
  let started = 0;
  const underWay: ((error?: Error) => void)[] = [];
  return {
    read: () =>
      new Promise<number>((resolve, reject) => {
        const seen = committed;
        started += 1;
        underWay.push((error) => (error ? reject(error) : resolve(seen)));
      }),
    commit: () => void (committed += 1),
    /** How many reads were begun. */
    get reads() {
      return started;
    },
    /** Ends the oldest read under way, and lets what follows from it run. */
    async endOne(error?: Error) {
      underWay.shift()?.(error);
      await new Promise((resolve) => setImmediate(resolve));
    },
  };
}

describe('a read shared by callers asking close together', () => {
  test('a caller asking while no read is under way starts one of its own', async () => {
    const db = fakeDatabase();
    const fresh = new FreshRead(db.read);
    const first = fresh.get();
    expect(db.reads).toBe(1);
    await db.endOne();
    await expect(first).resolves.toBe(0);
    const second = fresh.get();
    expect(db.reads).toBe(2);
    await db.endOne();
    await expect(second).resolves.toBe(0);
  });

  test('callers asking while a read is under way share one read, begun once it ends', async () => {
    const db = fakeDatabase();
    const fresh = new FreshRead(db.read);
    const first = fresh.get();
    const [a, b, c] = [fresh.get(), fresh.get(), fresh.get()];
    expect(db.reads).toBe(1);
    await db.endOne();
    await expect(first).resolves.toBe(0);
    expect(db.reads).toBe(2);
    await db.endOne();
    expect(await Promise.all([a, b, c])).toEqual([0, 0, 0]);
  });

  test('a caller sees everything committed before it asked, even while an older read is under way', async () => {
    const db = fakeDatabase();
    const fresh = new FreshRead(db.read);
    const before = fresh.get();
    db.commit();
    const after = fresh.get();
    await db.endOne();
    expect(await before).toBe(0);
    await db.endOne();
    expect(await after).toBe(1);
  });

  test('a read that fails fails the callers that shared it, and the next caller reads again', async () => {
    const db = fakeDatabase();
    const fresh = new FreshRead(db.read);
    const first = fresh.get().catch((error: unknown) => error);
    // Asked while the first read is under way: they share the next one, which fails.
    const shared = [fresh.get(), fresh.get()].map((asked) => asked.catch((error: unknown) => error));
    await db.endOne();
    await db.endOne(new Error('database gone'));
    expect(await Promise.all(shared)).toEqual([new Error('database gone'), new Error('database gone')]);
    expect(await first).toBe(0);
    const again = fresh.get();
    await db.endOne();
    await expect(again).resolves.toBe(0);
  });

  test('callers waiting for the next read fail with the read under way when it fails, and start none of their own', async () => {
    const db = fakeDatabase();
    const fresh = new FreshRead(db.read);
    const first = fresh.get().catch((error: unknown) => error);
    const waiting = [fresh.get(), fresh.get()].map((asked) => asked.catch((error: unknown) => error));
    await db.endOne(new Error('database frozen'));
    expect(await first).toEqual(new Error('database frozen'));
    expect(db.reads).toBe(1);
    expect(await Promise.all(waiting)).toEqual([new Error('database frozen'), new Error('database frozen')]);
    const again = fresh.get();
    expect(db.reads).toBe(2);
    await db.endOne();
    await expect(again).resolves.toBe(0);
  });

  test('a read that throws instead of rejecting fails its caller, and the next caller reads again', async () => {
    let reads = 0;
    const fresh = new FreshRead<number>(() => {
      reads += 1;
      if (reads === 1) throw new Error('no statement');
      return Promise.resolve(reads);
    });
    await expect(fresh.get()).rejects.toThrow('no statement');
    await expect(fresh.get()).resolves.toBe(2);
  });
});
