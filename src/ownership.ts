/**
 * What belongs to a superuser, and the one rule on it that every writer
 * asks (the APIs' owner-or-staff permission, their custom actions and
 * browsable forms, the admin): a staff member who is not a superuser may not
 * change or delete what a superuser owns, that is a row whose owner is a
 * superuser, a superuser's account, a superuser's token.
 * A leaf: it imports no module of the framework, so the declaration language
 * (permissions.ts) and the admin may both use it without an import circle;
 * a resource is read through the few members the rule needs.
 */

/** The account model's column that makes an account a superuser (Django's AbstractUser). */
export const SUPERUSER_FIELD = 'is_superuser';

/** Who asks to change a row: an API request's user, or the admin's staff member. */
export interface Actor {
  readonly isSuperuser: boolean;
}

/** A row's values, however it was read (a model instance or a compiled read's record). */
export interface RowValues {
  get(name: string): unknown;
}

/** The roles a declaration gives a resource, as the rule reads them. */
interface Roles {
  readonly ownerField?: string;
  /** Present on the account model. */
  readonly userModel?: object;
  /** Present on the API tokens' model. */
  readonly tokenModel?: { readonly userField: string };
}

/** A resource an owner field may point at; only the account model's rows can be a superuser's. */
interface AccountsResource {
  readonly declaration: Roles;
  readonly model: { findByPk(id: number): Promise<RowValues | null> };
}

/** A resource as the rule reads it: its roles, and where its references lead (by field). */
export interface OwnedResource {
  readonly declaration: Roles;
  readonly references: ReadonlyMap<string, { readonly field: string; readonly resource: AccountsResource }>;
}

/** The field of a row that names the account it belongs to: its owner, else its token's user; none on other resources. */
export function accountField(resource: OwnedResource): string | undefined {
  const { ownerField, tokenModel } = resource.declaration;
  return ownerField ?? tokenModel?.userField;
}

/** Whether the row is a superuser's: the account of one, or a row whose owner (or token's user) is one. */
export async function belongsToSuperuser(resource: OwnedResource, row: RowValues): Promise<boolean> {
  if (resource.declaration.userModel) return Boolean(row.get(SUPERUSER_FIELD));
  const field = accountField(resource);
  const ownerId = field === undefined ? null : row.get(field);
  if (ownerId === null || ownerId === undefined) return false;
  const accounts = [...resource.references.values()].find((reference) => reference.field === field)?.resource;
  if (!accounts?.declaration.userModel) return false;
  const owner = await accounts.model.findByPk(Number(ownerId));
  return Boolean(owner?.get(SUPERUSER_FIELD));
}

/** The rule, for a row whose owner is known to be a superuser or not: only a superuser changes what a superuser owns. */
export function mayChangeWhatBelongsTo(actor: Actor, ownerIsSuperuser: boolean): boolean {
  return actor.isSuperuser || !ownerIsSuperuser;
}

/** The rule on a row of `resource`; its owner is read only when the actor is no superuser. */
export async function mayChange(actor: Actor, resource: OwnedResource, row: RowValues): Promise<boolean> {
  return actor.isSuperuser || mayChangeWhatBelongsTo(actor, await belongsToSuperuser(resource, row));
}
