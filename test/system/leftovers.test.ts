import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from '@jest/globals';
import { killRunningServers, PRODUCTION_ENV, spawnServer, startServerProcess, until, waitForUrl } from '../helpers/server.js';

/** The running processes (zombies left out: they are gone but not yet reaped), with their process group. */
function processes(): { pid: number; group: number }[] {
  const found: { pid: number; group: number }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // pid (comm) state ppid pgrp …; comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , group] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state !== 'Z') found.push({ pid: Number(entry), group: Number(group) });
    } catch {
      // It ended while the list was read.
    }
  }
  return found;
}

const groupAlive = (leader: number): boolean => processes().some(({ group }) => group === leader);
const alive = (pid: number): boolean => processes().some((found) => found.pid === pid);

/** The suite never waits on a server a test left behind: what a failed or timed-out start leaves is killed. */
describe('servers the tests start', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-leftovers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = (name: string) => ({ ...PRODUCTION_ENV, DATABASE_URL: `sqlite:${path.join(dir, `${name}.sqlite3`)}`, WEB_CONCURRENCY: '2' });

  test('a server that does not start in time is killed, and no process of it is left', async () => {
    const child = spawnServer(env('late'));
    const leader = child.pid ?? -1;
    await expect(waitForUrl(child, 1)).rejects.toThrow('did not start within 1 ms');
    await until(() => !groupAlive(leader), () => 'a process of the late server still runs', 10_000);
  });

  test('a cluster a test left running is killed after its file, its workers with it', async () => {
    const server = await startServerProcess(env('left'));
    await server.waitForLog(() => server.servingPids().length === 2);
    const pids = [server.pid, ...server.servingPids()];
    expect(pids.every(alive)).toBe(true);
    // What test/setup-after-env.ts does after every file, whatever its tests did.
    killRunningServers();
    await until(() => !pids.some(alive) && !groupAlive(server.pid), () => `still running: ${pids.filter(alive).join(', ')}`, 10_000);
    expect(await server.exited).toBeNull();
  }, 60_000);
});
