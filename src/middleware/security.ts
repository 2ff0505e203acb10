import { createHash } from 'node:crypto';
import helmet from 'helmet';
import type { Request, RequestHandler, Response } from 'express';

/**
 * Helmet's headers, tuned to what the pages really load: everything from
 * this origin, nothing inline, no framing. `same-origin` referrers (Django's
 * default) rather than none, because a browser sends `Origin: null` on a
 * form POST under `no-referrer`, and the CSRF checks compare the Origin.
 * Plain HTTP stays usable: no `upgrade-insecure-requests`.
 */
const common = {
  referrerPolicy: { policy: 'same-origin' as const },
  // Browsers heed it over HTTPS only; this host only, since its neighbours may not all speak HTTPS.
  strictTransportSecurity: { maxAge: 31_536_000, includeSubDomains: false },
  xFrameOptions: { action: 'deny' as const },
};

/**
 * Helmet's headers for a configuration that does not depend on the request,
 * worked out once: eleven middlewares setting the same values on every
 * request cost a small read a twentieth of its time.
 */
function fixedHeaders(middleware: RequestHandler): RequestHandler {
  const headers: [string, string][] = [];
  const recorder = {
    setHeader: (name: string, value: string | number) => void headers.push([name, String(value)]),
    removeHeader: () => undefined,
  };
  let finished = false;
  void middleware({ headers: {} } as Request, recorder as unknown as Response, () => {
    finished = true;
  });
  if (!finished) throw new Error('the security headers depend on the request');
  return (_req, res, next) => {
    for (const [name, value] of headers) res.setHeader(name, value);
    next();
  };
}

/** The APIs, the browsable pages and the browser login: scripts and styles from this origin (the files in /static), none inline. */
export function productHeaders(): RequestHandler {
  return fixedHeaders(helmet({
    ...common,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
      },
    },
  }));
}

/**
 * AdminJS's pages put their state in inline scripts and their styles inline:
 * styles are allowed inline, scripts only from this origin or by the hash of
 * each inline script a page really carries (`allowInlineScripts`).
 */
export function adminHeaders(): RequestHandler {
  return helmet({
    ...common,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:'],
        fontSrc: ["'self'", 'data:'],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
        baseUri: ["'self'"],
      },
    },
  });
}

const INLINE_SCRIPT = /<script>([\s\S]*?)<\/script>/g;

/** Adds the hashes of the page's own inline scripts to its policy: they run, an injected one does not. */
export function allowInlineScripts(res: Response, html: string): void {
  const policy = res.getHeader('Content-Security-Policy');
  if (typeof policy !== 'string') return;
  const hashes = [...html.matchAll(INLINE_SCRIPT)].map(([, code = '']) => `'sha256-${createHash('sha256').update(code).digest('base64')}'`);
  if (hashes.length === 0) return;
  res.setHeader('Content-Security-Policy', policy.replace(/(^|;)script-src ([^;]*)/, `$1script-src $2 ${hashes.join(' ')}`));
}
