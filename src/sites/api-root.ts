/**
 * The API root: the page a visitor lands on, with an absolute link to every
 * list the sites serve (as Django REST Framework's DefaultRouter answers at
 * the root), then the other places to go, the description and the admin.
 * It shows no row, so it asks for no credentials.
 */
import { requestUrl } from '../context.js';
import type { Site } from '../contracts.js';
import { describedPath } from '../openapi/document.js';
import type { ResourceRegistry } from '../registry.js';
import type { Endpoint } from '../views.js';

/** One link of the root: its key in the answer and the path it points to. */
export interface RootLink {
  name: string;
  path: string;
}

/**
 * The lists a site serves under its mount point, in the spelling its paths
 * are documented in, keyed by their path (with `prefix` before it, to tell
 * another site's list from the site's own).
 */
export function listLinks(registry: ResourceRegistry, site: Site, prefix = ''): RootLink[] {
  return registry
    .exposedOn(site.name)
    .filter(({ exposure }) => exposure.actions.includes('list'))
    .map(({ exposure }) => ({ name: `${prefix}${exposure.path}`, path: describedPath(site.mountPath, `/${exposure.path}`, site.docs.trailingSlash) }));
}

/** Where the description's examples are served from. */
const EXAMPLE_ORIGIN = 'https://example.com';

export function apiRootEndpoint(links: readonly RootLink[]): Endpoint {
  const absolute = (origin: string): Record<string, string> => Object.fromEntries(links.map(({ name, path }) => [name, new URL(path, origin).toString()]));
  return {
    name: (ctx) => ctx.t('views.root'),
    permissions: [],
    methods: {
      GET: {
        action: 'list',
        ability: null,
        docs: {
          summary: 'operations.root',
          success: { status: 200, schema: { type: 'object', additionalProperties: { type: 'string', format: 'uri' }, example: absolute(EXAMPLE_ORIGIN) } },
          errors: ['throttled', 'invalid_host'],
        },
        run: async (ctx) => ({ status: 200, data: absolute(requestUrl(ctx.req).origin) }),
      },
    },
  };
}
