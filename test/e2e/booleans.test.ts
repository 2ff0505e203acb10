import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import type { Browser, Page } from 'playwright-core';
import { listen } from '../../src/http-server.js';
import { loadDeclarations } from '../../src/registry.js';
import { migrationsDir, projectRoot } from '../../src/paths.js';
import { launchChromium } from '../helpers/browser.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

// A boolean field (the Memo fixture's `done`, which neither application has) ticked and unticked on the browsable
// forms of both sites, in chromium, against an app served from this process.
const screenshots = path.join(projectRoot, 'e2e-screenshots');
const FIXTURE_DIR = path.join(projectRoot, 'test', 'fixtures', 'memo');

describe('a boolean field on the browsable forms, in chromium', () => {
  let t: TestApp | undefined;
  let server: Server | undefined;
  let url = '';
  let browser: Browser | undefined;
  let page: Page;
  const shot = (name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
  /** Sends a form (the HTML one unless named) with its `method` button: the answer shown once the page shows that request's. */
  const send = async (method: string, form = 'form.html'): Promise<string> => {
    await page.locator(form).getByRole('button', { name: method }).click();
    await page.locator('.request', { hasText: new RegExp(`^${method} `) }).waitFor();
    return page.locator('.response pre').innerText();
  };
  /** An answer of `status` whose JSON holds `text`. */
  const answered = (status: number, text: string): RegExp => new RegExp(`^HTTP ${status} [^]*${text}`);
  /** The memo as the API stores it. */
  const stored = async (id: number): Promise<boolean> => {
    const res = await t!.http.get(`/memos/${id}/`).auth('alice', 'alice-password');
    expect(res.status).toBe(200);
    return (res.body as { done: boolean }).done;
  };

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    const declarations = [...(await loadDeclarations()), ...(await loadDeclarations(FIXTURE_DIR))];
    t = await createTestApp({}, { declarations, migrationDirs: [migrationsDir, path.join(FIXTURE_DIR, 'migrations')] });
    await t.createUser('alice');
    server = await listen(t.app, 0, '127.0.0.1', 30);
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    browser = await launchChromium();
    page = await browser.newPage({ locale: 'en-US' });
    await page.goto(new URL('api-auth/login/?next=/memos/', url).href);
    await page.getByLabel('Username or email address').fill('alice');
    await page.getByLabel('Password').fill('alice-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/memos\/$/);
  });

  afterAll(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    await t?.close();
  });

  test('the create form has a checkbox; ticked it creates a done memo, unticked one that is not', async () => {
    const box = page.locator('form.html #id_done');
    expect(await box.getAttribute('type')).toBe('checkbox');
    expect(await box.isChecked()).toBe(false);
    await page.locator('form.html #id_code').fill('ticked');
    await page.locator('form.html #id_title').fill('done one');
    await box.check();
    await shot('30-boolean-create-form');
    expect(await send('POST')).toMatch(answered(201, '"done": true'));
    expect(await stored(1)).toBe(true);

    await page.goto(new URL('memos/', url).href);
    await page.locator('form.html #id_code').fill('unticked');
    await page.locator('form.html #id_title').fill('open one');
    expect(await send('POST')).toMatch(answered(201, '"done": false'));
    expect(await stored(2)).toBe(false);
  });

  test("a row's edit form shows the box as the row is; unticking saves false and ticking true, with PUT and with PATCH", async () => {
    await page.goto(new URL('memos/1/', url).href);
    const box = page.locator('form.html #id_done');
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    expect(await send('PUT')).toMatch(answered(200, '"done": false'));
    expect(await stored(1)).toBe(false);

    await page.goto(new URL('memos/1/', url).href);
    expect(await box.isChecked()).toBe(false);
    await box.check();
    expect(await send('PATCH')).toMatch(answered(200, '"done": true'));
    expect(await stored(1)).toBe(true);

    await page.goto(new URL('memos/1/', url).href);
    await box.uncheck();
    expect(await send('PATCH')).toMatch(answered(200, '"done": false'));
    expect(await stored(1)).toBe(false);
  });

  test('the raw-data form starts with the boolean as JSON and saves as it is', async () => {
    await page.goto(new URL('memos/2/', url).href);
    await page.getByText('Raw data (JSON)').click();
    const raw = JSON.parse(await page.locator('form.raw textarea').inputValue()) as Record<string, unknown>;
    expect(raw.done).toBe(false);
    expect(await send('PUT', 'form.raw')).toMatch(answered(200, '"done": false'));
  });

  test("the token site's page has the checkbox too, and its saves keep the box's state", async () => {
    await page.goto(new URL('api/memos/2', url).href);
    const box = page.locator('form.html #id_done');
    expect(await box.getAttribute('type')).toBe('checkbox');
    expect(await box.isChecked()).toBe(false);
    await box.check();
    expect(await send('PUT')).toMatch(answered(200, '"done": true'));
    expect(await stored(2)).toBe(true);
    await shot('31-boolean-token-site');

    await page.goto(new URL('api/memos/2', url).href);
    await box.uncheck();
    expect(await send('PATCH')).toMatch(answered(200, '"done": false'));
    expect(await stored(2)).toBe(false);
  });
});
