/**
 * Who a request is, as every layer sees it: the authenticated user and the
 * API token it proved itself with. Types only, importing nothing of the
 * framework; auth/accounts.ts and auth/tokens.ts make them from rows.
 */

/** The authenticated user as the rest of the framework sees it. */
export interface AuthUser {
  id: number;
  username: string;
  displayName: string;
  isStaff: boolean;
  isSuperuser: boolean;
}

/** The token a request was authenticated with. */
export interface AccessToken {
  id: number;
  name: string;
  /** What it may do (Sanctum's abilities; `*`: everything). */
  abilities: readonly string[];
  /** When it stops working, by its own expires_at or the global lifetime, whichever comes first; null: never by itself. */
  expiresAt: Date | null;
}
