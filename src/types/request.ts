/**
 * The request context's shape below the request machinery: the request, its
 * language, and who sent it. Permissions, abilities, paginators and query
 * dialects read no more; the full context (contracts.ts) adds the site, the
 * renderer and the authenticator, which name the policies that read this.
 */
import type { Request, Response } from 'express';
import type { Language, Translate } from '../i18n.js';
import type { AccessToken, AuthUser } from './auth.js';

export interface RequestState {
  readonly req: Request;
  readonly res: Response;
  readonly language: Language;
  readonly t: Translate;
  user: AuthUser | null;
  /** The API token the request was authenticated with, if any. */
  token: AccessToken | null;
}
