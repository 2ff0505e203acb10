import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from '@jest/globals';
import { request, type APIRequestContext, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { projectRoot } from '../../src/paths.js';
import { launchChromium } from '../helpers/browser.js';
import { basicAuth, spawnServer, startTimeout, waitForUrl } from '../helpers/server.js';

// The blog (examples/blog) as its people use it, served by the built server with its demo data:
// its superuser files a post under other tags in the admin, and alice publishes her draft on the browsable API.
const screenshots = path.join(projectRoot, 'e2e-screenshots');

interface Post {
  id: number;
  title: string;
  body: string;
  status: string;
  published_at: string | null;
  author_id: number;
  tags: number[];
}

describe('the blog in a browser', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'comments-e2e-blog-'));
  let child: ChildProcessWithoutNullStreams | undefined;
  let url = '';
  let browser: Browser | undefined;
  let context: BrowserContext;
  let page: Page;
  let api: APIRequestContext | undefined;
  /** Every request the browser sent to another origin than the server's. */
  const external: string[] = [];
  /** Uncaught exceptions in the pages. */
  const pageErrors: string[] = [];
  /** Errors the pages logged, apart from answers of 4xx/5xx (their statuses are checked in `failedLoads`). */
  const consoleErrors: string[] = [];
  /** The answers of 400 and above the browser received, as `status pathname`. */
  const failedLoads: string[] = [];
  const shot = (name: string) => page.screenshot({ path: path.join(screenshots, `${name}.png`), fullPage: true });
  const at = (pathname: string) => new URL(pathname, url).href;
  /** The answer shown on a browsable page, once it includes `text`. */
  const shown = async (text: string): Promise<string> => {
    // A locator, not a string to evaluate: the pages' Content-Security-Policy forbids eval, even Playwright's.
    const answer = page.locator('pre').first();
    await answer.filter({ hasText: text }).waitFor();
    return answer.innerText();
  };
  /** The JSON body of the answer shown on a browsable page (after its status line and headers). */
  const shownJson = <T>(text: string): T => JSON.parse(text.slice(text.indexOf('\n\n') + 2)) as T;
  const tagIds: Record<string, number> = {};
  let adminToken = '';
  const postByToken = async (id: number): Promise<Post> => {
    const res = await api!.get(`api/posts/${id}`, { headers: { Authorization: `Bearer ${adminToken}`, Accept: 'application/json' } });
    expect(res.status()).toBe(200);
    return ((await res.json()) as { post: Post }).post;
  };
  const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
  /** The draft of alice's that she publishes. */
  let draftId = 0;

  beforeAll(async () => {
    mkdirSync(screenshots, { recursive: true });
    child = spawnServer({
      APP_ROOT: 'examples/blog',
      DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite3')}`,
      PORT: '0',
      HOST: '127.0.0.1',
      PASSWORD_HASH_ITERATIONS: '1000',
    });
    url = await waitForUrl(child, startTimeout(2));
    api = await request.newContext({ baseURL: url });
    const login = await api.post('api/login', { form: { email: 'admin@example.com', password: 'admin-blog-pass' } });
    expect(login.status()).toBe(201);
    adminToken = ((await login.json()) as { token: string }).token;
    const tags = await api.get('tags/?page_size=100', { headers: { Authorization: basicAuth('admin', 'admin-blog-pass'), Accept: 'application/json' } });
    for (const tag of ((await tags.json()) as { results: { id: number; name: string }[] }).results) tagIds[tag.name] = tag.id;
    expect(Object.keys(tagIds).sort()).toEqual(['api-design', 'databases', 'notes', 'typescript']);

    browser = await launchChromium();
    context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
    context.on('request', (sent) => {
      if (new URL(sent.url()).origin !== new URL(url).origin) external.push(sent.url());
    });
    context.on('response', (answer) => {
      if (answer.status() >= 400) failedLoads.push(`${answer.status()} ${new URL(answer.url()).pathname}`);
    });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource: the server responded')) {
        consoleErrors.push(`${page.url()}: ${message.text()}`);
      }
    });
  }, 60_000);

  afterAll(async () => {
    await api?.dispose().catch(() => undefined);
    await browser?.close().catch(() => undefined);
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 5_000)))]);
      clearTimeout(timer);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  });

  describe('the superuser in the admin', () => {
    test('logs in with the email address and password of the demo superuser', async () => {
      await page.goto(at('admin'));
      await page.waitForURL(/\/admin\/login$/);
      await page.locator('input[name="email"]').fill('admin@example.com');
      await page.locator('input[name="password"]').fill('admin-blog-pass');
      await shot('blog-01-admin-login');
      // AdminJS's login button has no type=submit.
      await page.locator('form button').click();
      await page.waitForURL(/\/admin$/);
      await page.getByTestId('dashboard').waitFor();
    });

    test("sees the blog's own resources counted on the dashboard, and its posts listed usably on a phone", async () => {
      const headers = { Authorization: basicAuth('admin', 'admin-blog-pass'), Accept: 'application/json' };
      for (const [table, label] of [['posts', 'Posts'], ['tags', 'Tags'], ['replies', 'Replies']] as const) {
        const listed = (await (await api!.get(`${table}/`, { headers })).json()) as { count: number };
        const entry = page.getByTestId(`dashboard-count-${table}`);
        await entry.getByRole('link', { name: label }).waitFor();
        expect(Number(await entry.getByTestId('dashboard-count').innerText())).toBe(listed.count);
      }
      await page.setViewportSize({ width: 390, height: 844 });
      try {
        await page.goto(at('admin/resources/posts'));
        await page.locator('h2', { hasText: /^Posts/ }).waitFor();
        const titles = page.locator('tr[data-id] td[data-property-name="title"]');
        await titles.first().waitFor({ state: 'visible' });
        for (const title of await titles.all()) expect((await title.innerText()).trim()).not.toBe('');
        expect(Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'))).toBe(0);
      } finally {
        await page.setViewportSize({ width: 1280, height: 900 });
      }
    });

    test("sees a post's status as a select of its two choices", async () => {
      await page.goto(at('admin/resources/posts/records/1/edit'));
      const status = page.getByTestId('property-edit-status');
      await status.getByText('published', { exact: true }).waitFor();
      await status.getByRole('combobox').click();
      const options = page.getByRole('option');
      await options.first().waitFor();
      expect(await options.allInnerTexts()).toEqual(['draft', 'published']);
      await shot('blog-02-admin-status-choices');
      await page.keyboard.press('Escape');
      await options.first().waitFor({ state: 'detached' });
      // Still the post's own status: nothing was chosen.
      await status.getByText('published', { exact: true }).waitFor();
    });

    test("removes one of a post's tags and adds another, and the API shows exactly that change", async () => {
      const before = await postByToken(1);
      expect(sorted(before.tags)).toEqual(sorted([tagIds.typescript!, tagIds['api-design']!]));

      await page.goto(at('admin/resources/posts/records/1/edit'));
      const tags = page.getByTestId('property-edit-tags');
      const item = (index: number) => tags.getByTestId(`tags.${index}`);
      await item(0).getByText('typescript', { exact: true }).waitFor();
      await item(1).getByText('api-design', { exact: true }).waitFor();
      await shot('blog-03-admin-tags-before');

      // Remove "typescript": "api-design" moves up to the first item.
      await item(0).getByTestId('delete-item').click();
      await item(0).getByText('api-design', { exact: true }).waitFor();
      await item(1).waitFor({ state: 'detached' });

      // Add an item, and pick "databases" in its reference picker.
      await tags.getByTestId('tags-add').click();
      await item(1).getByRole('combobox').click();
      await page.getByRole('option', { name: 'databases', exact: true }).click();
      await item(1).getByText('databases', { exact: true }).waitFor();
      await shot('blog-04-admin-tags-edited');

      await page.getByTestId('button-save').click();
      await page.getByText(/successfully/i).first().waitFor();
      await page.waitForURL(/\/admin\/resources\/posts(\/records\/1\/show)?$/);
      await shot('blog-05-admin-saved');

      const after = await postByToken(1);
      expect(sorted(after.tags)).toEqual(sorted([tagIds['api-design']!, tagIds.databases!]));
      // Nothing else of the post changed.
      expect({ ...after, tags: [], updated_at: undefined }).toEqual({ ...before, tags: [], updated_at: undefined });
      const basic = await api!.get('posts/1/', { headers: { Authorization: basicAuth('alice', 'alice-blog-pass'), Accept: 'application/json' } });
      expect(sorted(((await basic.json()) as Post).tags)).toEqual(sorted(after.tags));
    });

    test('shows the post filed under its new tags', async () => {
      await page.goto(at('admin/resources/posts/records/1/show'));
      // One shown item per tag (property-show-tags.0, .1, …).
      const tags = page.locator('[data-testid^="property-show-tags."]');
      await page.getByTestId('property-show-tags.1').waitFor();
      const shownTags = (await tags.allInnerTexts()).map((text) => text.split('\n').pop()?.trim()).sort();
      expect(shownTags).toEqual(['api-design', 'databases']);
      await shot('blog-06-admin-show');
    });
  });

  describe('alice on the browsable API', () => {
    test('logs in through /api-auth/login/ and opens her draft', async () => {
      const drafts = await api!.get('posts/?status=draft', { headers: { Authorization: basicAuth('alice', 'alice-blog-pass'), Accept: 'application/json' } });
      const results = ((await drafts.json()) as { results: Post[] }).results;
      expect(results.length).toBeGreaterThan(0);
      draftId = results[0]!.id;

      await page.goto(at(`api-auth/login/?next=/posts/${draftId}/`));
      await page.getByLabel('Username or email address').fill('alice');
      await page.getByLabel('Password').fill('alice-blog-pass');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.waitForURL(new RegExp(`/posts/${draftId}/$`));
      await page.getByText('Logged in as Alice Example').waitFor();
      const post = shownJson<Post>(await shown('"status": "draft"'));
      expect(post).toMatchObject({ id: draftId, status: 'draft', published_at: null });
      await page.locator('form.api-form.action').getByRole('button', { name: 'publish' }).waitFor();
      await shot('blog-07-api-draft');
    });

    test('cannot publish the draft while its body is empty', async () => {
      const post = await api!.get(`posts/${draftId}/`, { headers: { Authorization: basicAuth('alice', 'alice-blog-pass'), Accept: 'application/json' } });
      expect(((await post.json()) as Post).body).toBe('');
      await page.locator('form.api-form.action').getByRole('button', { name: 'publish' }).click();
      const answer = await shown('HTTP 400');
      expect(shownJson(answer)).toEqual({ status: ['A post with an empty body cannot be published.'] });
      await shot('blog-08-api-publish-refused');
    });

    test('writes its body with the PATCH form', async () => {
      const body = 'Hooks run around every write; actions are routes of their own.';
      await page.goto(at(`posts/${draftId}/`));
      await shown('"status": "draft"');
      await page.locator('form.html #id_body').fill(body);
      await page.locator('form.html').getByRole('button', { name: 'PATCH' }).click();
      // The answer replaces the page (the page itself showed "HTTP 200 OK" already, for its GET).
      const answer = await shown(`"body": ${JSON.stringify(body)}`);
      expect(answer).toMatch(/^HTTP 200 OK/);
      expect(shownJson<Post>(answer)).toMatchObject({
        id: draftId,
        body,
        status: 'draft',
        published_at: null,
      });
      await shot('blog-09-api-body-written');
    });

    test('publishes the draft with the publish button', async () => {
      await page.goto(at(`posts/${draftId}/`));
      await shown('"status": "draft"');
      await page.locator('form.api-form.action').getByRole('button', { name: 'publish' }).click();
      const answer = await shown('"status": "published"');
      expect(answer).toMatch(/^HTTP 200 OK/);
      const post = shownJson<Post>(answer);
      expect(post).toMatchObject({ id: draftId, status: 'published' });
      expect(post.published_at).not.toBeNull();
      expect(Number.isNaN(Date.parse(post.published_at!))).toBe(false);
      await shot('blog-10-api-published');

      // The post as stored, and as its detail page now shows it.
      // (The token site writes the same instant with a Z, the root site without one: each site's own format.)
      const stored = await postByToken(draftId);
      expect(stored.status).toBe('published');
      expect(stored.published_at?.replace(/Z$/, '')).toBe(post.published_at);
      await page.goto(at(`posts/${draftId}/`));
      await shown('"status": "published"');
    });
  });

  test('no page sent a request outside the server, raised an error, or failed to load something it needs', () => {
    expect(external).toEqual([]);
    expect(pageErrors).toEqual([]);
    expect(consoleErrors).toEqual([]);
    // The one refusal the test asked for; the browser's own request for /favicon.ico aside.
    expect(failedLoads.filter((load) => !load.endsWith(' /favicon.ico'))).toEqual([`400 /posts/${draftId}/publish/`]);
  });
});
