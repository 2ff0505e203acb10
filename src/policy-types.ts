/**
 * The policies an application writes and plugs in per resource (Django REST
 * Framework's authentication_classes, renderer_classes, parser_classes):
 * their public shapes, and how a declaration names them. Types only.
 */
import type { Request } from 'express';
import type { AuthUser } from './types/auth.js';
import type { DescribedScheme } from './openapi/types.js';
import type { Parser } from './parsers.js';

export type { Parser, ParserContext } from './parsers.js';

/** Who a request is (DRF's `(user, auth)`, without the auth). */
export interface Authenticated {
  user: AuthUser;
}

/** The accounts an authenticator may name a request's user by: active accounts only (null for none, or a deactivated one). */
export interface UserDirectory {
  findUser(username: string): Promise<AuthUser | null>;
  findUserById(id: number): Promise<AuthUser | null>;
}

/**
 * An authentication scheme, as DRF's BaseAuthentication. `authenticate`
 * answers null when the request does not use the scheme (the next one is
 * tried), the user when it identifies one, and throws `credentialsRefused()`
 * when the request uses the scheme wrongly (a 401 in the site's shape).
 */
export interface Authenticator {
  authenticate(req: Request, users: UserDirectory): Promise<Authenticated | null>;
  /** The `WWW-Authenticate` value of its 401s (DRF's authenticate_header). */
  readonly challenge?: string;
  /** How the API description names the scheme: `components.securitySchemes.<name>`, its text `security.<name>` in the `openapi` catalogue. */
  readonly described: DescribedScheme;
}

/** What a renderer sees of the request. */
export interface RenderContext {
  readonly req: Request;
  readonly user: AuthUser | null;
  /** The language of the answer's texts (`ja`, `en`). */
  readonly language: string;
}

/** The answer being rendered: its status and its body as the site shapes it (a list, a page, a row, an error). */
export interface RenderedAnswer {
  status: number;
  data?: unknown;
}

/** What a renderer knows of the endpoint beside the body (the page's name, for renderers that show one). */
export interface RenderedView {
  name: string;
}

/**
 * A representation of answers, as DRF's BaseRenderer: chosen by `?format=`
 * or by the Accept header (content negotiation), it renders every answer of
 * the routes it serves, errors included.
 */
export interface Renderer {
  /** The media type offered in negotiation (`text/csv`). */
  readonly mediaType: string;
  /** The `?format=` value that selects it (`csv`). */
  readonly format: string;
  /** The Content-Type header sent (`text/csv; charset=utf-8`). */
  readonly contentType: string;
  render(ctx: RenderContext, answer: RenderedAnswer, view: RenderedView): Buffer;
}

/**
 * A resource's own list of a policy: a list adds to the site's, after them
 * (the site's default renderer stays the default, its schemes are tried
 * first); a function of the site's list gives the whole list (DRF's
 * `authentication_classes = [...]`: `() => [apiKey]` replaces the site's).
 */
export type PolicyList<T> = readonly T[] | ((defaults: readonly T[]) => readonly T[]);

/** The policies a resource declares, on every site or on one (a site's exposure replaces the resource's, policy by policy). */
export interface ResourcePolicies {
  authenticators?: PolicyList<Authenticator>;
  renderers?: PolicyList<Renderer>;
  parsers?: PolicyList<Parser>;
}
