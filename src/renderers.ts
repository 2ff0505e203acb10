import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { Eta } from 'eta';
import type { Request } from 'express';
import { csrfToken } from './auth/csrf.js';
import { BROWSER_LOGIN_PATH } from './auth/sessions.js';
import { parseBoolean } from './cleaning.js';
import type { BrowsableForm, Renderer, RequestContext, RowLink, SiteResponse, ViewInfo } from './contracts.js';
import type { FieldDescription } from './serializers.js';
import { templatesDir } from './paths.js';
import { bodyPieces, indentedItem, listPieces, streamedBody } from './streamed-lists.js';
import type { Item } from './types/rows.js';
import type { AuthUser } from './types/auth.js';

/** An input of a form: its description, and the value the row has now (edit forms). */
interface FormInput extends FieldDescription {
  name: string;
  value: string;
  /** The messages a refused write got for this field. */
  errors: string[];
  /** Long text: a textarea. */
  multiline: boolean;
  /** An `<input>` type other than text (number, date). */
  inputType?: string;
  /** A boolean: a checkbox, ticked when the value is true. */
  checkbox: boolean;
  checked: boolean;
  /** The value in the raw-data form's JSON (see rawValue). */
  json: unknown;
}

const INPUT_TYPES: Readonly<Record<string, string>> = { integer: 'number', date: 'date' };

/** The row a detail page shows, unwrapped (`{"invoice": {…}}` on the token site). */
function shownRow(data: unknown): Record<string, unknown> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
  const values = Object.values(data);
  const [only] = values;
  const wrapped = values.length === 1 && typeof only === 'object' && only !== null && !Array.isArray(only);
  return (wrapped ? only : data) as Record<string, unknown>;
}

/** Field messages of a refused write: `{"title": [...]}` (root site) or `{"errors": {"title": [...]}}` (/api). */
function fieldMessages(data: unknown): Record<string, unknown> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) return {};
  const { errors } = data as { errors?: unknown };
  return (typeof errors === 'object' && errors !== null ? errors : data) as Record<string, unknown>;
}

/** A field's value as a form's input holds it: a many-to-many's ids separated by commas, JSON as its text. */
function formValue(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'number')) return value.join(',');
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

/** Text fields a create form starts empty; DRF's CharField starts as '' where its other fields start as null. */
const TEXT_TYPES = new Set(['string', 'email']);

/**
 * A field's value in the raw-data form's JSON, as Django REST Framework's
 * raw-data form writes a serializer's data: the row's value as it is (a
 * number, a list, null), a boolean as true or false; on a create form each
 * field's initial value (false, '' for text, else null).
 */
function rawValue(field: FieldDescription, shown: Record<string, unknown>, name: string): unknown {
  const value = Object.hasOwn(shown, name) ? shown[name] : undefined;
  if (field.type === 'boolean') return parseBoolean(value) === true;
  if (value !== undefined) return value;
  return TEXT_TYPES.has(field.type) ? '' : null;
}

function formInputs(form: BrowsableForm, data: unknown): FormInput[] {
  const shown = form.submitted ?? (form.method === 'PUT' ? shownRow(data) : {});
  const messages = form.submitted ? fieldMessages(data) : {};
  return Object.entries(form.fields)
    .filter(([, field]) => !field.read_only)
    .map(([name, field]) => {
      const value = Object.hasOwn(shown, name) ? shown[name] : undefined;
      const errors = Object.hasOwn(messages, name) ? messages[name] : undefined;
      const json = rawValue(field, shown, name);
      return {
        ...field,
        name,
        value: formValue(value),
        // A create form's box starts unticked, as DRF's BooleanField (its initial value is false).
        checkbox: field.type === 'boolean',
        checked: json === true,
        json,
        errors: Array.isArray(errors) ? errors.map(String) : [],
        multiline: field.type === 'json' || (field.type === 'string' && (field.max_length === undefined || field.max_length > 255)),
        inputType: INPUT_TYPES[field.type],
      };
    });
}

