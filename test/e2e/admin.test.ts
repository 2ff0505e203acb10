import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { request, type APIRequestContext, type Browser, type Page } from 'playwright-core';
import { projectRoot } from '../../src/paths.js';
import { createChief, launchChromium } from '../helpers/browser.js';
import { spawnServer, startTimeout, waitForUrl } from '../helpers/server.js';

// A staff member's visit to the admin of a fresh `npm start`, with a superuser made by `manage createsuperuser`.
const screenshots = path.join(projectRoot, 'e2e-screenshots');

describe('a staff member in the admin', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-e2e-admin-'));
  const env = { PATH: process.env.PATH ?? '', DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite3')}`, PASSWORD_HASH_ITERATIONS: '1000' };
  let child: ChildProcessWithoutNullStreams;
  let url = '';
  let browser: Browser;
  let page: Page;
  let api: APIRequestContext;
  const external: string[] = [];
  /** What the browser refused to run or load because of the Content-Security-Policy. */
  const refusedByPolicy: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
  const at = (pathname: string) => new URL(pathname, url).href;
  const saved = () => page.getByText(/successfully/i).first().waitFor();

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    child = spawnServer({ ...env, PORT: '0', HOST: '127.0.0.1' });
    url = await waitForUrl(child, startTimeout(2));
    api = await request.newContext({ baseURL: url });
    // The admin answers as soon as the server does: its bundle was built by `npm run build`.
    expect((await api.get('admin/login')).status()).toBe(200);
    createChief(env);
    browser = await launchChromium();
    page = await browser.newPage({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
    page.on('request', (sent) => {
      if (new URL(sent.url()).host !== new URL(url).host) external.push(sent.url());
    });
  }, 60_000);

  afterAll(async () => {
    await api?.dispose();
    await browser?.close();
    child?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  test('logs in with the email address of the superuser made by the CLI', async () => {
    await page.goto(at('admin'));
    await page.waitForURL(/\/admin\/login$/);
    await page.locator('input[name="email"]').fill('chief@example.com');
    await page.locator('input[name="password"]').fill('chief-admin-pass');
    await shot('admin-01-login');
    // AdminJS's login button has no type=submit.
    await page.locator('form button').click();
    await page.waitForURL(/\/admin$/);
    await page.getByTestId('dashboard').waitFor();
    await shot('admin-02-dashboard');
  });

  test('creates a user who can then log in to the API', async () => {
    await page.goto(at('admin/resources/users/actions/new'));
    await page.locator('input[name="username"]').fill('dora');
    await page.locator('input[name="email"]').fill('dora@example.com');
    await page.locator('input[name="name"]').fill('Dora Explorer');
    await page.locator('input[name="password"]').fill('dora-secret-pass');
    await shot('admin-03-new-user');
    await page.getByTestId('button-save').click();
    await saved();
    await shot('admin-04-user-created');
    const login = await api.post('api/login', { form: { email: 'dora@example.com', password: 'dora-secret-pass' } });
    expect(login.status()).toBe(201);
  });

  test('edits a comment', async () => {
    await page.goto(at('admin/resources/comments/records/1/edit'));
    const title = page.locator('input[name="title"]');
    await title.fill('Edited in the admin');
    await page.getByTestId('button-save').click();
    await saved();
    await shot('admin-05-comment-edited');
    const basic = `Basic ${Buffer.from('chief:chief-admin-pass').toString('base64')}`;
    const comment = await api.get('comments/1/', { headers: { Authorization: basic, Accept: 'application/json' } });
    expect(((await comment.json()) as { title: string }).title).toBe('Edited in the admin');
  });

  test('is warned instead of overwriting a comment someone changed after the form was opened, and reloads to see it', async () => {
    const basic = `Basic ${Buffer.from('chief:chief-admin-pass').toString('base64')}`;
    const headers = { Authorization: basic, Accept: 'application/json' };
    await page.goto(at('admin/resources/comments/records/1/edit'));
    const title = page.locator('input[name="title"]');
    await title.waitFor();
    // Someone else changes the comment through the API while the form is open.
    const patched = await api.patch('comments/1/', { headers, data: { title: 'From API' } });
    expect(patched.status()).toBe(200);
    await title.fill('Typed in the admin');
    await page.getByTestId('button-save').click();
    const warning = page.getByTestId('edit-conflict');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('Someone changed this row after you opened this form, so nothing was saved.');
    expect(await page.getByText('Someone else changed this field after you opened this form.').count()).toBe(1);
    // The form keeps what was typed; the row keeps the other change.
    expect(await title.inputValue()).toBe('Typed in the admin');
    await shot('admin-06-edit-conflict');
    const comment = await api.get('comments/1/', { headers });
    expect(((await comment.json()) as { title: string }).title).toBe('From API');
    // Reloading shows the row as it is now, and a save from there goes through.
    await page.getByTestId('edit-conflict-reload').click();
    const current = page.locator('input[name="title"]');
    // The page loads again, then the row (the admin's pages run no script of a test's: no waitForFunction).
    for (let tries = 0; tries < 100 && (await current.inputValue({ timeout: 1000 }).catch(() => '')) !== 'From API'; tries++) await page.waitForTimeout(100);
    expect(await current.inputValue()).toBe('From API');
    expect(await page.getByTestId('edit-conflict').count()).toBe(0);
    await current.fill('After reload');
    await page.getByTestId('button-save').click();
    await saved();
    const after = await api.get('comments/1/', { headers });
    expect(((await after.json()) as { title: string }).title).toBe('After reload');
  });

  test('is told, and saves nothing, when the row was deleted after the form was opened', async () => {
    const headers = { Authorization: `Basic ${Buffer.from('chief:chief-admin-pass').toString('base64')}`, Accept: 'application/json' };
    const created = await api.post('comments/', { headers, data: { title: 'Doomed', body: 'Soon gone' } });
    expect(created.status()).toBe(201);
    const { id } = (await created.json()) as { id: number };
    await page.goto(at(`admin/resources/comments/records/${id}/edit`));
    const title = page.locator('input[name="title"]');
    await title.waitFor();
    expect((await api.delete(`comments/${id}/`, { headers })).status()).toBe(204);
    await title.fill('Typed for nothing');
    await page.getByTestId('button-save').click();
    const warning = page.locator('[data-testid="edit-conflict"][data-conflict="deleted"]');
    await warning.waitFor();
    expect(await warning.textContent()).toContain('Someone deleted this row after you opened this form, so nothing was saved.');
    expect(await page.getByTestId('button-save').isDisabled()).toBe(true);
    await shot('admin-06b-edit-deleted');
    await page.getByTestId('edit-conflict-list').click();
    await page.waitForURL(/\/admin\/resources\/comments(\?|$)/);
  });

  test('revokes a token, which stops working at once', async () => {
    const login = await api.post('api/login', { form: { email: 'alice@example.com', password: 'alice-demo-pass' } });
    const { token } = (await login.json()) as { token: string };
    const bearer = { Authorization: `Bearer ${token}` };
    expect((await api.get('api/user', { headers: bearer })).status()).toBe(200);
    await page.goto(at('admin/resources/personal_access_tokens'));
    await page.getByText('Alice Example').first().waitFor();
    await shot('admin-06-tokens');
    const id = token.split('|')[0];
    await page.goto(at(`admin/resources/personal_access_tokens/records/${id}/show`));
    await page.getByTestId('action-delete').first().click();
    await page.getByRole('button', { name: 'Confirm' }).click();
    await saved();
    await shot('admin-07-token-revoked');
    expect((await api.get('api/user', { headers: bearer })).status()).toBe(401);
  });

  test('sees the admin in Japanese when the browser prefers it', async () => {
    const ja = await browser.newPage({ locale: 'ja-JP' });
    await ja.goto(at('admin/login'));
    await ja.getByText('メールアドレスまたはユーザ名').first().waitFor();
    await ja.screenshot({ path: path.join(screenshots, 'admin-08-login-ja.png'), fullPage: true });
    await ja.close();
  });

  test('made no request outside the product, and the security policy refused nothing the admin uses', () => {
    expect(external).toEqual([]);
    expect(refusedByPolicy).toEqual([]);
  });
});
