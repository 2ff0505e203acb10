/**
 * The request's own URL for another page, as each ecosystem writes it:
 * Django REST Framework replaces one parameter and sorts them all by name
 * (Python's urlencode); Laravel rebuilds the client's parameters as PHP read
 * them (`filter[a]` and `filter[b]` grouped under `filter`, the last value of
 * a repeated one) with its page or cursor last (http_build_query, RFC 3986).
 */
import { queryPairs, requestUrl } from '../context.js';
import type { RequestState } from '../types/request.js';

const hex = (character: string): string => `%${character.charCodeAt(0).toString(16).toUpperCase()}`;

/** Python's quote_plus: every byte but letters, digits and `_.-~` escaped, a space as `+`. */
function quotePlus(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, hex).replace(/%20/g, '+');
}

/** PHP's rawurlencode (RFC 3986): every byte but letters, digits and `-_.~` escaped. */
function rawUrlEncode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, hex);
}

/** DRF's replace_query_param and remove_query_param: `changes` set (a value) or remove (null) parameters. */
export function drfLink(ctx: RequestState, changes: Record<string, string | null>): string {
  const url = requestUrl(ctx.req);
  const values = new Map<string, string[]>();
  for (const [name, value] of queryPairs(ctx.req)) values.set(name, [...(values.get(name) ?? []), value]);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) values.delete(name);
    else values.set(name, [value]);
  }
  const pairs = [...values.keys()].sort().flatMap((name) => (values.get(name) ?? []).map((value) => `${quotePlus(name)}=${quotePlus(value)}`));
  url.search = pairs.join('&');
  return url.toString();
}

/** The list's URL without its query and trailing slash (Laravel's `$request->url()`, a paginator's `path`). */
export function laravelPath(ctx: RequestState): string {
  const url = requestUrl(ctx.req);
  url.search = '';
  return url.toString().replace(/(?<=.)\/$/, '');
}

/** A query as PHP reads it: names in the order first sent, `a[b]` nested under `a`, `a[]` appended. */
type PhpValue = string | PhpArray;
type PhpArray = Map<string, PhpValue>;

const BRACKETED = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;

function phpQuery(pairs: readonly [string, string][]): PhpArray {
  const root: PhpArray = new Map();
  for (const [name, value] of pairs) {
    const match = BRACKETED.exec(name);
    const keys = match ? [match[1] ?? name, ...[...(match[2] ?? '').matchAll(/\[([^[\]]*)\]/g)].map(([, key = '']) => key)] : [name];
    let node = root;
    keys.forEach((key, index) => {
      const slot = key === '' ? String(node.size) : key;
      if (index === keys.length - 1) {
        node.set(slot, value);
        return;
      }
      const child = node.get(slot);
      const next = child instanceof Map ? child : new Map<string, PhpValue>();
      node.set(slot, next);
      node = next;
    });
  }
  return root;
}

/** http_build_query with PHP_QUERY_RFC3986: nested keys written out in brackets. */
function buildQuery(array: PhpArray, prefix = ''): string[] {
  return [...array].flatMap(([key, value]) => {
    const name = prefix === '' ? key : `${prefix}[${key}]`;
    return value instanceof Map ? buildQuery(value, name) : [`${rawUrlEncode(name)}=${rawUrlEncode(value)}`];
  });
}

/**
 * Laravel's paginator URL: the path, the client's other parameters as PHP
 * rebuilds them, then the `changes` that set a value (those set to null
 * are left out, `name` and `name[…]` alike).
 */
export function laravelLink(ctx: RequestState, changes: Record<string, string | null>): string {
  const changed = (name: string): boolean => Object.keys(changes).some((key) => name === key || name.startsWith(`${key}[`));
  const query = phpQuery(queryPairs(ctx.req).filter(([name]) => !changed(name)));
  for (const [name, value] of Object.entries(changes)) if (value !== null) query.set(name, value);
  const search = buildQuery(query).join('&');
  return search === '' ? laravelPath(ctx) : `${laravelPath(ctx)}?${search}`;
}
