import './env.js';
import AdminJS, { NotFoundError, ValidationError as AdminValidationError, type PropertyErrors } from 'adminjs';
import { translator, type Language } from '../i18n.js';
import { parseBoolean } from '../serializers.js';
import { DeclaredResource } from './resource.js';

/** What an AdminJS route's parameters name: a resource and one of its actions of the route's kind. */
export interface RouteTarget {
  resourceId?: string;
  action?: string;
}

/**
 * AdminJS looks an action up by the path's name with no check, so an unknown
 * name (or `constructor`) or an action of another kind (a resource action on
 * a record route) ends in a server error, sometimes after the action ran.
 */
export function assertKnownAction(admin: AdminJS, routePath: string, target: RouteTarget): void {
  if (target.resourceId === undefined || target.action === undefined) return;
  const resource = admin.findResource(target.resourceId);
  const actions = resource.decorate().actions;
  const action = Object.hasOwn(actions, target.action) ? actions[target.action] : undefined;
  const fits = !action
    ? false
    : routePath.includes('/records/')
      ? action.isRecordType()
      : routePath.includes('/bulk/')
        ? action.isBulkType()
        : action.isResourceType();
  if (!fits) throw new NotFoundError(`No ${target.action} action here`, 'admin');
}

/**
 * AdminJS turns any form value of a boolean field but 'false' and '' into
 * true; the spellings the APIs accept ('0', 'off', 'no', …) keep their meaning
 * and anything else is refused before AdminJS sees it.
 */
export function normalizeBooleans(
  admin: AdminJS,
  resourceId: string | undefined,
  payload: Record<string, string>,
  language: Language,
): Record<string, string> {
  if (resourceId === undefined) return payload;
  const resource = admin.findResource(resourceId);
  if (!(resource instanceof DeclaredResource)) return payload;
  const errors: PropertyErrors = {};
  const result = { ...payload };
  for (const [name, field] of Object.entries(resource.bound.declaration.fields)) {
    const raw = payload[name];
    if (field.kind !== 'boolean' || raw === undefined || raw === '') continue;
    const value = parseBoolean(raw);
    if (value === undefined) errors[name] = { message: translator(language, ['common'])('validation.invalid_boolean') };
    else result[name] = String(value);
  }
  if (Object.keys(errors).length > 0) {
    throw new AdminValidationError(errors, { message: translator(language, ['admin'])('errors.validation_failed') });
  }
  return result;
}
