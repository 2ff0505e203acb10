import { beforeAll, describe, expect, test } from '@jest/globals';
import { useTestApp } from '../../helpers/app.js';
import { staffAgents, type Agent } from '../../helpers/admin.js';

const LOAD_TIMEOUT = 60_000;

/** What an admin page hands its components (AdminJS's `window.REDUX_STATE`): the parts these tests read. */
interface PageState {
  locale: { language: string; timeZone?: string; translations: Record<string, { resources: Record<string, { labels?: Record<string, Record<string, string>>; properties?: Record<string, string> }> }> };
  resources: { id: string; listProperties: { name: string; custom: { phone?: boolean } }[] }[];
}

async function pageState(agent: Agent, path: string, language: string): Promise<PageState> {
  const res = await agent.get(path).set('Accept-Language', language);
  expect(res.status).toBe(200);
  const json = /window\.REDUX_STATE = (.*);\n/.exec(res.text)?.[1];
  if (!json) throw new Error(`no page state in ${path}`);
  return JSON.parse(json) as PageState;
}

describe("what the admin's pages hand their components", () => {
  const t = useTestApp(
    async (app) => {
      await app.createUser('root', { superuser: true, staff: true, name: 'Root' });
      await app.createUser('staffer', { staff: true, name: 'Stella Staff' });
    },
    { TIME_ZONE: 'Asia/Tokyo' },
  );
  let root: Agent;
  beforeAll(async () => {
    ({ root } = await staffAgents(t));
  }, LOAD_TIMEOUT);

  test("the audit log's badges name the action and the resource in the page's language, beside its column names", async () => {
    for (const [language, labels, column] of [
      ['en', { action: { create: 'Added', edit: 'Changed', delete: 'Deleted' }, resource: { comments: 'Comment', users: 'User', personal_access_tokens: 'Access token' } }, 'Action'],
      ['ja', { action: { create: '追加', edit: '変更', delete: '削除' }, resource: { comments: 'コメント', users: 'ユーザ' } }, '操作'],
    ] as const) {
      const { locale } = await pageState(root, '/admin/resources/admin_audit_log', language);
      const texts = locale.translations[language]?.resources.admin_audit_log;
      expect(texts?.labels).toMatchObject(labels);
      expect(texts?.properties?.action).toBe(column);
    }
  });

  test('the page carries TIME_ZONE, in which its components show times', async () => {
    expect((await pageState(root, '/admin', 'en')).locale.timeZone).toBe('Asia/Tokyo');
  });

  test('the users list marks the columns a phone leaves out: all but username, email and staff; a list without phone columns marks none', async () => {
    const { resources } = await pageState(root, '/admin/resources/users', 'en');
    const offPhone = (id: string) => resources.find((resource) => resource.id === id)?.listProperties.filter((property) => property.custom.phone === false).map((property) => property.name);
    expect(offPhone('users')).toEqual(['id', 'name', 'is_superuser', 'is_active']);
    expect(offPhone('comments')).toEqual([]);
  });
});
