/**
 * Token abilities, as Laravel Sanctum's: an API token carries a list of
 * abilities (`<table>:read`, `<table>:write`, `*` for all) and each action of
 * a resource needs one of them. Requests without a token (a browser session,
 * HTTP Basic) may do everything, as Sanctum's first-party requests may.
 */
import type { RequestState } from '../types/request.js';
import { ApiError } from '../errors.js';
import type { ActionName } from '../types/declaration.js';
import type { ResourceDeclaration } from '../types/resource.js';

/** The ability that grants every other. */
export const ALL_ABILITIES = '*';

/** What a token gets when nobody says otherwise (Sanctum's createToken default). */
export const DEFAULT_ABILITIES: readonly string[] = [ALL_ABILITIES];

const READ_ACTIONS: ReadonlySet<string> = new Set<ActionName>(['list', 'retrieve']);
const WRITE_ACTIONS: ReadonlySet<string> = new Set<ActionName>(['create', 'update', 'partial_update', 'destroy']);
const MODEL_ACTIONS: ReadonlySet<string> = new Set([...READ_ACTIONS, ...WRITE_ACTIONS, 'current']);
/** A custom action answering these only reads. */
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD']);
/** A declared ability: no white space (a form lists abilities separated by it) and no comma. */
const ABILITY = /^[^\s,]+$/u;

/** Sanctum's `can()`: the token holds the ability, or `*`. */
export function can(abilities: readonly string[], ability: string): boolean {
  return abilities.includes(ALL_ABILITIES) || abilities.includes(ability);
}

/**
 * The ability an action of the resource needs when a method asks for it:
 * the declaration's for that action, else its read or write ability (reads
 * being list, retrieve and custom actions by GET). OPTIONS' metadata needs
 * none, nor does `current`: the caller's own account is every token's, as
 * Laravel's `/api/user` route asks only `auth:sanctum`.
 */
export function resourceAbility(declaration: ResourceDeclaration, action: string, method: string): string | null {
  if (action === 'metadata') return null;
  const declared = declaration.abilities;
  const perAction = declared?.actions;
  if (perAction && Object.hasOwn(perAction, action)) return perAction[action] ?? null;
  if (action === 'current') return null;
  const reads = READ_ACTIONS.has(action) || (!WRITE_ACTIONS.has(action) && SAFE_METHODS.has(method));
  return reads ? (declared?.read ?? `${declaration.table}:read`) : (declared?.write ?? `${declaration.table}:write`);
}

/** 403 "Invalid ability provided." when the request's token lacks `ability`; requests without a token pass. */
export function checkAbility(ctx: Pick<RequestState, 'token'>, ability: string | null): void {
  if (ability !== null && ctx.token && !can(ctx.token.abilities, ability)) throw new ApiError('missing_ability');
}

/**
 * A token row's abilities from their stored JSON text. Anything but a list
 * of strings (a damaged or empty column) grants nothing: a token never gets
 * more than it was given.
 */
export function storedAbilities(stored: unknown): string[] {
  if (typeof stored !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

/** Checks a declaration's abilities when it loads: named actions exist, abilities are single words. */
export function assertAbilities(declaration: ResourceDeclaration): void {
  const { abilities } = declaration;
  if (!abilities) return;
  const fail = (message: string): never => {
    throw new Error(`Resource ${declaration.name}: abilities ${message}`);
  };
  for (const [key, ability] of [['read', abilities.read], ['write', abilities.write]] as const) {
    if (ability !== undefined && !ABILITY.test(ability)) fail(`.${key} "${ability}" must be one word without commas`);
  }
  for (const [action, ability] of Object.entries(abilities.actions ?? {})) {
    if (!MODEL_ACTIONS.has(action) && !Object.hasOwn(declaration.actions ?? {}, action)) fail(`.actions names unknown action "${action}"`);
    if (ability !== null && !ABILITY.test(ability)) fail(`.actions.${action} "${ability}" must be one word without commas`);
  }
}
