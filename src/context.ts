import type { Request, Response } from 'express';
import type { RequestContext, Site } from './contracts.js';
import { ApiError } from './errors.js';
import { chooseLanguage, translator } from './i18n.js';

export function createContext(site: Site, req: Request, res: Response): RequestContext {
  const language = chooseLanguage(req.headers['accept-language'], site.defaultLanguage);
  const [defaultRenderer] = site.renderers;
  if (!defaultRenderer) throw new Error(`Site ${site.name} has no renderer`);
  return {
    req,
    res,
    site,
    language,
    t: translator(language, site.namespaces),
    renderer: defaultRenderer,
    user: null,
    token: null,
    authenticator: null,
  };
}

/**
 * The last value of a query parameter, as Django's QueryDict.get. From the
 * pairs decoded once per request: Express's `req.query` parses the query
 * string again on every read.
 */
export function queryValue(req: Request, name: string): string | undefined {
  return lastValue(queryPairs(req), name);
}

/**
 * The host the client named, port included: the Host header, or X-Forwarded-Host
 * behind a trusted proxy (TRUST_PROXY), as req.protocol. Absolute links are
 * made from it, so ALLOWED_HOSTS checks this very value (middleware/hosts.ts).
 */
export function requestHost(req: Request): string {
  // An HTTP/1.0 request may name none.
  return req.host ?? 'localhost';
}

/** The URL the client used, absolute, query included. */
export function requestUrl(req: Request): URL {
  let url: URL;
  try {
    url = new URL(`${req.protocol}://${requestHost(req)}`);
  } catch {
    throw new ApiError('invalid_host');
  }
  // Set, not resolved against the host: a path that begins `//` would name another host.
  const query = req.originalUrl.indexOf('?');
  url.pathname = query < 0 ? req.originalUrl : req.originalUrl.slice(0, query);
  if (query >= 0) url.search = req.originalUrl.slice(query);
  return url;
}

const parsedQueries = new WeakMap<Request, readonly [string, string][]>();
/** A URL without a query: nothing to decode or remember. */
const NO_PAIRS: readonly [string, string][] = Object.freeze([]);

/**
 * The request's query as name/value pairs in order, decoded once: `+` is a
 * space, as Django and PHP read it, and the names exactly as sent (the
 * dialects need them so).
 */
export function queryPairs(req: Request): readonly [string, string][] {
  const at = req.originalUrl.indexOf('?');
  if (at < 0) return NO_PAIRS;
  let pairs = parsedQueries.get(req);
  if (!pairs) {
    pairs = [...new URLSearchParams(req.originalUrl.slice(at + 1))];
    parsedQueries.set(req, pairs);
  }
  return pairs;
}

/** The last value sent for `name`, as Django's QueryDict.get and PHP read a repeated parameter. */
export function lastValue(pairs: readonly [string, string][], name: string): string | undefined {
  let found: string | undefined;
  for (const [key, value] of pairs) if (key === name) found = value;
  return found;
}
