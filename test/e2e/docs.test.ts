import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { request, type Browser, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import { projectRoot } from '../../src/paths.js';
import { launchChromium, startDemoServer } from '../helpers/browser.js';

// A developer reading /docs on a fresh `npm start` (demo data loaded), and trying the API from it, in Debian's chromium.
const screenshots = path.join(projectRoot, 'e2e-screenshots');
const ALICE = { username: 'alice', email: 'alice@example.com', password: 'alice-demo-pass' };
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** What the test reads of the OpenAPI description: its operations. */
interface Description {
  paths: Record<string, Record<string, unknown>>;
}

/** A browser page, with what it did that no page of ours should do. */
interface WatchedPage {
  page: Page;
  /** Requests to another host than the server's. */
  external: string[];
  /** What the browser refused to run or load because of the Content-Security-Policy. */
  refusedByPolicy: string[];
  /** Uncaught errors of the page's scripts. */
  errors: string[];
}

describe('the API documentation in a browser', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-e2e-docs-'));
  let child: ChildProcessWithoutNullStreams;
  let url = '';
  let browser: Browser;
  let description: Description;
  let visit: WatchedPage;
  const visits: WatchedPage[] = [];

  const at = (pathname: string): string => new URL(pathname.replace(/^\//, ''), url).href;

  async function newVisit(options: BrowserContextOptions = {}): Promise<WatchedPage> {
    const context = await browser.newContext({ locale: 'en-US', ...options });
    const watched: WatchedPage = { page: await context.newPage(), external: [], refusedByPolicy: [], errors: [] };
    watched.page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) watched.refusedByPolicy.push(message.text());
    });
    watched.page.on('pageerror', (error) => watched.errors.push(error.message));
    watched.page.on('request', (sent) => {
      if (new URL(sent.url()).host !== new URL(url).host) watched.external.push(sent.url());
    });
    visits.push(watched);
    return watched;
  }

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });

  async function openDocs(page: Page, hash = ''): Promise<void> {
    await page.goto(at(`/docs${hash}`));
    await page.locator('.swagger-ui .opblock').first().waitFor();
  }

  /** The operation's block on the page, found by what it shows: its method and path. */
  const operation = (page: Page, method: string, pathname: string): Locator =>
    page.locator(`.swagger-ui .opblock.opblock-${method}`).filter({ has: page.locator(`.opblock-summary-path[data-path="${pathname}"]`) }).first();

  /** Types credentials into the Authorize dialog for one security scheme, and closes it. */
  async function authorize(page: Page, scheme: string, fields: Record<string, string>): Promise<void> {
    await page.locator('.swagger-ui .auth-wrapper > button.authorize').click();
    const form = page.locator('.modal-ux .auth-container').filter({ has: page.locator('h4', { hasText: scheme }) });
    for (const [label, value] of Object.entries(fields)) await form.getByLabel(label).fill(value);
    await form.getByRole('button', { name: 'Apply credentials' }).click();
    await form.getByText('Authorized').waitFor();
    await page.locator('.modal-ux .close-modal').click();
  }

  /** "Try it out", "Execute": the status and the body Swagger UI shows of the answer. */
  async function tryItOut(page: Page, method: string, pathname: string, body?: string): Promise<{ status: string; body: string }> {
    const block = operation(page, method, pathname);
    if (!/\bis-open\b/.test((await block.getAttribute('class')) ?? '')) await block.locator('.opblock-summary').first().click();
    await block.getByRole('button', { name: 'Try it out' }).click();
    if (body !== undefined) await block.locator('textarea.body-param__text').fill(body);
    await block.getByRole('button', { name: 'Execute' }).click();
    const answer = block.locator('.live-responses-table tbody tr.response').first();
    await answer.waitFor();
    return {
      status: (await answer.locator('.response-col_status').innerText()).trim(),
      body: await answer.locator('.response-col_description pre').first().innerText(),
    };
  }

  /** A bearer token from POST /api/login, as another client gets one. */
  async function apiToken(): Promise<string> {
    const api = await request.newContext();
    try {
      const login = await api.post(at('/api/login'), { data: { email: ALICE.email, password: ALICE.password } });
      expect(login.status()).toBe(201);
      return ((await login.json()) as { token: string }).token;
    } finally {
      await api.dispose();
    }
  }

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    ({ child, url } = await startDemoServer(path.join(dir, 'db.sqlite3')));
    const api = await request.newContext();
    description = (await (await api.get(at('/openapi.json'))).json()) as Description;
    await api.dispose();
    browser = await launchChromium();
    visit = await newVisit();
  });

  afterAll(async () => {
    await browser?.close();
    child?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  test('shows every operation of /openapi.json, in Swagger UI\'s own styles', async () => {
    const { page } = visit;
    await openDocs(page);
    const operations = Object.entries(description.paths).flatMap(([pathname, item]) =>
      Object.keys(item).filter((key) => METHODS.has(key)).map((method) => [method, pathname] as const));
    expect(operations).toEqual(expect.arrayContaining([['get', '/comments/'], ['get', '/api/comments']]));
    for (const [method, pathname] of operations) {
      expect([method, pathname, await operation(page, method, pathname).isVisible()]).toEqual([method, pathname, true]);
    }
    await page.getByRole('link', { name: '/openapi.json' }).first().waitFor();
    // A string: the tests are type-checked without the DOM's types. GET's blue, from swagger-ui.css.
    const getColour = await page.evaluate("getComputedStyle(document.querySelector('.opblock-get .opblock-summary-method')).backgroundColor");
    expect(getColour).toBe('rgb(97, 175, 254)');
    await shot(page, 'docs-01-operations');
  });

  test("lists the root API's operations first, each once: no HEAD, no OPTIONS, no twin without the trailing slash", async () => {
    const { page } = visit;
    await openDocs(page);
    const sections = await page.locator('.swagger-ui .opblock-tag-section h3 .nostyle span').allInnerTexts();
    expect(sections.slice(0, 2)).toEqual(['Paginated API', 'Token API']);
    const operations = Object.values(description.paths).flatMap((item) => Object.keys(item).filter((key) => METHODS.has(key)));
    expect(await page.locator('.swagger-ui .opblock').count()).toBe(operations.length);
    expect(await page.locator('.swagger-ui .opblock-head, .swagger-ui .opblock-options').count()).toBe(0);
    expect(await page.locator('.swagger-ui .opblock-summary-path[data-path="/comments"]').count()).toBe(0);
    expect(await page.locator('.swagger-ui .opblock-summary-path').first().getAttribute('data-path')).toBe('/');
  });

  /** The example Swagger UI shows of an operation's 200 answer. */
  async function successExample(page: Page, method: string, pathname: string): Promise<string> {
    const block = operation(page, method, pathname);
    if (!/\bis-open\b/.test((await block.getAttribute('class')) ?? '')) await block.locator('.opblock-summary').first().click();
    return block.locator('.responses-table tr.response[data-code="200"] .highlight-code').first().innerText();
  }

  test("shows examples in the page's language, and a list's example as one page of one row", async () => {
    const { page } = visit;
    await openDocs(page);
    const english = JSON.parse(await successExample(page, 'get', '/comments/')) as { count: number; next: unknown; results: { title: string }[] };
    expect(english).toMatchObject({ count: 1, next: null, previous: null, results: [expect.objectContaining({ title: 'Hello' })] });
    expect(english.results).toHaveLength(english.count);
    const japanese = await browser.newContext({ locale: 'ja-JP' });
    try {
      const japanesePage = await japanese.newPage();
      await openDocs(japanesePage);
      const shown = JSON.parse(await successExample(japanesePage, 'get', '/comments/')) as { count: number; results: { title: string }[] };
      expect(shown).toMatchObject({ count: 1, results: [expect.objectContaining({ title: 'はじめまして' })] });
      await shot(japanesePage, 'docs-00-japanese-examples');
    } finally {
      await japanese.close();
    }
  });

  test('tries GET /comments/ with HTTP Basic typed into the Authorize dialog, and sees the 200 answer', async () => {
    const { page } = visit;
    await openDocs(page);
    await authorize(page, 'basicAuth', { 'auth-basic-username': ALICE.username, 'auth-basic-password': ALICE.password });
    const answer = await tryItOut(page, 'get', '/comments/');
    expect(answer.status).toBe('200');
    expect(answer.body).toContain('"results"');
    await shot(page, 'docs-02-basic');
  });

  test('tries GET /api/comments with a bearer token typed into the Authorize dialog, and sees the 200 answer', async () => {
    const { page } = visit;
    await openDocs(page);
    await authorize(page, 'bearerAuth', { 'auth-bearer-value': await apiToken() });
    const answer = await tryItOut(page, 'get', '/api/comments');
    expect(answer.status).toBe('200');
    expect(answer.body).toContain('"comments"');
    await shot(page, 'docs-03-bearer');
  });

  test('a link to an operation opens the page on it', async () => {
    const { page } = visit;
    const hash = (await page.evaluate('location.hash')) as string;
    expect(hash).toMatch(/^#\/.+\/.+/);
    await openDocs(page, hash);
    await page.locator('.swagger-ui .opblock.is-open .opblock-summary-path[data-path="/api/comments"]').waitFor();
  });

  test('with a browser session open, a token typed into the dialog still creates a comment: the session cookie stays home', async () => {
    const session = await newVisit();
    const { page } = session;
    await page.goto(at('/api-auth/login/'));
    await page.getByLabel('Username or email address').fill(ALICE.username);
    await page.getByLabel('Password').fill(ALICE.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/comments\/$/);
    expect((await page.context().cookies()).map((cookie) => cookie.name)).toContain('sessionid');
    await openDocs(page);
    await authorize(page, 'bearerAuth', { 'auth-bearer-value': await apiToken() });
    const sent = page.waitForRequest((made) => made.method() === 'POST' && made.url() === at('/api/comments'));
    const answer = await tryItOut(page, 'post', '/api/comments', JSON.stringify({ title: 'from /docs', body: 'tried out with a token' }));
    expect(answer.status).toBe('201');
    expect(answer.body).toContain('"from /docs"');
    expect(await (await sent).headerValue('cookie')).toBeNull();
    await shot(page, 'docs-04-token-beside-session');
  });

  test("reads every section on a 390-pixel phone, in English and Japanese: nothing wider than the screen, each section's description across it", async () => {
    const phone = { width: 390, height: 844 };
    for (const locale of ['en-US', 'ja-JP']) {
      const { page } = await newVisit({ locale, viewport: phone });
      await openDocs(page);
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(phone.width);
      const headings = page.locator('.swagger-ui .opblock-tag');
      const count = await headings.count();
      expect(count).toBeGreaterThanOrEqual(4);
      const squeezed: string[] = [];
      for (let index = 0; index < count; index += 1) {
        const heading = headings.nth(index);
        const description = await heading.locator('small').boundingBox();
        const box = await heading.boundingBox();
        // Squeezed beside a long section name, the Fortify description was a column one word wide and 4,500 px tall.
        if (!description || !box || description.width < phone.width * 0.75 || box.height > phone.height / 2) {
          squeezed.push(`${await heading.getAttribute('data-tag')}: ${JSON.stringify({ description, box })}`);
        }
      }
      expect(squeezed).toEqual([]);
      await shot(page, `docs-05-phone-${locale}`);
      await page.context().close();
    }
  });

  test('nothing came from another host, the policy refused nothing, and no script failed', () => {
    for (const { external, refusedByPolicy, errors } of visits) expect({ external, refusedByPolicy, errors }).toEqual({ external: [], refusedByPolicy: [], errors: [] });
  });
});
