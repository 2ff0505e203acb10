import { isDatabaseUnavailable } from './db/unavailable.js';
import type { Translate } from './i18n.js';

/**
 * The one error catalogue. Every error the framework raises has a code, a
 * default status and a message key; the site that renders it decides its
 * shape (`{"detail": …}` or `{"message": …}`) and may map the status.
 */
export const ERRORS = {
  not_authenticated: { status: 401, key: 'errors.not_authenticated' },
  authentication_failed: { status: 401, key: 'errors.authentication_failed' },
  basic_header_no_credentials: { status: 401, key: 'errors.basic_header_no_credentials' },
  basic_header_spaces: { status: 401, key: 'errors.basic_header_spaces' },
  basic_header_encoding: { status: 401, key: 'errors.basic_header_encoding' },
  // Django REST Framework's TokenAuthentication (`Authorization: Token <key>`).
  token_header_no_credentials: { status: 401, key: 'errors.token_header_no_credentials' },
  token_header_spaces: { status: 401, key: 'errors.token_header_spaces' },
  token_header_encoding: { status: 401, key: 'errors.token_header_encoding' },
  invalid_token: { status: 401, key: 'errors.invalid_token' },
  // An application's own authentication refusing what a request brought (DRF's AuthenticationFailed): `credentialsRefused()`.
  credentials_refused: { status: 401, key: 'errors.credentials_refused' },
  user_inactive: { status: 401, key: 'errors.user_inactive' },
  login_failed: { status: 404, key: 'errors.login_failed' },
  permission_denied: { status: 403, key: 'errors.permission_denied' },
  csrf_failed: { status: 403, key: 'errors.csrf_failed' },
  // Sanctum's MissingAbilityException: the API token lacks the ability the action needs.
  missing_ability: { status: 403, key: 'errors.missing_ability' },
  not_found: { status: 404, key: 'errors.not_found' },
  record_not_found: { status: 404, key: 'errors.record_not_found' },
  invalid_page: { status: 404, key: 'errors.invalid_page' },
  invalid_cursor: { status: 404, key: 'errors.invalid_cursor' },
  // A list asked whole that holds more rows than its exposure answers at once (`pagination.maxWholeList`): ask for pages,
  // or, where the list offers none, fewer rows.
  list_too_long: { status: 400, key: 'errors.list_too_long' },
  list_too_long_no_pages: { status: 400, key: 'errors.list_too_long_no_pages' },
  // spatie/laravel-query-builder's InvalidQuery exceptions: a name the list does not allow.
  invalid_filter_query: { status: 400, key: 'errors.invalid_filter_query' },
  invalid_sort_query: { status: 400, key: 'errors.invalid_sort_query' },
  invalid_field_query: { status: 400, key: 'errors.invalid_field_query' },
  invalid_include_query: { status: 400, key: 'errors.invalid_include_query' },
  method_not_allowed: { status: 405, key: 'errors.method_not_allowed' },
  // If-Match named a version of the row other than the stored one (lost-update protection, RFC 9110 §13.1.1).
  precondition_failed: { status: 412, key: 'errors.precondition_failed' },
  invalid_host: { status: 400, key: 'errors.invalid_host' },
  parse_error_json: { status: 400, key: 'errors.parse_error_json' },
  parse_error_form: { status: 400, key: 'errors.parse_error_form' },
  // An application's own parser refusing a body (DRF's ParseError): `parseError(detail)`.
  parse_error: { status: 400, key: 'errors.parse_error' },
  payload_too_large: { status: 413, key: 'errors.payload_too_large' },
  unsupported_media_type: { status: 415, key: 'errors.unsupported_media_type' },
  validation_failed: { status: 400, key: 'errors.validation_failed' },
  throttled: { status: 429, key: 'errors.throttled' },
  server_error: { status: 500, key: 'errors.server_error' },
  // The database did not answer in time (db/unavailable.ts): try again, unlike a 500.
  database_unavailable: { status: 503, key: 'errors.database_unavailable' },
} as const satisfies Record<string, { status: number; key: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** Field-level validation failures; their texts live under `validation.` in each site's catalogue. */
export const FIELD_ERRORS = {
  required: 'validation.required',
  null: 'validation.null',
  blank: 'validation.blank',
  max_length: 'validation.max_length',
  invalid_string: 'validation.invalid_string',
  invalid_boolean: 'validation.invalid_boolean',
  invalid_integer: 'validation.invalid_integer',
  invalid_datetime: 'validation.invalid_datetime',
  null_characters: 'validation.null_characters',
  invalid_email: 'validation.invalid_email',
  invalid_username: 'validation.invalid_username',
  unique: 'validation.unique',
  // Django's UniqueTogetherValidator: `fields` names them.
  unique_together: 'validation.unique_together',
  invalid_data: 'validation.invalid_data',
  // A list filter's value, as Django's form fields word it.
  enter_number: 'validation.enter_number',
  enter_whole_number: 'validation.enter_whole_number',
  enter_datetime: 'validation.enter_datetime',
  select_valid_choice: 'validation.select_valid_choice',
  too_many_values: 'validation.too_many_values',
  too_many_short_values: 'validation.too_many_short_values',
  operator_not_allowed: 'validation.operator_not_allowed',
  min_value: 'validation.min_value',
  max_value: 'validation.max_value',
  invalid_decimal: 'validation.invalid_decimal',
  max_digits: 'validation.max_digits',
  max_decimal_places: 'validation.max_decimal_places',
  invalid_choice: 'validation.invalid_choice',
  invalid_date: 'validation.invalid_date',
  invalid_json: 'validation.invalid_json',
  // A reference or a many-to-many written by id.
  incorrect_type: 'validation.incorrect_type',
  does_not_exist: 'validation.does_not_exist',
  not_a_list: 'validation.not_a_list',
  // A new password that breaks one of the password rules (src/auth/password-rules.ts, Django's validators).
  password_too_short: 'validation.password_too_short',
  password_too_similar: 'validation.password_too_similar',
  password_too_common: 'validation.password_too_common',
  password_entirely_numeric: 'validation.password_entirely_numeric',
  // A declaration's hook or action refused the write; its message is the resource's own (FieldError.key).
  refused: 'validation.refused',
} as const satisfies Record<string, string>;

export type FieldErrorCode = keyof typeof FIELD_ERRORS;
export type MessageParams = Record<string, string | number>;

export class ApiError extends Error {
  /** `cause`: the unexpected error behind a server_error, shown only in debug output and logs. */
  constructor(
    readonly code: ErrorCode,
    readonly params: MessageParams = {},
    readonly headers: Record<string, string> = {},
    options?: { cause?: unknown },
  ) {
    super(code, options);
    this.name = 'ApiError';
  }

  get status(): number {
    return ERRORS[this.code].status;
  }

  get messageKey(): string {
    return ERRORS[this.code].key;
  }
}

export interface FieldError {
  code: FieldErrorCode;
  params: MessageParams;
  /** The message's key when it is not the code's own (a hook's refusal). */
  key?: string;
}

/** Several fields may fail at once; only the failing ones are reported. */
export class ValidationError extends ApiError {
  /** `resource` keys the field labels in the `resources` catalogue. */
  constructor(
    readonly fields: Readonly<Record<string, FieldError[]>>,
    readonly resource?: string,
  ) {
    super('validation_failed');
    this.name = 'ValidationError';
  }
}

/** Collects field errors in declaration order and throws them together. */
export class FieldErrors {
  private readonly collected: Record<string, FieldError[]> = {};

  add(field: string, code: FieldErrorCode, params: MessageParams = {}): void {
    (this.collected[field] ??= []).push({ code, params });
  }

  /** Adds every field error of an earlier ValidationError. */
  addAll(error: ValidationError): void {
    for (const [field, errors] of Object.entries(error.fields)) for (const e of errors) (this.collected[field] ??= []).push(e);
  }

  has(field: string): boolean {
    return field in this.collected;
  }

  throwIfAny(resource?: string): void {
    if (Object.keys(this.collected).length > 0) throw new ValidationError(this.collected, resource);
  }
}

/** A resource's name for people from the `resources` catalogue, or its declared name when the catalogue has none. */
export function resourceLabel(t: Translate, resource: { key: string; declaration: { name: string } }): string {
  return t(`resources:${resource.key}.name`, { defaultValue: resource.declaration.name });
}

/** A field's label from the `resources` catalogue, or its name when it has none. */
export function fieldLabel(t: Translate, resource: string | undefined, field: string): string {
  return resource ? t(`resources:${resource}.fields.${field}`, { defaultValue: field }) : field;
}

/** Each failing field with its label and its messages, in the request's language. */
export function fieldErrorMessages(t: Translate, error: ValidationError): { field: string; label: string; messages: string[] }[] {
  return Object.entries(error.fields).map(([field, errors]) => {
    const label = fieldLabel(t, error.resource, field);
    // `attribute` is the field as Laravel's messages name it: its name, underscores as spaces.
    const attribute = field.replaceAll('_', ' ');
    return {
      field,
      label,
      messages: errors.map(({ code, params, key }) => t(key ?? FIELD_ERRORS[code], { label, attribute, ...params, defaultValue: key ?? code })),
    };
  });
}

/**
 * Anything thrown that is not an ApiError is a bug, a 500, unless the database
 * did not answer in time (a 503); either way its details stay in the log.
 */
export function asApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  return new ApiError(isDatabaseUnavailable(error) ? 'database_unavailable' : 'server_error', {}, {}, { cause: error });
}
