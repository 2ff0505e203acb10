/**
 * Cross-origin calls to the token site, as Laravel's skeleton allows them
 * (config/cors.php: `api/*` and `sanctum/csrf-cookie`, any origin, any method
 * and header, no credentials). Only a request that names an Origin gets the
 * headers, so that every other answer stays as it was; a preflight is answered
 * here, before authentication. Listed origins may send the session cookie
 * too (Sanctum's SPA across subdomains: `supports_credentials`).
 */
import cors, { type CorsOptions } from 'cors';
import type { RequestHandler } from 'express';
import type { Config } from '../config.js';

/** What a script of another origin may read of an answer beyond the safelisted headers: the version to send as If-Match, how long to wait. */
const EXPOSED_HEADERS = ['ETag', 'Retry-After'];

/** null when CORS is off: the site then has no layer for it at all. */
export function corsHandler(origins: Config['corsAllowedOrigins']): RequestHandler | null {
  if (origins === null) return null;
  const options: CorsOptions = {
    origin: origins === '*' ? '*' : [...origins],
    credentials: origins !== '*',
    exposedHeaders: EXPOSED_HEADERS,
  };
  const preflight = cors(options);
  // An OPTIONS that is no preflight is the API's own (what a list allows): it gets the headers and its answer.
  const other = cors({ ...options, preflightContinue: true });
  return (req, res, next) => {
    if (req.headers.origin === undefined) return next();
    const isPreflight = req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;
    return (isPreflight ? preflight : other)(req, res, next);
  };
}
