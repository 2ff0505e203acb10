import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { QueryTypes } from 'sequelize';
import type { Browser, Page } from 'playwright-core';
import { projectRoot } from '../../src/paths.js';
import { openDatabase } from '../../src/db/database.js';
import { createChief, launchChromium, startDemoServer } from '../helpers/browser.js';

// A staff member exports a list and reads the audit log, on a fresh `npm start` with its demo data.
const screenshots = path.join(projectRoot, 'e2e-screenshots');

describe("a staff member with the admin's data", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-e2e-admin-data-'));
  const database = path.join(dir, 'db.sqlite3');
  const databaseUrl = `sqlite:${database}`;
  const env = { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, PASSWORD_HASH_ITERATIONS: '1000' };
  let child: ChildProcessWithoutNullStreams;
  let url = '';
  let browser: Browser;
  let page: Page;
  const at = (pathname: string) => new URL(pathname, url).href;
  const shot = (name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    ({ child, url } = await startDemoServer(database));
    createChief(env);
    browser = await launchChromium();
    page = await browser.newPage({ locale: 'en-US', viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    await page.goto(at('admin/login'));
    await page.locator('input[name="email"]').fill('chief');
    await page.locator('input[name="password"]').fill('chief-admin-pass');
    await page.locator('form button').click();
    await page.waitForURL(/\/admin$/);
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    child?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  test('exports the users list as filtered to a CSV file without any password hash', async () => {
    await page.goto(at('admin/resources/users?filters.username=chief'));
    await page.getByText('chief@example.com').first().waitFor();
    await page.getByTestId('action-export').first().click();
    const link = page.getByTestId('export-download');
    await link.waitFor();
    await shot('admin-data-01-export');
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe('users.csv');
    const text = readFileSync(await download.path(), 'utf8');
    expect(text.startsWith('\uFEFF')).toBe(true);
    const [header, ...rows] = text.slice(1).trim().split(/\r?\n/);
    expect(header?.split(',')).toContain('username');
    expect(header?.split(',')).not.toContain('password');
    expect(header?.split(',')).not.toContain('remember_token');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('chief@example.com');
    const database = openDatabase(databaseUrl);
    const hashes = await database.query<{ password: string }>('SELECT password FROM users', { type: QueryTypes.SELECT });
    await database.close();
    expect(hashes.length).toBeGreaterThan(1);
    for (const { password } of hashes) expect(text).not.toContain(password);
  });

  test('sees an edit in the audit log, with the old and the new value', async () => {
    await page.goto(at('admin/resources/comments/records/1/edit'));
    const title = page.locator('input[name="title"]');
    await title.waitFor();
    const old = await title.inputValue();
    await title.fill('Audited in the browser');
    await page.getByTestId('button-save').click();
    await page.getByText(/successfully/i).first().waitFor();
    await page.goto(at('admin/resources/admin_audit_log'));
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const row = page.locator('tr[data-id]', { hasText: 'Audited in the browser' }).first();
    await row.waitFor();
    expect(await row.textContent()).toContain('chief');
    // What was done, to which resource, in words: not the stored `edit` and `comments` in capitals.
    expect(await row.locator('td[data-property-name="action"]').innerText()).toBe('Changed');
    expect(await row.locator('td[data-property-name="resource"]').innerText()).toBe('Comment');
    await shot('admin-data-02-audit-log');
    await row.click();
    await page.waitForURL(/\/admin_audit_log\/records\/\d+\/show$/);
    await page.getByRole('heading', { name: 'Audit log entry' }).waitFor();
    await page.getByText(`title: ${JSON.stringify(old)} → "Audited in the browser"`).first().waitFor();
    await shot('admin-data-03-audit-entry');
  });
});