/** A path segment for people; one that does not percent-decode is shown as it came. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** Each ancestor of the path as a link, the last one the page itself. */
function breadcrumbs(ctx: RequestContext, name: string, parentName?: string): { href: string; label: string }[] {
  const mount = ctx.site.mountPath === '/' ? '' : ctx.site.mountPath;
  const segments = ctx.req.path.split('/').filter((segment) => segment !== '');
  const crumbs = [{ href: `${mount}/`, label: ctx.t('views.root', { defaultValue: ctx.site.mountPath }) }];
  let href = mount;
  for (const segment of segments) {
    href += `/${segment}`;
    crumbs.push({ href: `${href}/`, label: decodedSegment(segment) });
  }
  const last = crumbs.at(-1);
  if (last && segments.length > 0) last.label = name;
  // A row's page: the crumb before it is its list, named in the page's language rather than by its path.
  const parent = crumbs.at(-2);
  if (parent && parentName && segments.length > 1) parent.label = parentName;
  return crumbs;
}

/** An escaped JSON string holding an http(s) URL: up to its closing quote, which escaping made `&quot;`. */
const QUOTED_URL = /&quot;(https?:\/\/[^\s<>"]*?)&quot;/g;

/**
 * JSON shown on a page, escaped, with every URL it holds a link (as Django
 * REST Framework's browsable API shows them). The URL is taken from the
 * escaped text, so the link holds no quote or angle bracket of its own.
 */
export function linkedJson(json: string): string {
  return eta.config.escapeFunction(json).replace(QUOTED_URL, (_quoted, url: string) => `&quot;<a href="${url}">${url}</a>&quot;`);
}

/** Stands for a row's key in a page's JSON until it becomes a link; random, so that no value can look like it. */
const ROW_KEY = `row-${randomUUID()}-`;
const ROW_KEY_MARK = new RegExp(`&quot;${ROW_KEY}(\\d+)&quot;`, 'g');

/** Where a list body holds its rows: the body itself, or its first array (DRF's `results`, Laravel's `data`). */
function rowsOf(data: unknown): { rows: unknown[]; put(rows: unknown[]): unknown } | undefined {
  if (Array.isArray(data)) return { rows: data, put: (rows) => rows };
  if (typeof data !== 'object' || data === null) return undefined;
  const entry = Object.entries(data).find(([, value]) => Array.isArray(value));
  if (!entry) return undefined;
  const [key, rows] = entry as [string, unknown[]];
  return { rows, put: (marked) => ({ ...data, [key]: marked }) };
}

/** How deep the page's JSON is indented, as Django REST Framework's browsable API shows it. */
const PAGE_INDENT = 4;

/** The link a row's key becomes on a list's page. */
function keyLink(rowLink: RowLink, key: string | number): string {
  const escape = eta.config.escapeFunction;
  return `<a href="${escape(rowLink.href(key))}">${escape(JSON.stringify(key))}</a>`;
}

/** The page's JSON, pretty-printed and linked (see linkedJson), each row's key a link to the row's own page. */
function pageJson(data: unknown, rowLink?: RowLink): string {
  const list = rowLink ? rowsOf(data) : undefined;
  if (!rowLink || !list) return linkedJson(JSON.stringify(data, null, PAGE_INDENT));
  const keys: (string | number)[] = [];
  const marked = list.rows.map((row) => {
    if (typeof row !== 'object' || row === null) return row;
    const key: unknown = (row as Record<string, unknown>)[rowLink.key];
    if (typeof key !== 'string' && typeof key !== 'number') return row;
    keys.push(key);
    return { ...row, [rowLink.key]: `${ROW_KEY}${keys.length - 1}` };
  });
  return linkedJson(JSON.stringify(list.put(marked), null, PAGE_INDENT)).replace(ROW_KEY_MARK, (_mark, index: string) => keyLink(rowLink, keys[Number(index)] ?? ''));
}

/** A row of a list written as it is read, as pageJson shows it inside the list (its lines after the first at `inner`). */
function linkedItem(item: Item, inner: string, rowLink?: RowLink): string {
  const key = rowLink ? item[rowLink.key] : undefined;
  if (!rowLink || (typeof key !== 'string' && typeof key !== 'number')) return linkedJson(indentedItem(item, inner, PAGE_INDENT));
  const marked = linkedJson(indentedItem({ ...item, [rowLink.key]: `${ROW_KEY}0` }, inner, PAGE_INDENT));
  return marked.replace(ROW_KEY_MARK, () => keyLink(rowLink, key));
}

/** The links of a paginated list body: Django REST Framework's `previous`/`next`, or Laravel's `links.prev`/`links.next`. */
function pageLinks(data: unknown): { previous?: string; next?: string } {
  if (typeof data !== 'object' || data === null) return {};
  const { previous, next, links } = data as { previous?: unknown; next?: unknown; links?: { prev?: unknown; next?: unknown } };
  const laravel = typeof links === 'object' && links !== null ? links : undefined;
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  return { previous: text(previous) ?? text(laravel?.prev), next: text(next) ?? text(laravel?.next) };
}


export const jsonRenderer: Renderer = {
  mediaType: 'application/json',
  format: 'json',
  contentType: 'application/json',
  render: (_ctx, response) => Buffer.from(JSON.stringify(response.data)),
  async *renderStream(_ctx, response) {
    const body = streamedBody(response.data);
    if (!body) return yield JSON.stringify(response.data);
    yield* bodyPieces(body, (json) => json, (list) => listPieces(list, (item) => JSON.stringify(item)));
  },
};

const eta = new Eta({ views: templatesDir, autoEscape: true, cache: true });

/** A page of `templates/` (auto-escaped), for handlers that answer with HTML of their own. */
export function renderPage(template: string, data: Record<string, unknown>): string {
  return eta.render(template, data);
}

/** The status line's text in the request's language, or Node's English one. */
function statusText(ctx: RequestContext, status: number): string {
  return ctx.t(`page.status.${status}`, { defaultValue: STATUS_CODES[status] ?? String(status) });
}

/** Where the login form is, and where its `next` brings the person back to. */
const LOGIN_PATH = `${BROWSER_LOGIN_PATH}/login/`;
const LOGOUT_PATH = `${BROWSER_LOGIN_PATH}/logout/`;

/** What every page shows around its content: who is logged in, and the way to log in or out. */
export interface PageChrome {
  user: AuthUser | null;
  loginUrl?: string;
  logout?: { action: string; csrfToken: string; next: string };
}

/**
 * The account menu of a page: a session's user gets a log-out form (with the
 * session's CSRF token), anyone else a log-in link that returns to this page.
 */
export function pageChrome(req: Request, user: AuthUser | null): PageChrome {
  const here = req.originalUrl;
  if (!user) return { user: null, loginUrl: `${LOGIN_PATH}?next=${encodeURIComponent(here)}` };
  if (!req.user) return { user };
  return { user, logout: { action: LOGOUT_PATH, csrfToken: csrfToken(req), next: here } };
}

/**
 * Whom a page is for: the request's user, or the session's when the request was
 * refused before it was authenticated (a missing CSRF token): that person is
 * logged in, and a page saying otherwise would send them to log in again.
 */
function viewer(ctx: RequestContext): AuthUser | null {
  return ctx.user ?? ctx.req.user ?? null;
}

/**
 * The browsable page: the response pretty-printed inside a server-rendered
 * HTML page. Every value goes through the template's auto-escaping.
 */
function apiPage(ctx: RequestContext, response: SiteResponse, view: ViewInfo, body: string): string {
  return eta.render('api', {
    t: ctx.t,
    language: ctx.language,
    name: view.name,
    status: response.status,
    statusText: statusText(ctx, response.status),
    method: ctx.req.method,
    path: ctx.req.originalUrl,
    allow: view.allow,
    ...pageChrome(ctx.req, viewer(ctx)),
    loginNeeded: !viewer(ctx) && (response.status === 401 || response.status === 403),
    breadcrumbs: breadcrumbs(ctx, view.name, view.parentName),
    links: pageLinks(response.data),
    // The headers of the JSON answer this page shows.
    headers: [...(view.allow ? [['Allow', view.allow]] : []), ['Content-Type', 'application/json'], ['Vary', ctx.site.vary], ...(view.version ? [['ETag', view.version]] : [])],
    // The forms that change or delete the row send it as If-Match: a row changed meanwhile is not overwritten (412).
    version: view.formVersion ?? view.version,
    form: view.form && { method: view.form.method, inputs: formInputs(view.form, response.data) },
    query: view.query,
    actions: view.actions ?? [],
    // The form goes back to the list itself, with the query it builds.
    listPath: ctx.req.originalUrl.split('?')[0],
    canDelete: Boolean(view.form && view.allow?.split(', ').includes('DELETE')),
    canPatch: Boolean(view.form && view.allow?.split(', ').includes('PATCH')),
    // A session's token for the forms; Basic users' browsers resend their credentials instead.
    csrfToken: ctx.req.user ? csrfToken(ctx.req) : '',
    // Escaped by the caller, its URLs made links (pageJson): the template writes it as it is.
    body,
  });
}

/** Stands for the JSON in a page written around a list being read; random, so that no value can look like it. */
const BODY_PLACEHOLDER = `body-${randomUUID()}`;

export const htmlRenderer: Renderer = {
  mediaType: 'text/html',
  format: 'api',
  contentType: 'text/html; charset=utf-8',
  render(ctx, response, view) {
    return Buffer.from(apiPage(ctx, response, view, response.data === undefined ? '' : pageJson(response.data, view.rowLink)));
  },
  /** The page around the lists being read, their rows as they come, each as pageJson shows it, then the rest of the page. */
  async *renderStream(ctx, response, view) {
    const body = streamedBody(response.data, PAGE_INDENT);
    if (!body) return yield apiPage(ctx, response, view, pageJson(response.data, view.rowLink));
    const page = apiPage(ctx, response, view, BODY_PLACEHOLDER);
    const at = page.indexOf(BODY_PLACEHOLDER);
    yield page.slice(0, at);
    yield* bodyPieces(body, linkedJson, (list) => listPieces(list, (item, inner) => linkedItem(item, inner, view.rowLink), PAGE_INDENT));
    yield page.slice(at + BODY_PLACEHOLDER.length);
  },
};

/** What an error body may carry into its page: the message, and debug details when DEBUG is on. */
interface ErrorData {
  message?: unknown;
  exception?: unknown;
  trace?: unknown;
}

/**
 * The error page a browser gets from a site whose API speaks JSON only to
 * clients that ask for it (Laravel's rule): status, message, and the
 * exception and its stack when the body carries them (DEBUG).
 */
export const errorPageRenderer: Renderer = {
  mediaType: 'text/html',
  format: 'html',
  contentType: 'text/html; charset=utf-8',
  render(ctx, response) {
    const data = (response.data ?? {}) as ErrorData;
    const html = eta.render('error', {
      t: ctx.t,
      language: ctx.language,
      ...pageChrome(ctx.req, viewer(ctx)),
      loginNeeded: !viewer(ctx) && (response.status === 401 || response.status === 403),
      status: response.status,
      statusText: statusText(ctx, response.status),
      message: typeof data.message === 'string' ? data.message : '',
      exception: typeof data.exception === 'string' ? data.exception : undefined,
      trace: Array.isArray(data.trace) ? data.trace.map(String) : [],
    });
    return Buffer.from(html);
  },
};
