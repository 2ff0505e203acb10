/**
 * The token site's endpoints that are no resource's: the login that issues
 * an API token, the logout that revokes it and the CSRF cookie of first-party
 * browsers (Laravel Sanctum's routes), and what they share with the
 * endpoints of a user's own tokens (src/sites/own-tokens.ts).
 */
import type { Request, Response } from 'express';
import type { Accounts } from '../auth/accounts.js';
import { LoginStrategies } from '../auth/strategies.js';
import { resourceAbility } from '../auth/abilities.js';
import { csrfToken } from '../auth/csrf.js';
import { endSession, XSRF_COOKIE_NAME } from '../auth/sessions.js';
import type { AccessTokens } from '../auth/tokens.js';
import type { Config } from '../config.js';
import type { Site } from '../contracts.js';
import { ApiError, ValidationError } from '../errors.js';
import { representationSchema } from '../openapi/fields.js';
import type { ActionDocs, ErrorEntry, JsonSchema } from '../openapi/types.js';
import { bodyText, requestData } from '../parsers.js';
import { isAuthenticated } from '../permissions.js';
import { userModelOf, type ResourceRegistry } from '../registry.js';
import { Serializer } from '../serializers.js';
import type { LoginThrottle } from '../throttling.js';
import type { Endpoint } from '../views.js';
import { expiryOf, LOGIN_NAMING, TokenOptionsReader } from './token-options.js';
import type { BoundResource } from '../types/resource.js';

export interface TokenRouteServices {
  config: Config;
  registry: ResourceRegistry;
  accounts: Accounts;
  tokens: AccessTokens;
  loginThrottle: LoginThrottle;
  bodyLimit: number;
}

const MESSAGE: JsonSchema = { type: 'string' };
const MESSAGES: JsonSchema = { type: 'array', items: MESSAGE, minItems: 1 };
/** A login failure's body: its message in a list, as the original answered. */
const LOGIN_FAILED: JsonSchema = { type: 'object', properties: { message: MESSAGES }, required: ['message'], additionalProperties: false };
/** An example of what a token's options may refuse. */
const OPTIONS_REFUSED = new ValidationError({ expires_in: [{ code: 'min_value', params: { min_value: 1 } }] });

/** Malformed or unsupported bodies: to the login they are missing credentials, as to Laravel. */
const UNREADABLE_BODY: ReadonlySet<string> = new Set(['parse_error_json', 'parse_error_form', 'unsupported_media_type']);

async function credentialsData(req: Request, bodyLimit: number): Promise<unknown> {
  try {
    return await requestData(req, bodyLimit);
  } catch (error) {
    if (error instanceof ApiError && UNREADABLE_BODY.has(error.code)) return {};
    throw error;
  }
}

export function isFields(data: unknown): data is Record<string, unknown> {
  return typeof data === 'object' && data !== null && !Array.isArray(data);
}

/** The token model, which a token site always has (its AccessTokens are made from it). */
export function tokenResource(registry: ResourceRegistry): BoundResource {
  const found = registry.tokens();
  if (!found) throw new Error('the token site needs a resource that declares tokenModel');
  return found;
}

/** How long a token's name may be: its column's length. */
export function tokenNameLength(registry: ResourceRegistry): number {
  const declared = tokenResource(registry).declaration.fields.name;
  return (declared && 'maxLength' in declared ? declared.maxLength : undefined) ?? 255;
}

/** An ability the site's first resource needs, for the description's examples. */
export function exampleAbility(site: Site, registry: ResourceRegistry): string {
  const [first] = registry.exposedOn(site.name).filter(({ exposure }) => exposure.actions.includes('list'));
  return first ? (resourceAbility(first.resource.declaration, 'list', 'GET') ?? '*') : '*';
}

/** A validation error of a token's options: the fields, and each ability by its place (`abilities.0`). */
export function optionsValidation(site: Site, reader: TokenOptionsReader): ErrorEntry {
  const schema = site.docs.validation(reader.fields);
  const errors = schema.properties?.errors ?? {};
  const withPlaces: JsonSchema = { ...errors, patternProperties: { '^abilities\\.\\d+$': MESSAGES } };
  return { code: 'validation_failed', schema: { ...schema, properties: { ...schema.properties, errors: withPlaces } }, sample: OPTIONS_REFUSED };
}

/**
 * `POST /login`: a new token for an active account's email and password.
 * Unknown email, wrong password, inactive account and missing fields answer
 * the same 404 after the same password hashing. The token's name, abilities
 * and lifetime may be asked for; what is wrong with them is a 422 before any
 * password is checked.
 */
