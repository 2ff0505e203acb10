import request, { type Response } from 'supertest';

export type Agent = ReturnType<typeof request.agent>;

/** Every Set-Cookie header of a response. */
function setCookies(res: Response): string[] {
  return (res.headers['set-cookie'] as unknown as string[] | undefined) ?? [];
}

/** The Set-Cookie header of one cookie, if the response sets it. */
export function setCookieHeader(res: Response, name: string): string | undefined {
  return setCookies(res).find((header) => header.startsWith(`${name}=`));
}

/** The CSRF token a page's form carries (the login page, the log-out form, the browsable page). */
export function formToken(html: string): string {
  const match = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error(`no CSRF token in ${html.slice(0, 200)}`);
  return match[1];
}

/**
 * Logs in through the browser login form (`/api-auth/login/`; the password the
 * test apps give `<username>` unless another is named): the agent holding the
 * session, and the session's CSRF token from the log-out form.
 */
export async function browserLogin(app: Parameters<typeof request.agent>[0], username: string, password = `${username}-password`): Promise<{ agent: Agent; csrf: string }> {
  const agent = request.agent(app);
  const page = await agent.get('/api-auth/login/');
  const res = await agent.post('/api-auth/login/').type('form').send({ csrfmiddlewaretoken: formToken(page.text), username, password });
  if (res.status !== 302) throw new Error(`login of ${username} failed: ${res.status}`);
  const csrf = formToken((await agent.get('/api-auth/logout/')).text);
  return { agent, csrf };
}
