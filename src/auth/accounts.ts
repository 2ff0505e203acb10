import { col, fn, UniqueConstraintError, where, type Sequelize } from 'sequelize';
import { compiledReads, everyColumn, storedRecord, type KeyedRead } from '../db/compiled.js';
import { clock } from '../clock.js';
import { VersionedRows } from '../db/versioned-rows.js';
import { fieldLabel, FieldErrors, ValidationError } from '../errors.js';
import type { Translate } from '../i18n.js';
import { displayName, userModelOf, WITH_HIDDEN, type ResourceRegistry } from '../registry.js';
import { Serializer } from '../serializers.js';
import { utcTimestamp } from '../timestamps.js';
import type { PasswordGuard } from '../throttling.js';
import type { PasswordHasher } from './hashers.js';
import { brokenPasswordRules, type AccountWords, type BrokenRule } from './password-rules.js';
import type { AuthUser } from '../types/auth.js';
import type { Row, RowModel, StoredRecord } from '../types/rows.js';
import type { UserModelContract } from '../types/declaration.js';
import type { BoundResource } from '../types/resource.js';

/** Longer than any email address can be (RFC 5321), and than any username. */
const MAX_IDENTIFIER_LENGTH = 254;

/** What a login form or header may name an account by, tried in this order. */
export type Identifier = 'username' | 'email';

export interface CredentialCheck {
  by: readonly Identifier[];
  /** Required, so that no login path forgets its throttle; `unguarded` where no client is involved. */
  guard: PasswordGuard;
  accept?: (row: Row) => boolean;
  /** Told which account the check weighed the password against (null: none), before it is hashed. */
  weighed?: (row: Row | null) => void;
}

export interface NewAccount {
  username: string;
  email: string;
  name?: string;
  password: string;
  isStaff?: boolean;
  isSuperuser?: boolean;
}

/** Columns every account model has, besides those its contract names (as Django's AbstractUser). */
const REQUIRED_COLUMNS = ['id', 'password', 'is_active', 'is_staff', 'is_superuser', 'last_login'] as const;

/** Most accounts kept in memory for the requests that authenticate as them (src/db/versioned-rows.ts). */
const KEPT_ACCOUNTS = 10_000;

/** No account can hold a NUL (validation refuses it), and SQLite would cut the query at it: look nothing up. */
function unstorable(text: string): boolean {
  return text.includes('\u0000');
}

/** What a unique violation names: columns (PostgreSQL) or the index (SQLite's expression indexes). */
function violatedColumns(error: UniqueConstraintError): string {
  const parent = error.parent as Error & { constraint?: string };
  return [...Object.keys(error.fields ?? {}), parent.constraint ?? '', parent.message].join(' ');
}

/**
 * Accounts and password checks over whichever resource declares `userModel`.
 * Every password check costs the same whether or not the account exists.
 */
export class Accounts {
  private readonly users: BoundResource;
  private readonly contract: UserModelContract;
  private readonly creation: Serializer;
  /** The user model with its hidden fields (the password hash), made once: scope() makes a new model class each call. */
  private readonly usersWithHidden: RowModel;
  /** The compiled read of an account by id, its hidden fields too. */
  private readonly storedRead: KeyedRead;
  /** Accounts as a request's credentials last read them, while the user table is unchanged. */
  private readonly keptAccounts: VersionedRows<number, StoredRecord>;

  constructor(
    registry: ResourceRegistry,
    readonly hasher: PasswordHasher,
  ) {
    this.users = registry.users();
    this.usersWithHidden = this.users.model.scope(WITH_HIDDEN);
    this.storedRead = { model: this.users.model, attributes: everyColumn(this.users.model) };
    this.keptAccounts = new VersionedRows(this.storedRead, { maxEntries: KEPT_ACCOUNTS });
    this.contract = userModelOf(this.users);
    for (const column of REQUIRED_COLUMNS) {
      if (!(column in this.users.declaration.fields)) throw new Error(`The user model lacks the ${column} field`);
    }
    const { usernameField, emailField, displayField } = this.contract;
    this.creation = new Serializer(this.users, {
      fields: [usernameField, emailField, displayField],
      rules: { [usernameField]: { required: true }, [emailField]: { required: true } },
      formatTimestamp: utcTimestamp,
    });
  }

  toAuthUser(row: StoredRecord): AuthUser {
    return {
      id: row.get('id') as number,
      username: row.get(this.contract.usernameField) as string,
      displayName: displayName(this.users, row),
      isStaff: Boolean(row.get('is_staff')),
      isSuperuser: Boolean(row.get('is_superuser')),
    };
  }

  async findByUsername(username: string, { withHidden = false } = {}): Promise<Row | null> {
    if (unstorable(username)) return null;
    const model = withHidden ? this.usersWithHidden : this.users.model;
    return model.findOne({ where: { [this.contract.usernameField]: username } });
  }

