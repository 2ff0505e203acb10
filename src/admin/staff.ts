import type { ActionContext, CurrentAdmin } from 'adminjs';
import { ForbiddenError } from 'adminjs';
import type { Language } from '../i18n.js';

/** The logged-in staff member as AdminJS carries it (its `id` is a string there). */
export interface StaffMember extends CurrentAdmin {
  id: string;
  isSuperuser: boolean;
  language: Language;
}

export function isStaffMember(admin: CurrentAdmin | undefined): admin is StaffMember {
  return typeof admin?.id === 'string' && typeof (admin as Partial<StaffMember>).isSuperuser === 'boolean';
}

/** Who performs an action; the router always sets it, so its absence is a refusal, never a default. */
export function staffOf(context: ActionContext | undefined): StaffMember {
  const admin = context?.currentAdmin;
  if (!isStaffMember(admin)) throw new ForbiddenError('No staff member');
  return admin;
}
