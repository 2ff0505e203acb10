import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { request, type Browser, type Page } from 'playwright-core';
import { projectRoot } from '../../src/paths.js';
import { launchChromium, startDemoServer } from '../helpers/browser.js';

// A person's visit to a fresh `npm start` (demo data loaded), in Debian's chromium.
const screenshots = path.join(projectRoot, 'e2e-screenshots');

describe('a person in a browser', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-e2e-browser-'));
  let child: ChildProcessWithoutNullStreams;
  let url = '';
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  const external: string[] = [];
  /** What the browser refused to run or load because of the Content-Security-Policy. */
  const refusedByPolicy: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
  /**
   * The response shown on the page once it includes `text` (a form's answer replaces the page asynchronously).
   * A locator waits from Playwright's own world: a polled `waitForFunction` runs `eval` in the page, which the
   * page's Content-Security-Policy rightly refuses.
   */
  const response = async (text: string): Promise<string> => {
    const exactly = new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    await page.locator('pre', { hasText: exactly }).waitFor();
    return page.locator('pre').innerText();
  };

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    ({ child, url } = await startDemoServer(path.join(dir, 'db.sqlite3')));
    browser = await launchChromium();
    page = await browser.newPage({ locale: 'en-US' });
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) refusedByPolicy.push(message.text());
    });
    page.on('request', (request) => {
      if (new URL(request.url()).host !== new URL(url).host) external.push(request.url());
    });
  });

  afterAll(async () => {
    await browser?.close();
    child?.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  test('is asked to log in, logs in, and lands on the comment list', async () => {
    const first = await page.goto(new URL('comments/', url).href);
    expect(first?.status()).toBe(403);
    await shot('01-login-needed');
    await page.getByRole('link', { name: 'Log in to see this page.' }).click();
    await page.getByLabel('Username or email address').fill('alice');
    await page.getByLabel('Password').fill('alice-demo-pass');
    await shot('02-login-form');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.waitForURL(/\/comments\/$/);
    await page.getByText('Logged in as Alice Example').waitFor();
    await shot('03-list');
  });

  test('pages through the list', async () => {
    await page.getByRole('link', { name: 'Next »' }).click();
    await page.waitForURL(/page=2/);
    await response('"previous"');
    await shot('04-page-2');
  });

  test('creates a comment with the form', async () => {
    await page.goto(new URL('comments/', url).href);
    await page.locator('form.html #id_title').fill('e2e title');
    await page.locator('form.html #id_body').fill('from chromium');
    await page.locator('form.html').getByRole('button', { name: 'POST' }).click();
    await response('HTTP 201 Created');
    await response('"title": "e2e title"');
    await shot('05-created');
  });

  test('edits it with PATCH, then deletes it', async () => {
    const created = JSON.parse((await response('HTTP 201')).split('\n\n').slice(1).join('\n\n')) as { id: number };
    await page.goto(new URL(`comments/${created.id}/`, url).href);
    await page.locator('form.html #id_title').fill('edited');
    await page.locator('form.html').getByRole('button', { name: 'PATCH' }).click();
    await response('HTTP 200 OK');
    await response('"title": "edited"');
    await shot('06-edited');
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL(/\/comments\/$/);
    const gone = await page.goto(new URL(`comments/${created.id}/`, url).href);
    expect(gone?.status()).toBe(404);
  });

  /**
   * Opens comment 3's page at `pagePath`; someone else then changes its body to
   * `body` through the API; this page types `typed` in `field` and sends PATCH.
   * Resolves with the answer shown, once it is a 412.
   */
  const patchChangedMeanwhile = async (pagePath: string, body: string, field: string, typed: string): Promise<string> => {
    await page.goto(new URL(pagePath, url).href);
    const api = await request.newContext({ httpCredentials: { username: 'alice', password: 'alice-demo-pass' } });
    const changed = await api.patch(new URL('comments/3/', url).href, { data: { body }, headers: { Accept: 'application/json' } });
    expect(changed.status()).toBe(200);
    await api.dispose();
    await page.locator(`form.html #id_${field}`).fill(typed);
    await page.locator('form.html').getByRole('button', { name: 'PATCH' }).click();
    return response('HTTP 412');
  };

  test('does not save over a comment someone changed since its page was opened (412), and sees the change on reload', async () => {
    expect(await patchChangedMeanwhile('comments/3/', 'changed there', 'title', 'mine')).toContain('If-Match');
    // The page stays, with what was typed.
    expect(await page.locator('form.html #id_title').inputValue()).toBe('mine');
    expect(await page.locator('.request').innerText()).toBe('PATCH /comments/3/');
    await shot('06b-conflict');
    await page.goto(new URL('comments/3/', url).href);
    const shown = await page.locator('pre').innerText();
    expect(shown).toContain('changed there');
    expect(shown).not.toContain('"title": "mine"');
  });

  test("keeps what was typed on the token site's page too when the comment changed meanwhile (412)", async () => {
    expect(await patchChangedMeanwhile('api/comments/3', 'changed again', 'body', 'typed here')).toContain('has changed since you read it');
    expect(await page.locator('form.html #id_body').inputValue()).toBe('typed here');
  });

  test('is told when a save got no answer (the connection failed), and keeps what was typed', async () => {
    await page.goto(new URL('comments/3/', url).href);
    await page.route('**/comments/3/', (route) => (route.request().method() === 'PATCH' ? route.abort('connectionreset') : route.fallback()));
    await page.locator('form.html #id_title').fill('lost');
    await page.locator('form.html').getByRole('button', { name: 'PATCH' }).click();

    expect(await response('No answer came')).toContain('Whether the change was saved is unknown');
    expect(await page.locator('form.html #id_title').inputValue()).toBe('lost');
    expect(await page.locator('form.html').getByRole('button', { name: 'PATCH' }).isEnabled()).toBe(true);
    await page.unrouteAll();
  });

  test("sends raw JSON with PUT, and uses the token API's page with the same session", async () => {
    await page.goto(new URL('comments/1/', url).href);
    await page.getByText('Raw data (JSON)').click();
    await page.locator('form.raw textarea').fill('{"title": "raw put", "body": "as JSON"}');
    await page.locator('form.raw').getByRole('button', { name: 'PUT' }).click();
    expect(await response('"title": "raw put"')).toContain('HTTP 200 OK');
    await page.goto(new URL('api/comments', url).href);
    await page.locator('form.html #id_title').fill('via /api');
    await page.locator('form.html #id_body').fill('a long body is fine on the token site');
    await page.locator('form.html').getByRole('button', { name: 'POST' }).click();
    expect(await response('HTTP 201')).toContain('"title": "via /api"');
    await shot('07-token-site');
  });

  test("sees the token site's refusal of a comment with a blank title beside the field, keeps what was typed, and saves once it is filled in", async () => {
    await page.goto(new URL('api/comments', url).href);
    // Spaces pass the browser's own check of `required`; Laravel's rule trims them.
    await page.locator('form.html #id_title').fill('   ');
    await page.locator('form.html #id_body').fill('typed before the refusal');
    await page.locator('form.html').getByRole('button', { name: 'POST' }).click();

    await expect(response('HTTP 422')).resolves.toContain('"errors"');
    expect(await page.locator('.request').innerText()).toBe('POST /api/comments');
    const note = page.locator('form.html #id_title + .field-error');
    expect(await note.innerText()).toBe('The title field is required.');
    expect(await page.locator('form.html #id_body').inputValue()).toBe('typed before the refusal');
    await shot('07b-token-site-refused');

    await page.locator('form.html #id_title').fill('now with a title');
    await page.locator('form.html').getByRole('button', { name: 'POST' }).click();
    expect(await response('HTTP 201')).toContain('"body": "typed before the refusal"');
  });

  test('reads every page of both sites on a phone-sized screen without scrolling sideways', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    const sideways: string[] = [];
    for (const path of ['', 'comments/', 'comments/1/', 'api', 'api/comments', 'api/comments/1', 'api-auth/password_change/']) {
      await page.goto(new URL(path, url).href);
      if (await page.evaluate('document.documentElement.scrollWidth > window.innerWidth')) sideways.push(path);
    }
    expect(sideways).toEqual([]);
    await page.goto(new URL('comments/1/', url).href);
    // The row's page keeps its delete button inside the screen.
    const deleteRight = await page.evaluate("document.querySelector('form.delete button').getBoundingClientRect().right");
    expect(deleteRight).toBeLessThanOrEqual(390);
    await shot('08-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  test('opens a row from the list by its id', async () => {
    await page.goto(new URL('comments/', url).href);
    const first = page.locator('pre a[href^="/comments/"]').first();
    const id = await first.innerText();
    await first.click();
    await page.waitForURL(new RegExp(`/comments/${id}/$`));
    expect(await response('HTTP 200')).toContain(`"id": ${id},`);
  });

  test('sees markup in comments as text, and nothing in them runs', async () => {
    // Another client, with a token: the browser's own requests would carry its session (and need its CSRF token).
    const api = await request.newContext();
    const login = await api.post(new URL('api/login', url).href, { data: { email: 'alice@example.com', password: 'alice-demo-pass' } });
    const token = ((await login.json()) as { token: string }).token;
    const hostile = ['<script>alert("script")</script>', '<img src=x onerror=alert("img")>'];
    const ids: number[] = [];
    for (const text of hostile) {
      const res = await api.post(new URL('api/comments', url).href, {
        headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
        data: { title: text, body: text },
      });
      ids.push(((await res.json()) as { comment: { id: number } }).comment.id);
    }
    for (const id of ids) {
      await page.goto(new URL(`api/comments/${id}`, url).href);
      const text = hostile[ids.indexOf(id)] ?? '';
      expect(await response(JSON.stringify(text).slice(1, -1))).toContain(JSON.stringify(text).slice(1, -1));
      expect(await page.locator('form.html #id_title').inputValue()).toBe(text);
    }
    await api.dispose();
    await page.goto(new URL('comments/', url).href);
    await shot('09-markup-as-text');
    expect(dialogs).toEqual([]);
  });

  test('logs out, and the list asks for a login again', async () => {
    await page.goto(new URL('comments/', url).href);
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.waitForURL(/\/comments\/$/);
    await page.getByText('Not logged in').waitFor();
    await shot('10-logged-out');
    expect(external).toEqual([]);
  });

  test('as a visitor, finds every list, the description and the admin at /, and follows a link', async () => {
    const root = await page.goto(url);
    expect(root?.status()).toBe(200);
    const links = await page.locator('pre a').allInnerTexts();
    expect(links.map((link) => new URL(link).pathname)).toEqual(['/comments/', '/api/comments', '/docs', '/admin']);
    await page.locator('pre a', { hasText: '/docs' }).click();
    await page.waitForURL(/\/docs$/);
    await shot('11-visitor-root');
  });

  test('the security policy refused nothing the pages use, and they kept their styles', async () => {
    await page.goto(new URL('api-auth/login/', url).href);
    // A string: the tests are type-checked without the DOM's types.
    const background = await page.evaluate("getComputedStyle(document.querySelector('header')).backgroundColor");
    expect(background).toBe('rgb(44, 62, 80)');
    expect(refusedByPolicy).toEqual([]);
  });
});
