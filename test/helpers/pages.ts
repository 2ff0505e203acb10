import type { Response } from 'supertest';

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
