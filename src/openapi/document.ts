import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { SiteMount } from '../routers.js';
import { translator, type Language, type Translate } from '../i18n.js';
import { projectRoot } from '../paths.js';
import { allowedMethods } from '../views.js';
import { describeOperation, operationId } from './operations.js';
import type { OpenApiDocument, Operation, PathItem, PlainRouteDocs, ResponseObject, SecurityScheme } from './types.js';

/** What the description is made from: the sites' routes as the app mounts them, and the routes beside them. */
export interface DescriptionSources {
  mounts: readonly SiteMount[];
  plainRoutes: readonly PlainRouteDocs[];
}

const version = (JSON.parse(readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

type OperationKey = Exclude<keyof PathItem, 'parameters'>;

/** An Express route path as OpenAPI writes it: `/api` + `/comments/:pk` → `/api/comments/{pk}`. */
export function describedPath(mountPath: string, routePath: string, trailingSlash: boolean): string {
  const joined = `${mountPath.replace(/\/$/, '')}${routePath}`.replace(/:(\w+)/g, '{$1}');
  const bare = joined.length > 1 ? joined.replace(/\/$/, '') : '/';
  return trailingSlash && bare !== '/' ? `${bare}/` : bare;
}

function plainOperations(route: PlainRouteDocs, t: Translate, tag: string): PathItem {
  const responses: Record<string, ResponseObject> = {};
  for (const { status, schema } of route.responses) {
    responses[String(status)] = { description: t(`status.${status}`), ...(schema ? { content: { 'application/json': { schema } } } : {}) };
  }
  const get: Operation = { operationId: operationId('GET', route.path), summary: t(route.summary), tags: [tag], responses };
  const headResponses = Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, { description: response.description }]));
  const head = { ...get, operationId: operationId('HEAD', route.path), description: t('operations.head'), responses: headResponses };
  return { get, head };
}

/**
 * The OpenAPI 3.1 description of every site, derived from the same routes
 * (and so the same declarations) the app serves, with texts in `language`.
 */
export function openApiDocument({ mounts, plainRoutes }: DescriptionSources, language: Language): OpenApiDocument {
  const t = translator(language, ['openapi', 'common']);
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: t('info.title'), version, description: t('info.description') },
    tags: [],
    paths: {},
    components: { securitySchemes: {} },
  };
  const schemes: Record<string, SecurityScheme> = document.components.securitySchemes;
  const ids = new Set<string>();
  for (const { site, path: mountPath, routes } of mounts) {
    const texts = { t: translator(language, ['openapi', ...site.namespaces]), example: translator(site.defaultLanguage, site.namespaces) };
    const tag = t(`sites.${site.name}.title`);
    if (!document.tags.some((known) => known.name === tag)) document.tags.push({ name: tag, description: t(`sites.${site.name}.description`) });
    for (const { described } of site.authenticators) schemes[described.name] = { ...described.scheme, description: t(`security.${described.name}`) };
    for (const { path: routePath, endpoint } of routes) {
      const documented = describedPath(mountPath, routePath, site.docs.trailingSlash);
      const item: PathItem = (document.paths[documented] ??= {});
      for (const method of allowedMethods(endpoint)) {
        const operation = describeOperation({ site, path: documented, tag }, endpoint, method, texts);
        if (ids.has(operation.operationId)) throw new Error(`two operations would be named ${operation.operationId}`);
        ids.add(operation.operationId);
        item[method.toLowerCase() as OperationKey] = operation;
      }
    }
  }
  const serviceTag = t('tags.service');
  document.tags.push({ name: serviceTag, description: t('tags.service_description') });
  for (const route of plainRoutes) document.paths[route.path] = plainOperations(route, t, serviceTag);
  return document;
}
