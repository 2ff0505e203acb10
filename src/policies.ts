/**
 * A resource's own policies on a site's routes (DRF's per-view
 * authentication_classes, renderer_classes, parser_classes): the site its
 * routes are served by, the site's policies with the resource's added or
 * replaced. A resource that declares none is served by the site itself.
 */
import type { Request } from 'express';
import type { AuthUser } from './types/auth.js';
import type { Authenticator as SiteAuthenticator, Renderer as SiteRenderer, Site } from './contracts.js';
import { ApiError } from './errors.js';
import { DEFAULT_PARSERS, type Parser } from './parsers.js';
import { displayName, userModelOf, type ResourceRegistry } from './registry.js';
import type { StoredRecord } from './types/rows.js';
import type { ResourceDeclaration, SiteExposure } from './types/resource.js';
import type { Authenticator, PolicyList, Renderer, UserDirectory } from './policy-types.js';

/** The list in force: the site's, the resource's after them, or what the resource's function makes of the site's. */
export function resolvePolicy<T>(defaults: readonly T[], own: PolicyList<T> | undefined): readonly T[] {
  if (own === undefined) return defaults;
  return typeof own === 'function' ? own(defaults) : [...defaults, ...own];
}

/** The active accounts of the application's user model, as a request's user. */
export function userDirectory(registry: ResourceRegistry): UserDirectory {
  const active = (row: StoredRecord | null): AuthUser | null => {
    if (!row?.get('is_active')) return null;
    const users = registry.users();
    const { usernameField } = userModelOf(users);
    return {
      id: row.get('id') as number,
      username: row.get(usernameField) as string,
      displayName: displayName(users, row),
      isStaff: Boolean(row.get('is_staff')),
      isSuperuser: Boolean(row.get('is_superuser')),
    };
  };
  return {
    async findUser(username) {
      if (typeof username !== 'string' || username === '' || username.includes('\u0000')) return null;
      const users = registry.users();
      return active(await users.model.findOne({ where: { [userModelOf(users).usernameField]: username } }));
    },
    async findUserById(id) {
      if (!Number.isSafeInteger(id)) return null;
      return active(await registry.users().model.findByPk(id));
    },
  };
}

/** An application's authenticator, handed the accounts it names users by. */
function bound(authenticator: Authenticator, users: UserDirectory): SiteAuthenticator {
  return {
    authenticate: (req: Request) => authenticator.authenticate(req, users),
    ...(authenticator.challenge !== undefined ? { challenge: authenticator.challenge } : {}),
    described: authenticator.described,
  };
}

function assertFormats(where: string, renderers: readonly SiteRenderer[]): void {
  if (renderers.length === 0) throw new Error(`${where}: renderers leave none`);
  const formats = renderers.map((renderer) => renderer.format);
  const repeated = formats.find((format, index) => formats.indexOf(format) !== index);
  if (repeated !== undefined) throw new Error(`${where}: two renderers answer ?format=${repeated}`);
}

/**
 * The site a resource's routes are served by on `site`: its exposure's
 * policies, else the resource's, over the site's. The site itself when it
 * declares none, so that every other resource's answers stay the site's.
 */
export function resourceSite(site: Site, declaration: ResourceDeclaration, exposure: SiteExposure, users: UserDirectory): Site {
  const authenticators = exposure.authenticators ?? declaration.authenticators;
  const renderers = exposure.renderers ?? declaration.renderers;
  const parsers = exposure.parsers ?? declaration.parsers;
  if (!authenticators && !renderers && !parsers) return site;
  const where = `Resource ${declaration.name} on ${site.name}`;
  const own: Record<string, PropertyDescriptor> = {};
  if (authenticators) {
    const defaults: readonly SiteAuthenticator[] = site.authenticators;
    const list = resolvePolicy<Authenticator>(defaults, authenticators);
    own.authenticators = { value: list.map((scheme) => (defaults.includes(scheme as SiteAuthenticator) ? (scheme as SiteAuthenticator) : bound(scheme, users))), enumerable: true };
  }
  if (renderers) {
    const list: readonly SiteRenderer[] = resolvePolicy<Renderer>(site.renderers, renderers);
    assertFormats(where, list);
    own.renderers = { value: list, enumerable: true };
  }
  if (parsers) own.parsers = { value: resolvePolicy<Parser>(site.parsers ?? DEFAULT_PARSERS, parsers), enumerable: true };
  // The site's every other part as it is: its closures compare the renderer chosen with its own.
  return Object.create(site, own) as Site;
}

/** Refuses the credentials a request brought for an application's scheme: 401 in the site's shape, with the scheme's challenge. */
export function credentialsRefused(challenge?: string): Error {
  return new ApiError('credentials_refused', {}, challenge ? { 'WWW-Authenticate': challenge } : {});
}

/** Refuses a body an application's parser cannot read: 400 in the site's shape. */
export function parseError(detail: string): Error {
  return new ApiError('parse_error', { detail: detail.slice(0, 200) });
}
