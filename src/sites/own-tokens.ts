/**
 * A user's own API tokens, as Jetstream's API token page offers them over
 * Sanctum: `GET /tokens` lists them (never their hashes), `POST /tokens` makes
 * one and shows its secret this once, `DELETE /tokens/<id>` revokes one and
 * `DELETE /tokens` every one but the token in use. A token may hand on only
 * abilities it holds itself.
 */
import { can, DEFAULT_ABILITIES, resourceAbility } from '../auth/abilities.js';
import type { RequestContext, Site, SiteResponse } from '../contracts.js';
import { ApiError, resourceLabel, ValidationError } from '../errors.js';
import { baseMetadata } from '../metadata.js';
import { representationSchema } from '../openapi/fields.js';
import type { ErrorEntry, JsonSchema } from '../openapi/types.js';
import { requestData } from '../parsers.js';
import { isAuthenticated } from '../permissions.js';
import { parsePk } from '../pk.js';
import type { Route } from '../routers.js';
import { Serializer, typeName } from '../serializers.js';
import type { Endpoint } from '../views.js';
import { exampleAbility, isFields, optionsValidation, tokenNameLength, tokenResource, type TokenRouteServices } from './token-endpoints.js';
import { expiryOf, OWNER_NAMING, TokenOptionsReader } from './token-options.js';
import type { Row } from '../types/rows.js';
import type { AuthUser } from '../types/auth.js';
import type { BoundResource } from '../types/resource.js';

/** What a token shows of itself: never its hash. */
const SHOWN = ['id', 'name', 'abilities', 'last_used_at', 'expires_at', 'created_at'] as const;
const LIST_KEY = 'tokens';
/** A session's writes also need its CSRF token. */
const WRITE_ERRORS: readonly ErrorEntry[] = ['not_authenticated', 'throttled', 'csrf_failed'];
/** What a body can do wrong before validation. */
const BODY_ERRORS: readonly ErrorEntry[] = ['parse_error_json', 'parse_error_form', 'payload_too_large', 'unsupported_media_type'];

/** What the endpoints share: the token model, how a token is shown and read, the abilities they need. */
interface OwnTokens {
  site: Site;
  services: TokenRouteServices;
  resource: BoundResource;
  serializer: Serializer;
  reader: TokenOptionsReader;
  read: string | null;
  write: string | null;
  /** An ability of the site, for the description's examples. */
  example: string;
}

function userOf(ctx: RequestContext): AuthUser {
  if (!ctx.user) throw new ApiError('not_authenticated');
  return ctx.user;
}

/** A token row as the endpoints show it: its abilities as a list. */
function shown(own: OwnTokens, row: Row): Record<string, unknown> {
  return { ...own.serializer.represent(row), abilities: own.services.tokens.abilitiesOf(row) };
}

/** The description of a token as listed, and as made (with its plain text). */
function tokenSchemas({ site, serializer, example }: OwnTokens): { listed: JsonSchema; created: JsonSchema } {
  const represented = representationSchema(serializer, site.docs.timestamp);
  const token: JsonSchema = {
    ...represented,
    properties: { ...represented.properties, abilities: { type: 'array', items: { type: 'string' }, example: [example] } },
  };
  return {
    listed: { type: 'object', properties: { [LIST_KEY]: { type: 'array', items: token } }, required: [LIST_KEY], additionalProperties: false },
    created: {
      ...token,
      properties: { ...token.properties, token: { type: 'string', example: '2|Wq8n…' } },
      required: [...(token.required ?? []), 'token'],
    },
  };
}

/** The earlier of two ends; null is never. */
function earliest(a: Date | null, b: Date | null): Date | null {
  if (a === null || b === null) return a ?? b;
  return a.getTime() <= b.getTime() ? a : b;
}

/** `POST /tokens`: the options read, the abilities and lifetime no more than the caller's token holds, the secret in the answer. */
async function makeToken(own: OwnTokens, ctx: RequestContext): Promise<SiteResponse> {
  const user = userOf(ctx);
  const data = await requestData(ctx.req, own.services.bodyLimit);
  if (!isFields(data)) throw new ValidationError({ non_field_errors: [{ code: 'invalid_data', params: { datatype: typeName(data) } }] });
  const options = await own.reader.read(data);
  // A token hands on only what it holds (by default, all of it); a session holds everything.
  const held = ctx.token?.abilities ?? DEFAULT_ABILITIES;
  const abilities = options.abilities ?? [...held];
  if (!abilities.every((ability) => can(held, ability))) throw new ApiError('missing_ability');
  // Nor does it outlive its maker: a token that ends in a minute cannot make one that never ends.
  const expiresAt = earliest(expiryOf(options.expiresIn, own.services.config.tokenMaxExpirationMinutes), ctx.token?.expiresAt ?? null);
  const { plainText, row } = await own.services.tokens.create(user, { name: options.name, abilities, expiresAt });
  return { status: 201, data: { ...shown(own, row), token: plainText } };
}

