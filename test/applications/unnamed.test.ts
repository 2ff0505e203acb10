/**
 * An application that gives its resources' labels and nothing else: the
 * framework's own texts name no application (not the comment service, whose
 * messages once were the framework's), so it is called by neutral words.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { translator } from '../../src/i18n.js';
import { applicationAt, migrationsDir } from '../../src/paths.js';
import { loadDeclarations } from '../../src/registry.js';
import { createTestClient, type TestClient } from '../../src/testing/index.js';

const commentService = applicationAt('.');
let root = '';
let client: TestClient;

beforeAll(async () => {
  // The comment service's declarations and migrations, under another root whose locales/ hold only resources.json.
  root = mkdtempSync(path.join(os.tmpdir(), 'unnamed-'));
  mkdirSync(path.join(root, 'resources'));
  for (const language of ['en', 'ja']) {
    mkdirSync(path.join(root, 'locales', language), { recursive: true });
    copyFileSync(path.join(commentService.locales, language, 'resources.json'), path.join(root, 'locales', language, 'resources.json'));
  }
  client = await createTestClient({ app: root, declarations: await loadDeclarations(), migrationDirs: [migrationsDir] });
});

afterAll(async () => {
  await client.close();
  rmSync(root, { recursive: true, force: true });
});

describe('an application without its own name in its messages', () => {
  it('is titled by the framework’s neutral words, in both languages', async () => {
    for (const language of ['en', 'ja'] as const) {
      const document = await client.anonymous.get('/openapi.json').set('Accept-Language', language).expect(200);
      expect(document.body.info.title).toBe('API');
      expect(JSON.stringify(document.body)).not.toMatch(/Comment service|コメントサービス|\{\\"comment\\": …\}/);
      expect(translator(language, ['admin'])('brand')).toBe({ en: 'Administration', ja: '管理サイト' }[language]);
    }
    const docs = await client.anonymous.get('/docs').set('Accept-Language', 'en').expect(200);
    expect(docs.text).toContain('<title lang="en">API</title>');
  });

  it('keeps its own labels, and the framework’s pages name no service', async () => {
    const alice = await client.createUser('alice');
    const as = client.actingAs(alice);
    const list = await as.get('/comments/').set('Accept', 'text/html').set('Accept-Language', 'ja').expect(200);
    expect(list.text).toContain('<title>コメント一覧 – API</title>');
    const logout = await as.get('/api-auth/logout/').set('Accept-Language', 'en').expect(200);
    expect(logout.text).toContain('<title>Log out – API</title>');
    expect(logout.text).toContain('Log out?');
    expect(logout.text).not.toMatch(/comment service/i);
    const unauthorized = await client.anonymous.get('/api/user').set('Accept-Language', 'en');
    expect(unauthorized.text).toContain('<title>Unauthorized – API</title>');
  });
});
