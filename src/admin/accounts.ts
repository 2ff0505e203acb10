import './env.js';
import type { BaseProperty } from 'adminjs';
import type { Accounts } from '../auth/accounts.js';
import { mayChangeWhatBelongsTo, SUPERUSER_FIELD } from '../ownership.js';
import type { AdminPolicy, Refusals, WriteContext } from './resource.js';
import { VirtualProperty } from './records.js';
import type { StaffMember } from './staff.js';

/** The form field that sets a new password; the stored hash itself is never a property. */
export const PASSWORD_PROPERTY = 'password';
/** Only superusers change these, on anyone. */
const PRIVILEGES = ['is_staff', SUPERUSER_FIELD] as const;

/**
 * The account model in the admin, as Django's UserAdmin: a password typed in
 * clear and stored with the product's hasher (left empty on edit, the old one
 * stays), and privileges checked here, on the server, whatever the page hid.
 * A superuser's account is a superuser's to change: DeclaredResource refuses
 * it whole (ownership.ts), before this policy sees the form.
 */
export class AccountPolicy implements AdminPolicy {
  constructor(private readonly accounts: Accounts) {}

  properties(): BaseProperty[] {
    return [new VirtualProperty(PASSWORD_PROPERTY, 'password')];
  }

  async prepare(input: Record<string, unknown>, values: Record<string, unknown>, context: WriteContext): Promise<Refusals> {
    const refusals: Refusals = { ...this.privilegeRefusals(values, context) };
    const password = input[PASSWORD_PROPERTY];
    const typed = typeof password === 'string' && password !== '';
    if (typed && password.trim() !== '') {
      // The form's names where it changes them, else the account's: a password may not be too like either.
      const words = this.accounts.accountWords((field) => (field in values ? values[field] : context.row?.get(field)));
      const [broken] = this.accounts.brokenPasswordRules(password, words);
      // One message a field: the first rule broken (the admin's refusals carry no parameters).
      if (broken) refusals[PASSWORD_PROPERTY] = `accounts.${broken.code}`;
      else values.password = await this.accounts.hasher.make(password);
    } else if (typed) {
      refusals[PASSWORD_PROPERTY] = 'accounts.password_blank';
    } else if (context.row === null) {
      refusals[PASSWORD_PROPERTY] = 'accounts.password_required';
    }
    return refusals;
  }

  private privilegeRefusals(values: Record<string, unknown>, { staff, row }: WriteContext): Refusals {
    const refusals: Refusals = {};
    const current = (name: string): boolean => Boolean(row?.get(name) ?? false);
    if (!staff.isSuperuser) {
      for (const name of PRIVILEGES) {
        if (name in values && Boolean(values[name]) !== current(name)) refusals[name] = 'accounts.privilege_change';
      }
    }
    if (row && String(row.get('id')) === staff.id) {
      if (values.is_staff === false) refusals.is_staff = 'accounts.own_staff';
      if (values.is_active === false) refusals.is_active = 'accounts.own_active';
    }
    return refusals;
  }

  refuseDelete({ staff, row }: WriteContext): string | null {
    return row && String(row.get('id')) === staff.id ? 'accounts.own_delete' : null;
  }

  offers(action: 'edit' | 'delete', staff: StaffMember, value: (field: string) => unknown): boolean {
    if (action === 'delete' && String(value('id')) === staff.id) return false;
    return mayChangeWhatBelongsTo(staff, Boolean(value(SUPERUSER_FIELD)));
  }
}
