import type { SiteMount } from '../routers.js';
import { translator, type Language, type Translate } from '../i18n.js';
import { frameworkVersion } from '../paths.js';
import { allowedMethods, servingSite, type AnyMethod, type Method } from '../views.js';
import type { Site } from '../contracts.js';
import { finishedExamples } from './examples.js';
import { describeOperation, METADATA, operationId, requestBody } from './operations.js';
import type { OpenApiDocument, Operation, PathItem, PlainRouteDocs, ResponseObject, SecurityScheme } from './types.js';

/** What the description is made from: the sites' routes as the app mounts them, and the routes beside them. */
export interface DescriptionSources {
  mounts: readonly SiteMount[];
  plainRoutes: readonly PlainRouteDocs[];
}


type OperationKey = Exclude<keyof PathItem, 'parameters' | '$ref' | 'description'>;

/** Where the description names the body every OPTIONS answers. */
export const METADATA_SCHEMA = 'Metadata';

/** The methods with operations of their own: HEAD and OPTIONS answer every path by one rule, said once (`info.conventions`). */
const described = (method: AnyMethod): method is Method => method !== 'HEAD' && method !== 'OPTIONS';

/** An Express route path as OpenAPI writes it: `/api` + `/invoices/:pk` → `/api/invoices/{pk}`. */
export function describedPath(mountPath: string, routePath: string, trailingSlash: boolean): string {
  const joined = `${mountPath.replace(/\/$/, '')}${routePath}`.replace(/:(\w+)/g, '{$1}');
  const bare = joined.length > 1 ? joined.replace(/\/$/, '') : '/';
  return trailingSlash && bare !== '/' ? `${bare}/` : bare;
}

/** A route beside the sites as one operation; `schemes` are the sites' (a route names one of those, never a scheme of its own). */
function plainOperation(route: PlainRouteDocs, t: Translate, tag: string, schemes: Readonly<Record<string, SecurityScheme>>): Operation {
  const responses: Record<string, ResponseObject> = {};
  for (const { status, schema, description, headers } of route.responses) {
    const response: ResponseObject = { description: t(description ?? `status.${status}`) };
    if (headers) {
      response.headers = Object.fromEntries(Object.entries(headers).map(([name, header]) => [name, { ...header, description: t(header.description), required: true }]));
    }
    if (schema) response.content = { 'application/json': { schema } };
    responses[String(status)] = response;
  }
  const method = route.method ?? 'get';
  const operation: Operation = { operationId: operationId(method, route.path), summary: t(route.summary), tags: [tag], responses };
  if (route.description) operation.description = t(route.description);
  if (route.parameters) operation.parameters = route.parameters.map((parameter) => ({ ...parameter, ...(parameter.description ? { description: t(parameter.description) } : {}) }));
  if (route.requestBody) operation.requestBody = requestBody(route.requestBody, route.formBody ?? route.requestBody, true);
  if (route.security) {
    const unknown = route.security.find((name) => !(name in schemes));
    if (unknown !== undefined) throw new Error(`${route.path} names the security scheme ${unknown}, which no site describes`);
    operation.security = route.security.map((name) => ({ [name]: [] }));
  }
  if (route.alsoRenders) operation['x-also-renders'] = [...route.alsoRenders];
  return operation;
}

/** The same path in the spelling it does not document: with or without its trailing slash (none for `/`). */
function otherSpelling(documented: string): string | undefined {
  if (documented === '/') return undefined;
  return documented.endsWith('/') ? documented.slice(0, -1) : `${documented}/`;
}

/** A JSON pointer to a path's item, as a URI fragment (`{`, `}` percent-encoded). */
function pathPointer(documented: string): string {
  return `#/paths/${encodeURIComponent(documented.replace(/~/g, '~0').replace(/\//g, '~1'))}`;
}

/** The root site first: the page lists its operations in the order of the tags. */
function rootFirst(mounts: readonly SiteMount[]): SiteMount[] {
  const root = mounts.find((mount) => mount.path === '/')?.site;
  return [...mounts.filter((mount) => mount.site === root), ...mounts.filter((mount) => mount.site !== root)];
}

/**
 * The OpenAPI 3.1 description of every site, derived from the same routes
 * (and so the same declarations) the app serves, with texts and examples in
 * `language`. A site's path is also served in its other spelling (with or
 * without the trailing slash): that spelling is a `$ref` to the first, so
 * that validators accept it and clients see each operation once.
 */
export function openApiDocument({ mounts, plainRoutes }: DescriptionSources, language: Language): OpenApiDocument {
  const t = translator(language, ['openapi', 'common']);
  const document: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: t('info.title'), version: frameworkVersion, description: `${t('info.description')}\n\n${t('info.conventions', { metadata: METADATA_SCHEMA })}` },
    tags: [],
    paths: {},
    components: { securitySchemes: {}, schemas: { [METADATA_SCHEMA]: METADATA } },
  };
  const schemes: Record<string, SecurityScheme> = document.components.securitySchemes;
  const ids = new Set<string>();
  const claimed = (operation: Operation): Operation => {
    if (ids.has(operation.operationId)) throw new Error(`two operations would be named ${operation.operationId}`);
    ids.add(operation.operationId);
    return operation;
  };
  const aliases = new Map<string, string>();
  for (const { site, path: mountPath, routes } of rootFirst(mounts)) {
    const texts = { t: translator(language, ['openapi', ...site.namespaces]), example: translator(language, site.namespaces) };
    const tag = t(`sites.${site.name}.title`);
    if (!document.tags.some((known) => known.name === tag)) document.tags.push({ name: tag, description: t(`sites.${site.name}.description`) });
    const describeSchemes = (served: Site): void => {
      for (const { described } of served.authenticators) schemes[described.name] ??= { ...described.scheme, description: t(`security.${described.name}`) };
    };
    describeSchemes(site);
    for (const { path: routePath, endpoint } of routes) {
      // A resource's own authenticators (src/policies.ts), after the site's.
      describeSchemes(servingSite(site, endpoint));
      const documented = describedPath(mountPath, routePath, site.docs.trailingSlash);
      const item: PathItem = (document.paths[documented] ??= {});
      for (const method of allowedMethods(endpoint).filter(described)) {
        item[method.toLowerCase() as OperationKey] = claimed(describeOperation({ site, path: documented, tag }, endpoint, method, texts));
      }
      const alias = otherSpelling(documented);
      if (alias !== undefined) aliases.set(alias, documented);
    }
  }
  const tagged = (key: string): string => {
    const name = t(`tags.${key}`);
    if (!document.tags.some((known) => known.name === name)) document.tags.push({ name, description: t(`tags.${key}_description`) });
    return name;
  };
  for (const route of plainRoutes) {
    const operation = claimed(plainOperation(route, t, tagged(route.tag ?? 'service'), schemes));
    document.paths[route.path] = { ...document.paths[route.path], [route.method ?? 'get']: operation };
    if (route.slashOptional) aliases.set(`${route.path}/`, route.path);
  }
  for (const [alias, documented] of aliases) {
    document.paths[alias] ??= { $ref: pathPointer(documented), description: t('paths.alias', { path: documented }) };
  }
  return finishedExamples(document, translator(language, ['openapi']));
}
