import path from 'node:path';
import { describe, expect, test } from '@jest/globals';
import { loadDeclarations } from '../../../src/registry.js';
import { migrationsDir, projectRoot } from '../../../src/paths.js';
import { apiToken, useTestApp } from '../../helpers/app.js';

// A boolean field on the browsable page's forms (the Memo fixture's `done`): a checkbox, both sites.
const FIXTURE_DIR = path.join(projectRoot, 'test', 'fixtures', 'memo');
const declarations = [...(await loadDeclarations()), ...(await loadDeclarations(FIXTURE_DIR))];
const html = { Accept: 'text/html', 'Accept-Language': 'en' };

/** The JSON the raw-data form starts with. */
function rawContent(page: string): Record<string, unknown> {
  const text = /<textarea id="id_raw_content" name="_content" rows="6">([^<]*)<\/textarea>/.exec(page)?.[1];
  if (text === undefined) throw new Error('the page has no raw-data form');
  return JSON.parse(text.replaceAll('&quot;', '"').replaceAll('&amp;', '&')) as Record<string, unknown>;
}

describe("a boolean field on the browsable page's forms", () => {
  let token = '';
  const t = useTestApp(
    async (app) => {
      await app.createUser('alice');
      token = await apiToken(app, 'alice');
      await app.http.post('/memos/').auth('alice', 'alice-password').send({ code: 'ticked', title: 'done one', done: true });
      await app.http.post('/memos/').auth('alice', 'alice-password').send({ code: 'unticked', title: 'open one', done: false });
    },
    {},
    { declarations, migrationDirs: [migrationsDir, path.join(FIXTURE_DIR, 'migrations')] },
  );

  test('the create form offers an unticked checkbox after a hidden false, and the raw-data form starts with false', async () => {
    const res = await t.http.get('/memos/').auth('alice', 'alice-password').set(html);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<input type="hidden" name="done" value="false">\n          <input type="checkbox" id="id_done" name="done" value="true">');
    expect(res.text).not.toMatch(/<input type="text" id="id_done"/);
    // The other fields as DRF's raw-data form starts them: text empty, anything else null.
    expect(rawContent(res.text)).toEqual({ code: '', title: '', done: false, price: null, due_on: null, details: null, remind_at: null, author_id: null });
  });

  test("the edit form's box is ticked as the row is, and its raw-data form holds the boolean itself", async () => {
    const ticked = await t.http.get('/memos/1/').auth('alice', 'alice-password').set(html);
    expect(ticked.text).toContain('<input type="checkbox" id="id_done" name="done" value="true" checked>');
    expect(rawContent(ticked.text)).toMatchObject({ title: 'done one', done: true });
    const unticked = await t.http.get('/memos/2/').auth('alice', 'alice-password').set(html);
    expect(unticked.text).toContain('<input type="checkbox" id="id_done" name="done" value="true">');
    expect(rawContent(unticked.text)).toMatchObject({ title: 'open one', done: false, price: null, author_id: null });
    // Sent back as it is, the raw-data form's JSON is a valid PUT.
    const put = await t.http.put('/memos/2/').auth('alice', 'alice-password').send(rawContent(unticked.text));
    expect(put.status).toBe(200);
    expect(put.body.done).toBe(false);
  });

  test("the token site's page has the same checkbox", async () => {
    const res = await t.http.get('/api/memos/1').set('Authorization', `Bearer ${token}`).set(html);
    expect(res.status).toBe(200);
    expect(res.text).toContain('<input type="checkbox" id="id_done" name="done" value="true" checked>');
    expect(rawContent(res.text)).toMatchObject({ done: true });
  });

  test('what the form sends saves: the hidden false alone is false, followed by the ticked box it is true, on PATCH too', async () => {
    const patch = (body: string) => t.http.patch('/memos/2/').auth('alice', 'alice-password').type('form').send(body);
    expect((await patch('done=false&done=true')).body.done).toBe(true);
    expect((await patch('done=false')).body.done).toBe(false);
  });

  test('a refused save shows the box as it was sent', async () => {
    const res = await t.http.post('/memos/').auth('alice', 'alice-password').set(html).type('form').send('code=ticked&title=again&done=false&done=true');
    expect(res.status).toBe(400);
    expect(res.text).toContain('<input type="checkbox" id="id_done" name="done" value="true" checked>');
  });
});
