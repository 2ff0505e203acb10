/**
 * The routes of a resource's custom actions on one site, as Django REST
 * Framework's routers add `@action`s: `/<path>/<pk>/<action>/` on a row,
 * `/<path>/<action>/` on the list; their methods, permissions, OPTIONS and API description.
 */
import type { PageAction, RequestContext, SiteResponse } from '../contracts.js';
import { fieldLabel, resourceLabel } from '../errors.js';
import { baseMetadata } from '../metadata.js';
import { inputSchema, representationSchema, writableFields } from '../openapi/fields.js';
import type { ActionDocs, ErrorEntry } from '../openapi/types.js';
import type { Endpoint, Method } from '../views.js';
import type { ModelViewSet } from '../viewsets.js';
import type { ActionDeclaration } from '../types/resource.js';

export interface ActionRoute {
  /** Under the exposure's path: `/:pk/<action>` or `/<action>`. */
  path: string;
  endpoint: Endpoint;
  detail: boolean;
}

/** The URL segment of an action: its declared path, else its name with hyphens (DRF's url_path). */
export function actionSegment(name: string, action: ActionDeclaration): string {
  return action.path ?? name.replaceAll('_', '-');
}

/** An action's name for people: `<resource>.actions.<name>` in the `resources` catalogue, else its name. */
export function actionLabel(ctx: Pick<RequestContext, 't'>, viewset: ModelViewSet, name: string): string {
  return ctx.t(`resources:${viewset.resource.key}.actions.${name}`, { defaultValue: name });
}

function actionDocs(viewset: ModelViewSet, name: string, action: ActionDeclaration): ActionDocs {
  const { site, exposure, serializer } = viewset;
  const input = viewset.actionInput(name);
  const errors: ErrorEntry[] = ['not_authenticated', 'throttled', 'csrf_failed', 'permission_denied'];
  // A detail action that changes its row honours If-Match (ModelViewSet.runAction).
  const changesRow = action.detail && (action.methods ?? ['POST']).some((method) => method !== 'GET');
  if (action.detail) errors.push('record_not_found');
  if (changesRow) errors.push('precondition_failed');
  // Its input, or the row's fields when its hooks refuse the write.
  errors.push({ code: 'validation_failed', schema: site.docs.validation([...(input ? writableFields(input) : []), ...writableFields(serializer)]) });
  const success = action.response
    ? { status: action.response.status ?? 200, schema: action.response.schema ?? {} }
    : action.detail
      ? { status: 200, schema: site.docs.item(exposure, representationSchema(serializer, site.docs.timestamp)) }
      : { status: 204 };
  return {
    summary: 'operations.action',
    summaryParams: { action: name },
    ...(input ? { requestBody: inputSchema(input, { partial: false, form: false }), formBody: inputSchema(input, { partial: false, form: true }) } : {}),
    success,
    errors,
    ...(changesRow ? { checksIfMatch: true } : {}),
  };
}

async function actionMetadata(ctx: RequestContext, viewset: ModelViewSet, name: string, methods: readonly Method[]): Promise<SiteResponse> {
  const data = baseMetadata(ctx, `${resourceLabel(ctx.t, viewset.resource)}: ${actionLabel(ctx, viewset, name)}`);
  const input = viewset.actionInput(name);
  const write = methods.find((method) => method !== 'GET');
  if (input && write) data.actions = { [write]: input.describe((field) => fieldLabel(ctx.t, viewset.resource.key, field)) };
  return { status: 200, data };
}

/** The buttons of a page for the actions on a row (`detail`) or on the list, each aimed at its URL beside this page's. */
export function pageActions(viewset: ModelViewSet, detail: boolean): (ctx: RequestContext) => PageAction[] {
  const declared = Object.entries(viewset.resource.declaration.actions ?? {}).filter(([, action]) => action.detail === detail);
  return (ctx) => {
    const here = ctx.req.originalUrl.split('?')[0]?.replace(/\/+$/, '') ?? '';
    const slash = ctx.site.docs.trailingSlash ? '/' : '';
    return declared.map(([name, action]) => ({
      label: actionLabel(ctx, viewset, name),
      url: `${here}/${actionSegment(name, action)}${slash}`,
      method: (action.methods ?? ['POST'])[0] ?? 'POST',
      takesInput: action.input !== undefined,
    }));
  };
}

/** Every custom action of the viewset's resource, list actions first (so that `/<action>` is not read as a row's id). */
export function actionRoutes(viewset: ModelViewSet): ActionRoute[] {
  const routes: ActionRoute[] = [];
  for (const [name, action] of Object.entries(viewset.resource.declaration.actions ?? {})) {
    const permissions = action.permissions ?? viewset.permissions;
    const methods = action.methods ?? ['POST'];
    const endpoint: Endpoint = {
      name: (ctx) => `${resourceLabel(ctx.t, viewset.resource)}: ${actionLabel(ctx, viewset, name)}`,
      permissions,
      methods: {},
      viewset,
    };
    const docs = actionDocs(viewset, name, action);
    for (const method of methods) endpoint.methods[method] = { action: name, run: (ctx) => viewset.runAction(ctx, name, permissions), docs };
    endpoint.methods.OPTIONS = { action: 'metadata', run: (ctx) => actionMetadata(ctx, viewset, name, methods) };
    const segment = actionSegment(name, action);
    routes.push({ path: action.detail ? `/:pk/${segment}` : `/${segment}`, endpoint, detail: action.detail });
  }
  return routes.sort((a, b) => Number(a.detail) - Number(b.detail));
}
