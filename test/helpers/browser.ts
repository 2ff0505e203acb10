import { execFileSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { projectRoot } from '../../src/paths.js';
import { chromium, type Browser } from 'playwright-core';
import { spawnServer, startTimeout, waitForUrl } from './server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's chromium, headless, with a fresh profile of playwright's own; nothing that would reach the network by itself. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
}

const MANAGE = path.join(projectRoot, 'dist/src/cli/manage.js');

/** The superuser the admin's browser tests log in as. */
export const CHIEF = { username: 'chief', email: 'chief@example.com', password: 'chief-admin-pass' } as const;

/** Creates CHIEF with `manage createsuperuser`, as an operator would, on the database `env` names. */
export function createChief(env: Record<string, string>): void {
  execFileSync(process.execPath, [MANAGE, 'createsuperuser', '--username', CHIEF.username, '--email', CHIEF.email, '--password', CHIEF.password], { env });
}

/** The built server as `npm start` runs it (demo data loaded) on a database file of its own, at any free port; `env` adds settings. */
export async function startDemoServer(databaseFile: string, env: Record<string, string> = {}): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const child = spawnServer({ DATABASE_URL: `sqlite:${databaseFile}`, PORT: '0', HOST: '127.0.0.1', PASSWORD_HASH_ITERATIONS: '1000', ...env });
  return { child, url: await waitForUrl(child, startTimeout(2)) };
}
