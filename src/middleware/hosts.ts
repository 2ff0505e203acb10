/**
 * Allowed hosts, as Django's ALLOWED_HOSTS: absolute links (a page's `next`
 * and `previous`, the API root) are made from the host a request names, so a
 * request naming a host this service is not served under is refused with 400
 * before anything reads it: no session, no database, no link.
 */
import type { IncomingMessage } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { createContext, requestHost } from '../context.js';
import type { Site } from '../contracts.js';
import { ApiError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { SiteMount } from '../routers.js';
import { send } from '../views.js';
import { productHeaders } from './security.js';

/** Django's host_validation_re: a name or a bracketed IPv6 address, then maybe a port. */
const HOST_HEADER = /^([a-z0-9.-]+|\[[a-f0-9]*:[a-f0-9.:]+\])(?::\d+)?$/;

/** The host's name without its port, lower case, without a final dot; undefined when the value is no host. */
export function hostName(host: string): string | undefined {
  const name = HOST_HEADER.exec(host.toLowerCase())?.[1];
  return name?.endsWith('.') ? name.slice(0, -1) : name;
}

/** Django's validate_host: `*`, the name itself, or `.example.com` for example.com and every name under it. */
export function isAllowedHost(name: string, patterns: readonly string[]): boolean {
  return patterns.some(
    (pattern) => pattern === '*' || pattern === name || (pattern.startsWith('.') && (name.endsWith(pattern) || name === pattern.slice(1))),
  );
}

export interface HostCheckOptions {
  /** ALLOWED_HOSTS, as the configuration normalised it. */
  allowedHosts: readonly string[];
  /** The sites by mount point: a refusal is written in the shape of the site the path belongs to (the root's for any other path). */
  mounts: readonly SiteMount[];
  /** Paths answered whatever the host, to GET and HEAD: the health checks, which load balancers call by address. */
  exempt: readonly string[];
  logger: Logger;
}

function siteOf(req: Request, mounts: readonly SiteMount[]): Site | undefined {
  let found: SiteMount | undefined;
  for (const mount of mounts) {
    const under = mount.path === '/' || req.path === mount.path || req.path.startsWith(`${mount.path}/`);
    if (under && (!found || mount.path.length > found.path.length)) found = mount;
  }
  return found?.site;
}

/** A request-target in absolute form: a scheme, then the authority up to the path, query or end. */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)(.*)$/is;

/**
 * A request may name its URL whole (`GET http://example.com/comments/`),
 * and then that host, not the Host header's, is the request's (RFC 9112,
 * 3.2.2). The target becomes its path and the Host header that host, so the
 * host check and every link see the one host the request names. Called
 * before Express sees the request: its router keeps the URL's prefix from
 * the moment the request enters it. Credentials in the URL (`user:pw@host`,
 * which RFC 9110 calls an error) leave the host a bare `@`, which is no host:
 * the request is refused, and they are never logged.
 */
export function toOriginForm(req: IncomingMessage): void {
  const { url = '/' } = req;
  if (url.startsWith('/')) return;
  const target = ABSOLUTE_FORM.exec(url);
  if (!target) return;
  const [, authority = '', rest = ''] = target;
  req.headers.host = authority.includes('@') ? '@' : authority;
  req.url = rest.startsWith('/') ? rest : `/${rest}`;
}

/** Refuses, with the site's `invalid_host` error, a request whose host is malformed or not allowed. */
export function hostCheck({ allowedHosts, mounts, exempt, logger }: HostCheckOptions): RequestHandler {
  const exemptPaths = new Set(exempt);
  const any = allowedHosts.includes('*');
  // The refusal is a page of the product like any other: its security headers too (the check runs before them).
  const headers = productHeaders();
  return (req, res, next) => {
    if ((req.method === 'GET' || req.method === 'HEAD') && exemptPaths.has(req.path.replace(/(?<=.)\/$/, ''))) return next();
    const host = requestHost(req);
    const name = hostName(host);
    if (name !== undefined && (any || isAllowedHost(name, allowedHosts))) return next();
    const site = siteOf(req, mounts);
    if (!site) return next(new ApiError('invalid_host'));
    (req.log ?? logger).warn({ host: host.slice(0, 300) }, 'refused a request whose host is not in ALLOWED_HOSTS');
    void headers(req, res, () => {
      const ctx = createContext(site, req, res);
      res.setHeader('Vary', site.vary);
      void send(ctx, site.errorResponse(ctx, new ApiError('invalid_host')), { name: '' }, logger);
    });
  };
}
