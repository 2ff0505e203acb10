/** The CSRF token a page's form carries (the login page, the log-out form, the browsable page). */
export function formToken(html: string): string {
  const match = /name="csrfmiddlewaretoken" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error(`no CSRF token in ${html.slice(0, 200)}`);
  return match[1];
}
