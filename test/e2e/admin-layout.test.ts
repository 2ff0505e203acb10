import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { request, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { QueryTypes, Sequelize } from 'sequelize';
import { projectRoot } from '../../src/paths.js';
import { createChief, launchChromium, startDemoServer } from '../helpers/browser.js';

// The admin of a fresh `npm start` on a desktop (1280 × 800) and on a phone (390 × 844), in English and in Japanese,
// its server in Tokyo's time zone and the browser in New York's.
const screenshots = path.join(projectRoot, 'e2e-screenshots');
const WIDE = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const TIME_ZONE = 'Asia/Tokyo';
const BROWSER_TIME_ZONE = 'America/New_York';

/** An instant as the admin shows it, in Tokyo (UTC+9, no daylight saving time): `YYYY-MM-DD HH:mm`. */
const inTokyo = (iso: string): string => new Date(Date.parse(iso) + 9 * 3_600_000).toISOString().slice(0, 16).replace('T', ' ');

describe('the admin on a desktop and on a phone', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-e2e-admin-layout-'));
  const database = path.join(dir, 'db.sqlite3');
  const env = { PATH: process.env.PATH ?? '', DATABASE_URL: `sqlite:${database}`, PASSWORD_HASH_ITERATIONS: '1000' };
  let child: ChildProcessWithoutNullStreams;
  let url = '';
  let browser: Browser;
  const contexts: Partial<Record<'en' | 'ja', { context: BrowserContext; page: Page }>> = {};
  const at = (pathname: string) => new URL(pathname, url).href;

  /** A page of a staff member logged in with a browser that prefers `language`. */
  async function staffPage(language: 'en' | 'ja'): Promise<Page> {
    const existing = contexts[language];
    if (existing) return existing.page;
    const context = await browser.newContext({ locale: language === 'en' ? 'en-US' : 'ja-JP', viewport: WIDE, timezoneId: BROWSER_TIME_ZONE });
    const page = await context.newPage();
    // The form is the page script's: filled once that script has settled, and checked before it is sent (a
    // login in Japanese now and then stayed on the login page when it was filled as soon as the inputs appeared).
    await page.goto(at('admin/login'), { waitUntil: 'networkidle' });
    const email = page.locator('input[name="email"]');
    const password = page.locator('input[name="password"]');
    await email.fill('chief@example.com');
    await password.fill('chief-admin-pass');
    expect([await email.inputValue(), await password.inputValue()]).toEqual(['chief@example.com', 'chief-admin-pass']);
    await page.locator('form button').click();
    await page.waitForURL(/\/admin$/);
    contexts[language] = { context, page };
    return page;
  }

  /** How far the page, or AdminJS's scrolling content pane, is wider than the window, in CSS pixels (0: no sideways scrolling). */
  const overflow = async (page: Page) => {
    const widths = await page.evaluate(`[document.documentElement, document.querySelector('[data-css="app-content"]')].map((element) => element.scrollWidth - element.clientWidth)`);
    return Math.max(...(widths as number[]));
  };
  const heading = (page: Page) => page.locator('h2').first();
  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });

  async function count(table: string): Promise<number> {
    const db = new Sequelize(`sqlite:${database}`, { logging: false });
    try {
      const [row] = await db.query<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`, { type: QueryTypes.SELECT });
      return Number(row?.n);
    } finally {
      await db.close();
    }
  }

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    ({ child, url } = await startDemoServer(database, { TIME_ZONE }));
    createChief(env);
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    for (const { context } of Object.values(contexts)) await context.close();
    await browser?.close();
    child?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  test('at 1280 px the sidebar is open beside the page, with no menu button', async () => {
    const page = await staffPage('en');
    await page.setViewportSize(WIDE);
    await page.goto(at('admin/resources/comments'));
    const sidebar = page.locator('[data-css="sidebar"]').first();
    const link = sidebar.getByRole('link', { name: 'Comments' });
    await link.waitFor();
    expect((await link.boundingBox())?.x).toBeGreaterThanOrEqual(0);
    const box = await sidebar.boundingBox();
    expect(box?.x).toBe(0);
    // The page's content starts where the sidebar ends, not under it.
    expect((await heading(page).boundingBox())?.x).toBeGreaterThanOrEqual((box?.x ?? 0) + (box?.width ?? 0));
    expect(await page.locator('[data-css="topbar"] svg').first().isVisible()).toBe(false);
    await shot(page, 'admin-layout-01-wide-list');
  });

  test('at 1024 px the sidebar is open too, and a list wider than the rest of the window scrolls inside its box', async () => {
    const page = await staffPage('en');
    await page.setViewportSize({ width: 1024, height: 768 });
    try {
      await page.goto(at('admin/resources/users'));
      await page.locator('[data-css="sidebar"]').first().getByRole('link', { name: 'Users' }).waitFor();
      expect((await page.locator('[data-css="sidebar"]').first().boundingBox())?.x).toBe(0);
      const active = page.locator('tr[data-id] td[data-property-name="is_active"]').first();
      await active.waitFor();
      expect(await overflow(page)).toBe(0);
      // The last column is there, reached by scrolling the table's box.
      await active.scrollIntoViewIfNeeded();
      expect(await active.isVisible()).toBe(true);
    } finally {
      await page.setViewportSize(WIDE);
    }
  });

  test('at 390 px the sidebar waits behind the menu button', async () => {
    const page = await staffPage('en');
    await page.setViewportSize(PHONE);
    await page.goto(at('admin/resources/comments'));
    await heading(page).waitFor();
    const sidebar = page.locator('[data-css="sidebar"]').first();
    expect(((await sidebar.boundingBox())?.x ?? 0) + ((await sidebar.boundingBox())?.width ?? 0)).toBeLessThanOrEqual(0);
    await page.locator('[data-css="topbar"] > :first-child').click();
    await sidebar.getByRole('link', { name: 'Users' }).click();
    await page.waitForURL(/\/admin\/resources\/users$/);
  });

  test('at 390 px every row of a list shows its id and title, and the page does not scroll sideways', async () => {
    const page = await staffPage('en');
    await page.setViewportSize(PHONE);
    await page.goto(at('admin/resources/comments'));
    const rows = page.locator('tr[data-id]');
    await rows.first().waitFor();
    expect(await rows.count()).toBeGreaterThan(1);
    for (const row of await rows.all()) {
      const id = row.locator('td[data-property-name="id"]');
      const title = row.locator('td[data-property-name="title"]');
      expect(await id.isVisible()).toBe(true);
      expect(await title.isVisible()).toBe(true);
      expect((await id.innerText()).trim()).toBe(await row.getAttribute('data-id'));
      expect((await title.innerText()).trim()).not.toBe('');
      // Both inside the window, without scrolling the table.
      const box = await title.boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(PHONE.width);
    }
    expect(await overflow(page)).toBe(0);
    await shot(page, 'admin-layout-02-phone-list');
    await page.goto(at('admin/resources/users'));
    await page.locator('tr[data-id] td[data-property-name="username"]').first().waitFor({ state: 'visible' });
    expect(await overflow(page)).toBe(0);
  });

  test('at 390 px the users list shows username, email and staff whole, inside the window, and leaves the id, name and other flags to wider screens', async () => {
    const shown = ['username', 'email', 'is_staff'];
    const left = ['id', 'name', 'is_superuser', 'is_active'];
    for (const language of ['en', 'ja'] as const) {
      const page = await staffPage(language);
      await page.setViewportSize(PHONE);
      await page.goto(at('admin/resources/users'));
      await page.locator('tr[data-id]').first().waitFor();
      // Every row's cells measured at once (a string: the tests have no DOM types): a cell is shown whole when nothing of it is cut off with an ellipsis.
      const cells = (await page.evaluate(`[...document.querySelectorAll('tr[data-id] td[data-property-name]')].map((td) => ({
        name: td.dataset.propertyName, shown: td.getClientRects().length > 0, right: td.getBoundingClientRect().right,
        whole: td.scrollWidth <= td.clientWidth, text: td.innerText.trim() }))`)) as { name: string; shown: boolean; right: number; whole: boolean; text: string }[];
      const rows = cells.filter((cell) => cell.name === 'username').length;
      expect(rows).toBeGreaterThan(1);
      for (const name of shown) {
        const column = cells.filter((cell) => cell.name === name);
        expect(column).toHaveLength(rows);
        for (const cell of column) expect({ language, ...cell, inside: cell.right <= PHONE.width }).toMatchObject({ shown: true, whole: true, inside: true, text: expect.stringMatching(/./) });
      }
      for (const name of left) expect([language, name, cells.filter((cell) => cell.name === name && cell.shown)]).toEqual([language, name, []]);
      // The header shows the same three columns (beside the checkbox's and the actions' cells, which have no text).
      const headings = (await page.locator('thead tr').first().locator('> :visible').allInnerTexts()).map((text) => text.trim()).filter((text) => text !== '');
      expect(headings).toEqual(language === 'en' ? ['Username', 'Email address', 'Staff'] : ['ユーザ名', 'メールアドレス', 'スタッフ']);
      expect(await overflow(page)).toBe(0);
      await shot(page, `admin-layout-02b-phone-users-${language}`);
      // A desktop shows every column.
      await page.setViewportSize(WIDE);
      const wide = page.locator('tr[data-id]').first();
      for (const name of [...shown, ...left]) expect([name, await wide.locator(`td[data-property-name="${name}"]`).isVisible()]).toEqual([name, true]);
    }
    // Two languages, the first Japanese page logging in: as long as the Japanese titles' test below.
  }, 150_000);

  test('at 390 px the show, edit and new pages and the dashboard do not scroll sideways, even for a long word', async () => {
    const page = await staffPage('en');
    await page.setViewportSize(PHONE);
    const api = await request.newContext({ baseURL: url });
    const login = await api.post('api/login', { form: { email: 'chief@example.com', password: 'chief-admin-pass' } });
    const { token } = (await login.json()) as { token: string };
    const long = await api.post('api/comments', {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
      data: { title: 'A long word', body: `https://example.com/${'a'.repeat(200)}` },
    });
    expect(long.status()).toBe(201);
    const { comment } = (await long.json()) as { comment: { id: number } };
    await api.dispose();
    for (const [pathname, name] of [
      [`admin/resources/comments/records/${comment.id}/show`, 'long-show'],
      ['admin/resources/comments/records/1/show', 'show'],
      ['admin/resources/comments/records/1/edit', 'edit'],
      ['admin/resources/users/records/1/edit', 'user-edit'],
      ['admin/resources/comments/actions/new', 'new'],
      ['admin', 'dashboard'],
    ]) {
      await page.goto(at(pathname!));
      await heading(page).waitFor();
      if (name === 'dashboard') await page.getByTestId('dashboard-loaded').waitFor();
      else await page.locator('[data-testid^="property-"]').first().waitFor();
      expect([name, await overflow(page)]).toEqual([name, 0]);
      await shot(page, `admin-layout-03-phone-${name}`);
    }
  });

  test('the dashboard counts the rows of every resource as the database holds them, and links to their lists', async () => {
    const page = await staffPage('en');
    await page.setViewportSize(WIDE);
    await page.goto(at('admin'));
    await page.getByTestId('dashboard-loaded').waitFor();
    for (const table of ['comments', 'users', 'personal_access_tokens']) {
      const entry = page.getByTestId(`dashboard-count-${table}`);
      expect(Number(await entry.getByTestId('dashboard-count').innerText())).toBe(await count(table));
    }
    await shot(page, 'admin-layout-04-dashboard');
    await page.getByTestId('dashboard-count-comments').getByRole('link', { name: 'Comments' }).click();
    await page.waitForURL(/\/admin\/resources\/comments$/);
  });

  test('the dashboard shows the latest comments, linking to them, and the latest sign-in', async () => {
    const page = await staffPage('en');
    await page.goto(at('admin'));
    const latest = page.getByTestId('dashboard-latest-comments').getByTestId('dashboard-row');
    await latest.first().waitFor();
    expect(await latest.count()).toBe(5);
    const logins = page.getByTestId('dashboard-logins');
    // The superuser made by the CLI has no name: the username names them.
    await logins.getByText('chief').first().waitFor();
    await latest.first().getByRole('link').click();
    await page.waitForURL(/\/admin\/resources\/comments\/records\/\d+\/show$/);
  });

  test("times read alike on the dashboard, a list and a row's page: YYYY-MM-DD HH:mm in the server's TIME_ZONE, not the browser's", async () => {
    const page = await staffPage('en');
    await page.setViewportSize(WIDE);
    await page.goto(at('admin'));
    const latest = page.getByTestId('dashboard-latest-comments').getByTestId('dashboard-row').first();
    const time = latest.locator('time');
    await time.waitFor();
    const iso = await time.getAttribute('datetime');
    expect(iso).toMatch(/^\d{4}-\d\d-\d\dT/);
    const shown = await time.innerText();
    expect(shown).toBe(inTokyo(iso!));
    // A sign-in's time too.
    const login = page.getByTestId('dashboard-logins').locator('time').first();
    expect(await login.innerText()).toBe(inTokyo((await login.getAttribute('datetime'))!));
    const id = /records\/(\d+)\/show$/.exec((await latest.getByRole('link').getAttribute('href')) ?? '')?.[1];
    expect(id).toBeDefined();
    await page.goto(at('admin/resources/comments'));
    const cell = page.locator(`tr[data-id="${id}"] td[data-property-name="updated_at"]`);
    await cell.waitFor();
    expect((await cell.innerText()).trim()).toBe(shown);
    await page.goto(at(`admin/resources/comments/records/${id}/show`));
    const field = page.getByTestId('property-show-updated_at');
    await field.waitFor();
    expect(await field.innerText()).toContain(shown);
    // Three admin pages.
  }, 120_000);

  test("the audit log's badges say what was done to which resource in Japanese, as the dashboard's own changes do", async () => {
    const page = await staffPage('ja');
    await page.setViewportSize(WIDE);
    await page.goto(at('admin/resources/comments/records/2/edit'));
    const title = page.locator('input[name="title"]');
    await title.waitFor();
    await title.fill('監査される');
    await page.getByTestId('button-save').click();
    await page.getByText('保存しました。').first().waitFor();
    await page.goto(at('admin/resources/admin_audit_log'));
    const row = page.locator('tr[data-id]', { hasText: '監査される' }).first();
    await row.waitFor();
    expect(await row.locator('td[data-property-name="action"]').innerText()).toBe('変更');
    expect(await row.locator('td[data-property-name="resource"]').innerText()).toBe('コメント');
    expect(await row.innerText()).not.toMatch(/Edit|Comments/);
    await shot(page, 'admin-layout-06-ja-audit-log');
    await page.goto(at('admin'));
    const mine = page.getByTestId('dashboard-actions').getByTestId('dashboard-row').first();
    await mine.waitFor();
    expect(await mine.innerText()).toContain('変更 · コメント');
    // Five admin pages and a save.
  }, 150_000);

  test('pages are titled by the plural list name and "Edit comment" in English, with the role in English', async () => {
    const page = await staffPage('en');
    await page.setViewportSize(WIDE);
    for (const [pathname, title] of [
      ['admin/resources/comments', /^Comments/],
      ['admin/resources/personal_access_tokens', /^Access tokens/],
      ['admin/resources/comments/records/1/edit', /^Edit comment$/],
      ['admin/resources/comments/records/1/show', /^View comment$/],
      ['admin/resources/users/actions/new', /^Add user$/],
    ] as const) {
      await page.goto(at(pathname));
      await page.locator('h2', { hasText: title }).first().waitFor();
    }
    const topbar = page.locator('[data-css="topbar"]');
    await topbar.getByText('Superuser', { exact: true }).waitFor();
    expect(await topbar.innerText()).not.toMatch(/[\u3040-\u30ff\u4e00-\u9fff]/);
  });

  test('pages are titled in Japanese when the browser prefers it, with yes, no and the filters in Japanese and one spelling of ユーザ', async () => {
    const page = await staffPage('ja');
    await page.setViewportSize(WIDE);
    for (const [pathname, title] of [
      ['admin/resources/comments', /^コメント一覧/],
      ['admin/resources/users', /^ユーザ一覧/],
      ['admin/resources/comments/records/1/edit', /^コメントの編集$/],
      ['admin/resources/comments/records/1/show', /^コメントの詳細$/],
    ] as const) {
      await page.goto(at(pathname));
      await page.locator('h2', { hasText: title }).first().waitFor();
    }
    await page.locator('[data-css="topbar"]').getByText('スーパーユーザ', { exact: true }).waitFor();
    // So are the filters' drop-down hints.
    await page.goto(at('admin/resources/users'));
    await page.locator('tr[data-id]').first().waitFor();
    await page.getByText('フィルタ', { exact: true }).first().click();
    await page.getByText('選択してください', { exact: true }).first().waitFor();
    // Yes / no values are Japanese too.
    await page.goto(at('admin/resources/users/records/1/show'));
    await page.getByTestId('property-show-is_active').getByText('はい', { exact: true }).waitFor();
    await page.goto(at('admin/resources/users/records/1/edit'));
    await page.locator('[data-testid^="property-"]').first().waitFor();
    expect(await page.locator('body').innerText()).not.toContain('ユーザー');
    await shot(page, 'admin-layout-05-ja-user-edit');
    // Seven admin pages, each loading the admin's bundle: 50 s on a busy 2-core machine.
  }, 150_000);
});