  async findById(id: number, { withHidden = false } = {}): Promise<Row | null> {
    if (!Number.isSafeInteger(id)) return null;
    const model = withHidden ? this.usersWithHidden : this.users.model;
    return model.findByPk(id);
  }

  /**
   * The account with this id, its hidden fields too, read by compiled SQL
   * (db/compiled.ts): every request with a session or cached HTTP Basic
   * credentials reads it, and only reads it. Given the request, as its
   * authentication does before anything is written, the account it read
   * last stands for the read while the user table is unchanged
   * (db/versioned-rows.ts); any later read in a request must not pass it.
   */
  async findStoredById(id: number, request?: object): Promise<StoredRecord | null> {
    if (!Number.isSafeInteger(id)) return null;
    return this.keptAccounts.get(id, request, async () => {
      const row = await compiledReads(this.users.model.sequelize as Sequelize).one(this.storedRead, 'account-by-id', id);
      return row ? storedRecord(this.users, row) : null;
    });
  }

  /** The active account with this id, as the rest of the framework sees it; null if gone or deactivated. */
  async findActiveById(id: number): Promise<AuthUser | null> {
    const row = await this.findById(id);
    return row && row.get('is_active') ? this.toAuthUser(row) : null;
  }

  /** The account with this email address, whatever its letter case (the unique index is on lower(email)). */
  async findByEmail(email: string, { withHidden = false } = {}): Promise<Row | null> {
    if (unstorable(email)) return null;
    const model = withHidden ? this.usersWithHidden : this.users.model;
    return model.findOne({ where: where(fn('lower', col(this.contract.emailField)), fn('lower', email)) });
  }

  /**
   * Whether `row` (loaded with its hidden fields) is an active account with
   * this password that `accept` takes. No row, a wrong password and an
   * inactive account all take one password hashing and give false. A weaker
   * stored hash is replaced, only for an account that is let in: a refused
   * one is left as it was.
   */
  async verify(row: Row | null, password: string, accept: (row: Row) => boolean = () => true): Promise<boolean> {
    if (!row) {
      await this.hasher.spendTimeOfOneCheck(password);
      return false;
    }
    const check = await this.hasher.check(password, row.get('password') as string);
    if (!check.valid || !row.get('is_active') || !accept(row)) return false;
    if (check.mustUpdate) {
      await row.update({ password: await this.hasher.make(password) }, { silent: true });
    }
    return true;
  }

  /**
   * The active account (with its hidden fields) that `identifier` names by
   * one of `by` and `password` opens, or null (see `verify`); `accept` may
   * refuse it further (the admin wants staff), before its hash is upgraded.
   * The guard may refuse to run the check at all (a throttle).
   */
  async checkCredentials(identifier: string, password: string, options: CredentialCheck): Promise<Row | null> {
    const { by, guard, accept = () => true } = options;
    const named = await this.namedBy(identifier);
    const row = by.map((field) => named[field]).find((found) => found !== null) ?? null;
    options.weighed?.(row);
    const valid = await guard(this.throttledName(identifier, row, named), () => this.verify(row, password, accept));
    return valid ? row : null;
  }

  /**
   * The accounts (with their hidden fields) `identifier` names by username and
   * by email address. Both are looked up whatever the login takes, so that a
   * name costs the same queries whether or not it is an account.
   */
  private async namedBy(identifier: string): Promise<Record<Identifier, Row | null>> {
    // Longer than any username or email address can be: no account to look up.
    if (identifier === '' || identifier.length > MAX_IDENTIFIER_LENGTH) return { username: null, email: null };
    const username = await this.findByUsername(identifier, { withHidden: true });
    const email = await this.findByEmail(identifier, { withHidden: true });
    return { username, email };
  }

  /**
   * The name a throttle counts a check under: the username of the account
   * checked, or of one the identifier names in a way this login does not
   * take (an email address given to HTTP Basic), else the identifier. So
   * every spelling of an account is one name on every login, and no login
   * counts a name differently for being an account (usernames are
   * case-sensitive: `ALICE` is no account, and counts as `alice` does).
   */
  private throttledName(identifier: string, row: Row | null, named: Record<Identifier, Row | null>): string {
    const account = row ?? named.username ?? named.email;
    return account ? String(account.get(this.contract.usernameField)) : identifier;
  }

  /** The active account with this username and password, or null (see `checkCredentials`). */
  async authenticate(username: string, password: string, guard: PasswordGuard): Promise<AuthUser | null> {
    const row = await this.checkCredentials(username, password, { by: ['username'], guard });
    return row ? this.toAuthUser(row) : null;
  }

