import { describe, expect, test } from '@jest/globals';
import request from 'supertest';
import { useTestApp } from '../../helpers/app.js';
import { formToken } from '../../helpers/pages.js';

/** The session's token is compared in constant time (digests of both); these are the answers that comparison must keep. */
describe("the browser login's CSRF token", () => {
  const t = useTestApp(async (app) => {
    await app.createUser('alice');
  });

  async function postWith(token: (own: string) => string) {
    const agent = request.agent(t.app);
    const own = formToken((await agent.get('/api-auth/login/')).text);
    return agent.post('/api-auth/login/').type('form').set('Accept-Language', 'en').send({ csrfmiddlewaretoken: token(own), username: 'alice', password: 'alice-password' });
  }

  test.each([
    ['one character off', (own: string) => `${own.slice(0, -1)}${own.endsWith('0') ? '1' : '0'}`],
    ['cut short', (own: string) => own.slice(0, -1)],
    ['with a character more', (own: string) => `${own}0`],
    ['empty', () => ''],
  ])('is refused with 403 when the form carries it %s', async (_case, token) => {
    const res = await postWith(token);
    expect(res.status).toBe(403);
    expect(res.text).toContain('CSRF Failed: CSRF token missing or incorrect.');
  });

  test('lets the login through when the form carries it exactly', async () => {
    expect((await postWith((own) => own)).status).toBe(302);
  });
});
