import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from '@jest/globals';
import { projectRoot } from '../../src/paths.js';
import { startTimeout } from '../helpers/server.js';

// `manage` as a person runs it at a terminal: util-linux's `script` gives it a pseudo-terminal, so the prompts are the real ones.
const MANAGE = path.join(projectRoot, 'dist/src/cli/manage.js');

/** A prompt as it is first drawn (`? Label` and the cursor's move); typing redraws it with the text after a space. */
const freshPrompt = (label: string): RegExp => new RegExp(`\\? ${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\u001b\\[`);

interface Session {
  status: number | null;
  /** What the terminal showed, its escape sequences removed. */
  screen: string;
}

const sessions = new Set<ChildProcessWithoutNullStreams>();

/** Runs `manage args` in a terminal, typing each answer once its prompt is drawn; resolves when it exits. */
function atTerminal(args: string[], env: Record<string, string>, dialogue: [prompt: string, answer: string][]): Promise<Session> {
  const command = [process.execPath, MANAGE, ...args].map((word) => `'${word.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], { env: { PATH: process.env.PATH ?? '', TERM: 'dumb', ...env }, detached: true });
  sessions.add(child);
  const waiting = [...dialogue];
  let output = '';
  let from = 0;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      process.kill(-(child.pid ?? 0), 'SIGKILL');
      reject(new Error(`no end after ${startTimeout()} ms; still waiting for ${waiting[0]?.[0]}: ${output}`));
    }, startTimeout());
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const next = waiting[0];
      const match = next ? freshPrompt(next[0]).exec(output.slice(from)) : null;
      if (!next || !match) return;
      from += match.index + match[0].length;
      waiting.shift();
      child.stdin.write(`${next[1]}\r`);
    });
    child.on('close', (status) => {
      clearTimeout(timer);
      sessions.delete(child);
      resolve({ status, screen: output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '') });
    });
  });
}

describe('manage at a terminal', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-cli-terminal-'));
  const env = { DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite3')}`, PASSWORD_HASH_ITERATIONS: '1000' };

  beforeAll(() => {
    const migrated = spawnSync(process.execPath, [MANAGE, 'migrate'], { env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8' });
    expect(migrated.status).toBe(0);
  });
  afterEach(() => {
    for (const child of sessions) if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    sessions.clear();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('createsuperuser asks again after passwords that differ and after a short one, and never shows a password', async () => {
    const { status, screen } = await atTerminal(['createsuperuser'], env, [
      ['Username', 'root'],
      ['Email address', 'root@example.com'],
      ['Password', 'amber-orchard-71'],
      ['Password (again)', 'amber-orchard-72'],
      ['Password', 'x'],
      ['Password (again)', 'x'],
      ['Bypass password validation and create user anyway? (y/N)', 'N'],
      ['Password', 'amber-orchard-71'],
      ['Password (again)', 'amber-orchard-71'],
    ]);
    expect(screen).toContain("Error: Your passwords didn't match.");
    expect(screen).toContain('This password is too short. It must contain at least 8 characters.');
    expect(screen).toContain('Superuser "root" created.');
    expect(screen).not.toContain('amber-orchard');
    expect(status).toBe(0);
  });

  test('createsuperuser asks again at once for an email address that is not one, keeping the answers before it', async () => {
    const { status, screen } = await atTerminal(['createsuperuser'], env, [
      ['Username', 'second'],
      ['Email address', 'not-an-address'],
      ['Email address', 'second@example.com'],
      ['Password', 'amber-orchard-71'],
      ['Password (again)', 'amber-orchard-71'],
    ]);
    expect(screen).toContain('Error: Email address: Enter a valid email address.');
    expect(screen.match(/✔ Username/g)).toHaveLength(1);
    expect(screen.match(/✔ Email address/g)).toHaveLength(2);
    expect(screen).toContain('Superuser "second" created.');
    expect(status).toBe(0);
  });

  test('changepassword asks for the new password twice, hidden, and changes it', async () => {
    const { status, screen } = await atTerminal(['changepassword', 'root'], env, [
      ['Password', 'cedar-lantern-93'],
      ['Password (again)', 'cedar-lantern-93'],
    ]);
    expect(screen).not.toContain('cedar-lantern');
    expect(screen).toContain('Password changed for user "root".');
    expect(status).toBe(0);
  });
});