  /** A login (not a request authenticated by Basic or a token) sets last_login, as Django's login() does. */
  async recordLogin(row: Row): Promise<void> {
    await row.update({ last_login: clock().now() }, { silent: true });
  }

  private checkPassword(password: string, errors: FieldErrors): void {
    if (password.trim() === '') errors.add('password', 'blank');
  }

  /** Creates an account; a ValidationError names every field that is wrong, and nothing is written. */
  async create(account: NewAccount): Promise<AuthUser> {
    const { usernameField, emailField, displayField } = this.contract;
    const input = {
      [usernameField]: account.username,
      [emailField]: account.email,
      [displayField]: account.name ?? account.username,
    };
    let values: Record<string, unknown> = {};
    const errors = new FieldErrors();
    try {
      values = await this.creation.validate(input);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      errors.addAll(error);
    }
    this.checkPassword(account.password, errors);
    errors.throwIfAny(this.users.key);
    try {
      const row = await this.users.model.create({
        ...values,
        password: await this.hasher.make(account.password),
        is_staff: account.isStaff ?? false,
        is_superuser: account.isSuperuser ?? false,
        is_active: true,
      });
      return this.toAuthUser(row);
    } catch (error) {
      // Another writer took the name between the check and the insert.
      if (error instanceof UniqueConstraintError) {
        const field = violatedColumns(error).includes(emailField) ? emailField : usernameField;
        throw new ValidationError({ [field]: [{ code: 'unique', params: {} }] }, this.users.key);
      }
      throw error;
    }
  }

  /**
   * The account's own words a new password may not be too like: its
   * username, email address and name, read through `value` (a row's field,
   * or a form's value before it is saved).
   */
  accountWords(value: (field: string) => unknown): AccountWords {
    const { usernameField, emailField, displayField } = this.contract;
    const words: Record<string, string> = {};
    for (const field of new Set([usernameField, emailField, displayField, 'first_name', 'last_name'])) {
      if (!(field in this.users.declaration.fields)) continue;
      const word = value(field);
      if (typeof word === 'string' && word !== '') words[field] = word;
    }
    return words;
  }

  /** The words of an account not stored yet (or about to be renamed): its username, email address and name. */
  newAccountWords(account: Pick<NewAccount, 'username' | 'email' | 'name'>): AccountWords {
    const { usernameField, emailField, displayField } = this.contract;
    const given: Record<string, string | undefined> = { [usernameField]: account.username, [emailField]: account.email, [displayField]: account.name };
    return this.accountWords((field) => given[field]);
  }

  /** A new account's username or email address checked alone (well-formed, not taken), as `create` would check it; nothing is written. */
  async checkNewIdentifier(identifier: Identifier, value: string): Promise<void> {
    await this.creation.validate({ [this.identifierField(identifier)]: value }, { partial: true });
  }

  /** The user model's field that holds the username or the email address (what a ValidationError names). */
  identifierField(identifier: Identifier): string {
    return identifier === 'username' ? this.contract.usernameField : this.contract.emailField;
  }

  /**
   * Every password rule (Django's default validators) a password a person
   * chose breaks. Only where a person sets one (the CLI's prompts, the admin's
   * form, a password change): `create` and `setPassword`, which tests, seeders
   * and loaddata call, check none, as Django's create_user.
   */
  brokenPasswordRules(password: string, words: AccountWords, label?: (field: string) => string): BrokenRule[] {
    return brokenPasswordRules(password, words, label);
  }

  /**
   * What a rule's message calls one of the account's fields: its label in the
   * resources catalogue, a capital before lower case letters lowered, as
   * Django's verbose names read ("too similar to the email address").
   */
  wordLabels(t: Translate): (field: string) => string {
    return (field) => fieldLabel(t, this.users.key, field).replace(/^\p{Lu}(?=\p{Ll})/u, (first) => first.toLowerCase());
  }

  /** Adds a field error on `field` for each rule `password` breaks; `label` names the account's fields in the messages. */
  checkPasswordRules(password: string, words: AccountWords, errors: FieldErrors, field = 'password', label?: (field: string) => string): void {
    for (const { code, params } of this.brokenPasswordRules(password, words, label)) errors.add(field, code, params);
  }

  /** Stores a new password for `row`; any browser session keyed to the old hash ends (src/auth/sessions.ts). */
  async replacePassword(row: Row, password: string): Promise<string> {
    const hash = await this.hasher.make(password);
    await row.update({ password: hash });
    return hash;
  }

  /** Sets a new password; false when there is no such account. */
  async setPassword(username: string, password: string): Promise<boolean> {
    const errors = new FieldErrors();
    this.checkPassword(password, errors);
    errors.throwIfAny(this.users.key);
    const row = await this.findByUsername(username);
    if (!row) return false;
    await row.update({ password: await this.hasher.make(password) });
    return true;
  }
}