/** `/tokens`: list, make, revoke all others; OPTIONS gives the browsable page its form. */
function listEndpoint(own: OwnTokens): Endpoint {
  const { site, services, reader, read, write, example } = own;
  const { listed, created } = tokenSchemas(own);
  return {
    name: (ctx) => ctx.t('views.tokens'),
    permissions: [isAuthenticated],
    methods: {
      GET: {
        action: 'list',
        ability: read,
        docs: { summary: 'operations.tokens_list', success: { status: 200, schema: listed }, errors: ['not_authenticated', 'throttled'] },
        run: async (ctx) => ({ status: 200, data: { [LIST_KEY]: (await services.tokens.ownedBy(userOf(ctx))).map((row) => shown(own, row)) } }),
      },
      POST: {
        action: 'create',
        ability: write,
        docs: {
          summary: 'operations.tokens_create',
          requestBody: reader.jsonSchema(example, example),
          formBody: reader.formSchema(example, example),
          success: { status: 201, schema: created },
          errors: [...WRITE_ERRORS, 'missing_ability', optionsValidation(site, reader), ...BODY_ERRORS],
        },
        run: (ctx) => makeToken(own, ctx),
      },
      DELETE: {
        action: 'destroy',
        ability: write,
        docs: { summary: 'operations.tokens_destroy_others', success: { status: 204 }, errors: WRITE_ERRORS },
        run: async (ctx) => {
          await services.tokens.revokeOthers(userOf(ctx), ctx.token?.id ?? null);
          return { status: 204 };
        },
      },
      OPTIONS: {
        action: 'metadata',
        run: async (ctx) => ({ status: 200, data: { ...baseMetadata(ctx, ctx.t('views.tokens')), actions: { POST: reader.describe(ctx.t) } } }),
      },
    },
  };
}

/** `/tokens/<id>`: revoke one of one's own; another user's id is a 404, as an id of no token. */
function detailEndpoint({ site, services, resource, write }: OwnTokens): Endpoint {
  const model = resource.declaration.name;
  const notFound: ErrorEntry = { code: 'record_not_found', schema: site.docs.error, sample: new ApiError('record_not_found', { model, id: '1' }) };
  return {
    name: (ctx) => ctx.t('views.token'),
    permissions: [isAuthenticated],
    methods: {
      DELETE: {
        action: 'destroy',
        ability: write,
        docs: { summary: 'operations.tokens_destroy', subject: 'subjects.token', success: { status: 204 }, errors: [...WRITE_ERRORS, notFound] },
        run: async (ctx) => {
          const raw = ctx.req.params.id;
          const id = parsePk(typeof raw === 'string' ? raw : undefined);
          if (id === null || !(await services.tokens.revokeOwn(userOf(ctx), id))) {
            throw new ApiError('record_not_found', { model, name: resourceLabel(ctx.t, resource), id: String(raw ?? '').slice(0, 20) });
          }
          return { status: 204 };
        },
      },
    },
  };
}

/** The routes of the caller's own tokens: `/tokens` and `/tokens/:id`. */
export function ownTokenRoutes(site: Site, services: TokenRouteServices): Route[] {
  const resource = tokenResource(services.registry);
  const own: OwnTokens = {
    site,
    services,
    resource,
    serializer: new Serializer(resource, { fields: SHOWN, formatTimestamp: (date) => site.formatTimestamp(date), readOnly: true }),
    reader: new TokenOptionsReader(OWNER_NAMING, tokenNameLength(services.registry)),
    read: resourceAbility(resource.declaration, 'list', 'GET'),
    write: resourceAbility(resource.declaration, 'create', 'POST'),
    example: exampleAbility(site, services.registry),
  };
  return [
    { path: '/tokens', endpoint: listEndpoint(own) },
    { path: '/tokens/:id', endpoint: detailEndpoint(own) },
  ];
}
