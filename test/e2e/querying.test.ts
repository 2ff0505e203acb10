import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { projectRoot } from '../../src/paths.js';
import { launchChromium, startDemoServer } from '../helpers/browser.js';

// A person filtering, searching and ordering the lists on the browsable pages of a fresh `npm start`.
const screenshots = path.join(projectRoot, 'e2e-screenshots');

describe("the browsable lists' Filters form, in chromium", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-e2e-querying-'));
  let child: ChildProcessWithoutNullStreams;
  let url = '';
  let browser: Browser;
  let page: Page;
  const refusedByPolicy: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
  /** The JSON the page shows, parsed from the response it prints after its headers. */
  const shown = async (): Promise<Record<string, unknown>> => {
    const text = await page.locator('.response pre').innerText();
    return JSON.parse(text.slice(text.indexOf('{'))) as Record<string, unknown>;
  };
  const titles = async (): Promise<string[]> => {
    const body = await shown();
    const items = (body.results ?? body.comments) as { title: string }[];
    return items.map((item) => item.title);
  };

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    ({ child, url } = await startDemoServer(path.join(dir, 'db.sqlite3')));
    browser = await launchChromium();
    page = await browser.newPage({ locale: 'en-US' });
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
    await page.goto(new URL('api-auth/login/?next=/comments/', url).href);
    await page.getByLabel('Username or email address').fill('alice');
    await page.getByLabel('Password').fill('alice-demo-pass');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/comments\/$/);
  });

  afterAll(async () => {
    await browser?.close();
    child?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  test('the root list offers a closed Filters form with a search box, the filters and the ordering links', async () => {
    const filters = page.locator('details.filters');
    expect(await filters.getAttribute('open')).toBeNull();
    await filters.locator('summary').click();
    await expect(page.getByLabel('Search', { exact: true }).isVisible()).resolves.toBe(true);
    await expect(page.getByLabel('Title contains').isVisible()).resolves.toBe(true);
    await expect(page.getByRole('link', { name: 'Title - ascending' }).isVisible()).resolves.toBe(true);
    await shot('20-filters-form');
  });

  test('a search sends only what was typed, and the answer is the filtered page with the form open', async () => {
    await page.getByLabel('Search', { exact: true }).fill('pages');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/\?search=pages$/);
    expect(await titles()).toEqual(['Pages']);
    expect(await page.locator('details.filters').getAttribute('open')).not.toBeNull();
    expect(await page.getByLabel('Search', { exact: true }).inputValue()).toBe('pages');
    await shot('21-searched');
  });

  test('an ordering link orders the list and is marked as the order in force', async () => {
    await page.getByRole('link', { name: 'Title - ascending' }).click();
    await page.waitForURL(/ordering=title/);
    const ordered = await titles();
    expect(ordered).toEqual([...ordered].sort());
    expect(await page.locator('ul.ordering a.active').innerText()).toBe('Title - ascending');
  });

  test('a bad filter value shows the 400 with the form still there to correct it', async () => {
    await page.goto(new URL('comments/?user_id=abc', url).href);
    expect(await shown()).toEqual({ user_id: ['Enter a number.'] });
    await expect(page.locator('details.filters').isVisible()).resolves.toBe(true);
    await page.getByRole('link', { name: 'Clear' }).click();
    await page.waitForURL(/\/comments\/$/);
  });

  test("the token site's list speaks spatie's words in the same form", async () => {
    await page.goto(new URL('api/comments', url).href);
    await page.locator('details.filters summary').click();
    await page.getByLabel('Title contains').fill('hello');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/\?filter%5Btitle%5D=hello$/);
    expect(await titles()).toEqual(['Hello']);
    await shot('22-token-filtered');
  });

  test('nothing was refused by the Content-Security-Policy', () => {
    expect(refusedByPolicy).toEqual([]);
  });
});
