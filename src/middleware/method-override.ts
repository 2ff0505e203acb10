/**
 * Laravel's method spoofing: an HTML form can only POST, so a form that means
 * PUT, PATCH or DELETE says so in a `_method` field (Blade's `@method('PUT')`),
 * and other clients in `X-HTTP-Method-Override` (Symfony's Request::getMethod).
 * Mounted where Laravel's routes are (the token site, Fortify's); the root
 * site is Django REST Framework's, which has no such thing.
 */
import type { RequestHandler } from 'express';
import { bodyField, requestData } from '../parsers.js';

const SPOOFABLE = new Set(['PUT', 'PATCH', 'DELETE']);

function spoofed(value: unknown): string | undefined {
  const method = typeof value === 'string' ? value.trim().toUpperCase() : undefined;
  return method !== undefined && SPOOFABLE.has(method) ? method : undefined;
}

export function methodOverride(bodyLimit: number): RequestHandler {
  return async (req, _res, next) => {
    if (req.method !== 'POST') return next();
    let method = spoofed(req.headers['x-http-method-override']);
    if (!method && req.is(['application/x-www-form-urlencoded', 'multipart/form-data'])) {
      try {
        // Read once: the handler gets the same parsed body.
        method = spoofed(bodyField(await requestData(req, bodyLimit), '_method'));
      } catch (error) {
        // A body too large or unreadable is answered as such, not as a POST the route does not take.
        return next(error);
      }
    }
    if (method) req.method = method;
    next();
  };
}
