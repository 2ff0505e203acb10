import helmet from 'helmet';
import type { RequestHandler } from 'express';

/**
 * Helmet's headers, tuned to what the pages really load: everything from
 * this origin, nothing inline, no framing. `same-origin` referrers (Django's
 * default) rather than none, because a browser sends `Origin: null` on a
 * form POST under `no-referrer`, and the CSRF checks compare the Origin.
 * Plain HTTP stays usable: no `upgrade-insecure-requests`.
 */
const common = {
  referrerPolicy: { policy: 'same-origin' as const },
  xFrameOptions: { action: 'deny' as const },
};

/** The APIs, the browsable pages and the browser login: scripts and styles from /static only. */
export function productHeaders(): RequestHandler {
  return helmet({
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
  });
}

/** AdminJS's pages put their state and styles inline, so the admin allows inline, still only from this origin. */
export function adminHeaders(): RequestHandler {
  return helmet({
    ...common,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", "'unsafe-inline'"],
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
