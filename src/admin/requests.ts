import './env.js';
import AdminJS, { NotFoundError, ValidationError as AdminValidationError, type PropertyErrors } from 'adminjs';
import { translator, type Language } from '../i18n.js';
import type { FieldDeclaration } from '../resource.js';
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

// AdminJS's form markers (frontend/hooks/use-record/params-to-form-data), which its request parser reads back.
const FORM_VALUE_NULL = '__FORM_VALUE_NULL__';
const FORM_VALUE_EMPTY_ARRAY = '__FORM_VALUE_EMPTY_ARRAY__';
const INTEGER_TEXT = /^\s*[+-]?\d+(?:\.0*)?\s*$/;
const DATE_TEXT = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Whether `text` names a day of the calendar (not 2024-02-30, which `new Date` reads as March 1st). */
function isCalendarDate(text: string): boolean {
  const match = DATE_TEXT.exec(text.trim());
  if (!match) return false;
  const date = new Date(`${match[0]}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === match[0];
}

function isScalar(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

/**
 * A body's value as AdminJS's own form would send it, under its name (or a
 * list's items under `name.0`, `name.1`, …): text as it is, a JSON number or
 * boolean as its text, null as the form's null marker, a JSON field's object
 * or list as its JSON text, a many-to-many's list as its items. Undefined for
 * a value no form sends (an object for a text field, say): the caller refuses it.
 */
function formFields(name: string, field: FieldDeclaration | undefined, value: unknown): Record<string, string> | undefined {
  if (isScalar(value)) return { [name]: String(value) };
  if (value === null) return { [name]: FORM_VALUE_NULL };
  if (field?.kind === 'json') return { [name]: JSON.stringify(value) };
  if (field?.kind === 'manyToMany' && Array.isArray(value) && value.every(isScalar)) {
    if (value.length === 0) return { [name]: FORM_VALUE_EMPTY_ARRAY };
    return Object.fromEntries(value.map((item, index) => [`${name}.${index}`, String(item)]));
  }
  return undefined;
}

/**
 * The form's text as AdminJS must see it so that its own conversions keep
 * the meaning the APIs give it:
 * - A JSON body's values become the text the form would send (formFields):
 *   `true` means what 'true' means, never nothing; a value no form could
 *   send is refused, where it used to be dropped and the rest saved.
 * - AdminJS turns any value of a boolean field but 'false' and '' into true;
 *   the spellings the APIs accept ('0', 'off', 'no', …) keep their meaning
 *   and anything else is refused before AdminJS sees it.
 * - It reads numbers with Number(), so '' would be 0 and '0x10' 16: an empty
 *   integer is NULL, and text that is no integer stays one Number() cannot read.
 * - It reads dates with `new Date`, which moves 2024-02-30 to March 1st: a day
 *   the calendar lacks stays unreadable, for the serializer to refuse.
 * - It maps each item of an array field, so a many-to-many sent as one plain
 *   value would fail there: '' is the empty list, another value its one item.
 */
export function normalizeForm(
  admin: AdminJS,
  resourceId: string | undefined,
  payload: Readonly<Record<string, unknown>>,
  language: Language,
): Record<string, string> {
  const found = resourceId === undefined ? undefined : admin.findResource(resourceId);
  const fields = found instanceof DeclaredResource ? found.bound.declaration.fields : {};
  const errors: PropertyErrors = {};
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload)) {
    const text = formFields(name, Object.hasOwn(fields, name) ? fields[name] : undefined, value);
    if (text) Object.assign(result, text);
    else errors[name] = { message: translator(language, ['admin'])('errors.not_form_value') };
  }
  for (const [name, field] of Object.entries(fields)) {
    const raw = result[name];
    if (raw === undefined || raw === FORM_VALUE_NULL || raw === FORM_VALUE_EMPTY_ARRAY) continue;
    if (field.kind === 'boolean' && raw !== '') {
      const value = parseBoolean(raw);
      if (value === undefined) errors[name] = { message: translator(language, ['common'])('validation.invalid_boolean') };
      else result[name] = String(value);
    } else if (field.kind === 'integer') {
      if (raw.trim() === '') result[name] = FORM_VALUE_NULL;
      else if (!INTEGER_TEXT.test(raw)) result[name] = 'NaN';
    } else if (field.kind === 'date' && raw !== '' && !isCalendarDate(raw)) {
      result[name] = 'invalid';
    } else if (field.kind === 'manyToMany') {
      delete result[name];
      if (raw === '') result[name] = FORM_VALUE_EMPTY_ARRAY;
      else result[`${name}.0`] = raw;
    }
  }
  if (Object.keys(errors).length > 0) {
    throw new AdminValidationError(errors, { message: translator(language, ['admin'])('errors.validation_failed') });
  }
  return result;
}
