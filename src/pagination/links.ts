/**
 * The request's own URL for another page, as each ecosystem writes it:
 * Django REST Framework replaces one parameter and sorts them all by name;
 * Laravel keeps the client's parameters in their order (the last value of a
 * repeated one) and appends its page or cursor last.
 */
import { requestUrl, type RequestContext } from '../context.js';
import { queryPairs } from '../querying/values.js';

/** DRF's replace_query_param and remove_query_param: `changes` set (a value) or remove (null) parameters. */
export function drfLink(ctx: RequestContext, changes: Record<string, string | null>): string {
  const url = requestUrl(ctx.req);
  const values = new Map<string, string[]>();
  for (const [name, value] of url.searchParams) values.set(name, [...(values.get(name) ?? []), value]);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) values.delete(name);
    else values.set(name, [value]);
  }
  const search = new URLSearchParams();
  for (const name of [...values.keys()].sort()) for (const value of values.get(name) ?? []) search.append(name, value);
  url.search = search.toString();
  return url.toString();
}

/** The list's URL without its query and trailing slash (Laravel's `$request->url()`, a paginator's `path`). */
export function laravelPath(ctx: RequestContext): string {
  const url = requestUrl(ctx.req);
  url.search = '';
  return url.toString().replace(/(?<=.)\/$/, '');
}

/**
 * Laravel's paginator URL: the path, the client's other parameters (PHP
 * keeps a repeated one once, at its first place, with its last value; a
 * `name[]` list whole), then `name=value`.
 */
export function laravelLink(ctx: RequestContext, name: string, value: string): string {
  const kept = new Map<string, string[]>();
  for (const [key, found] of queryPairs(ctx.req)) {
    if (key === name) continue;
    if (key.endsWith('[]')) kept.set(key, [...(kept.get(key) ?? []), found]);
    else kept.set(key, [found]);
  }
  const search = new URLSearchParams();
  for (const [key, values] of kept) for (const found of values) search.append(key, found);
  search.append(name, value);
  return `${laravelPath(ctx)}?${search.toString()}`;
}