function loginEndpoint(site: Site, { config, registry, accounts, tokens, loginThrottle, bodyLimit }: TokenRouteServices): Endpoint {
  const users = registry.users();
  const fields = users.declaration.sites?.[site.name]?.fields ?? ['id'];
  const userSerializer = new Serializer(users, { fields, formatTimestamp: site.formatTimestamp, readOnly: true });
  const email = users.declaration.fields[userModelOf(users).emailField];
  const reader = new TokenOptionsReader(LOGIN_NAMING, tokenNameLength(registry));
  const strategies = new LoginStrategies(accounts, loginThrottle);
  const ability = exampleAbility(site, registry);
  const credentials: Record<string, JsonSchema> = {
    email: { type: 'string', format: 'idn-email', example: email?.example },
    password: { type: 'string', format: 'password' },
  };
  const body = (options: JsonSchema): JsonSchema => ({
    type: 'object',
    properties: { ...credentials, ...options.properties },
    required: ['email', 'password'],
  });
  const docs: ActionDocs = {
    summary: 'operations.login',
    requestBody: body(reader.jsonSchema(ability, tokens.defaultName)),
    formBody: body(reader.formSchema(ability, tokens.defaultName)),
    success: {
      status: 201,
      schema: {
        type: 'object',
        properties: { user: representationSchema(userSerializer, site.docs.timestamp), token: { type: 'string', example: '1|Wq8n…' } },
        required: ['user', 'token'],
        additionalProperties: false,
      },
    },
    // A browser session's cookie is checked first, CSRF token included.
    errors: [{ code: 'login_failed', schema: LOGIN_FAILED }, optionsValidation(site, reader), 'payload_too_large', 'csrf_failed', 'throttled'],
  };
  return {
    name: (ctx) => ctx.t('views.login'),
    permissions: [],
    methods: {
      POST: {
        action: 'create',
        docs,
        run: async (ctx) => {
          const data = await credentialsData(ctx.req, bodyLimit);
          const options = isFields(data) ? await reader.read(data) : {};
          const email = bodyText(data, 'email').trim();
          const password = bodyText(data, 'password');
          const row = await strategies.check('token', ctx.req, ctx.res, { identifier: email, password });
          if (!row) throw new ApiError('login_failed');
          await accounts.recordLogin(row);
          const { plainText } = await tokens.create(accounts.toAuthUser(row), {
            name: options.name,
            abilities: options.abilities,
            expiresAt: expiryOf(options.expiresIn, config.tokenMaxExpirationMinutes),
          });
          return { status: 201, data: { user: userSerializer.represent(row), token: plainText } };
        },
      },
    },
  };
}

/** `POST /logout`: revokes the token the request carries; the user's other tokens stay valid. */
function logoutEndpoint(tokens: AccessTokens): Endpoint {
  return {
    name: (ctx) => ctx.t('views.logout'),
    permissions: [isAuthenticated],
    methods: {
      POST: {
        action: 'destroy',
        docs: { summary: 'operations.logout', success: { status: 204 }, errors: ['not_authenticated', 'csrf_failed', 'throttled'] },
        run: async (ctx) => {
          if (ctx.token) await tokens.revoke(ctx.token.id);
          // A first-party session logs out as Sanctum's web guard does: the session ends.
          else if (ctx.req.user) await endSession(ctx.req, ctx.res);
          return { status: 204 };
        },
      },
    },
  };
}

/**
 * `GET`/`HEAD /sanctum/csrf-cookie`: 204, a session, and its CSRF token in an
 * `XSRF-TOKEN` cookie that scripts can read, for first-party clients to echo
 * in `X-XSRF-TOKEN` on the requests their session cookie authenticates.
 */
export function csrfCookieEndpoint(config: Config): Endpoint {
  return {
    name: (ctx) => ctx.t('views.csrf_cookie'),
    permissions: [],
    opensSession: true,
    methods: {
      GET: {
        action: 'retrieve',
        docs: { summary: 'operations.csrf_cookie', success: { status: 204 }, errors: ['throttled'] },
        run: async (ctx) => {
          setXsrfCookie(ctx.req, ctx.res, config.sessionCookieAge);
          return { status: 204 };
        },
      },
    },
  };
}

/** The XSRF-TOKEN cookie with the session's token (made now if the session has none). */
export function setXsrfCookie(req: Request, res: Response, maxAgeSeconds: number): void {
  res.cookie(XSRF_COOKIE_NAME, csrfToken(req), { path: '/', sameSite: 'lax', secure: req.secure, maxAge: maxAgeSeconds * 1000 });
}

/** The routes of logging in and out: `/login`, `/logout` and `/sanctum/csrf-cookie`. */
export function sessionRoutes(site: Site, services: TokenRouteServices): { path: string; endpoint: Endpoint }[] {
  return [
    { path: '/login', endpoint: loginEndpoint(site, services) },
    { path: '/logout', endpoint: logoutEndpoint(services.tokens) },
    { path: '/sanctum/csrf-cookie', endpoint: csrfCookieEndpoint(services.config) },
  ];
}
