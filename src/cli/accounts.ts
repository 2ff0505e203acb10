import type { Identifier } from '../auth/accounts.js';
import type { AccountWords } from '../auth/password-rules.js';
import { FIELD_ERRORS, fieldErrorMessages, ValidationError } from '../errors.js';
import type { Translate } from '../i18n.js';
import type { Services } from '../services.js';
import { readAll, type CliIO } from './io.js';
import type { AuthUser } from '../types/auth.js';

export interface AccountOptions {
  username?: string;
  email?: string;
  name?: string;
  password?: string;
  passwordStdin?: boolean;
  staff?: boolean;
  superuser?: boolean;
}

/** A failure already explained to the person; the command exits with status 1. */
export class CommandFailed extends Error {
  constructor(readonly lines: string[]) {
    super(lines.join('\n'));
    this.name = 'CommandFailed';
  }
}

export function validationLines(t: Translate, error: ValidationError): string[] {
  return fieldErrorMessages(t, error).flatMap(({ label, messages }) =>
    messages.map((message) => t('user.field_error', { label, message })),
  );
}

async function answer(io: CliIO, t: Translate, given: string | undefined, option: string, label: string) {
  if (given !== undefined) return given;
  if (!io.interactive) throw new CommandFailed([t('user.missing_option', { option })]);
  return io.prompter.text(t(label));
}

/**
 * A new account's username or email address: the flag's, or typed at the
 * prompt until it is well-formed and not taken (Django's createsuperuser
 * checks each answer as it is given, before asking the next).
 */
async function identifierAnswer(services: Services, io: CliIO, t: Translate, identifier: Identifier, given: string | undefined, option: string): Promise<string> {
  if (given !== undefined || !io.interactive) return answer(io, t, given, option, PROMPTS[identifier]);
  for (;;) {
    const typed = await io.prompter.text(t(PROMPTS[identifier]));
    try {
      await services.accounts.checkNewIdentifier(identifier, typed);
      return typed;
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      io.stderr.write(`${validationLines(t, error).join('\n')}\n`);
    }
  }
}

const PROMPTS: Record<Identifier, string> = { username: 'prompt.username', email: 'prompt.email' };

/** Django's changepassword gives up after this many refused passwords. */
const CHANGE_PASSWORD_TRIES = 3;

interface PasswordChoice {
  /** The account's own words the password may not be too like. */
  words: AccountWords;
  /** createuser's and createsuperuser's way: a refused password may be kept anyway, if the person says so. */
  mayBypass: boolean;
  /** How many refused passwords end the command (none: ask until one is taken). */
  tries?: number;
}

/** What is wrong with a typed password: blank, or the rules it breaks; no lines when it is fine. */
function passwordProblems(t: Translate, password: string, words: AccountWords, services: Services): string[] {
  if (password.trim() === '') return [t('user.field_error', { label: t('prompt.password'), message: t(FIELD_ERRORS.blank, { label: t('prompt.password') }) })];
  return services.accounts
    .brokenPasswordRules(password, words, services.accounts.wordLabels(t))
    .map(({ code, params }) => t(FIELD_ERRORS[code], { label: t('prompt.password'), attribute: 'password', ...params }));
}

/**
 * A password typed twice at the terminal, as Django's createsuperuser and
 * changepassword ask: two that differ, a blank one or one that breaks the
 * password rules is asked for again (createuser may keep one that breaks the
 * rules, if the person says so).
 */
async function typedPassword(services: Services, io: CliIO, t: Translate, choice: PasswordChoice): Promise<string> {
  const say = (lines: string[]): void => void io.stderr.write(`${lines.join('\n')}\n`);
  for (let attempt = 1; ; attempt += 1) {
    const first = await io.prompter.secret(t('prompt.password'));
    const second = await io.prompter.secret(t('prompt.password_again'));
    const problems = first !== second ? [t('user.passwords_mismatch')] : passwordProblems(t, first, choice.words, services);
    if (problems.length === 0) return first;
    say(problems);
    const blank = first === second && first.trim() === '';
    const rulesOnly = first === second && !blank;
    if (rulesOnly && choice.mayBypass && (await io.prompter.confirm(t('user.bypass_validation')))) return first;
    if (choice.tries !== undefined && attempt >= choice.tries) throw new CommandFailed([t('user.too_many_attempts')]);
  }
}

/**
 * A password from the flag or standard input, taken as given (Django's
 * `--noinput` validates nothing either), or typed at the terminal (see typedPassword).
 */
export async function obtainPassword(services: Services, io: CliIO, t: Translate, options: AccountOptions, choice: PasswordChoice): Promise<string> {
  if (options.password !== undefined) return options.password;
  if (options.passwordStdin) {
    const password = await readAll(io.stdin);
    if (password === '') throw new CommandFailed([t('user.stdin_empty')]);
    return password;
  }
  if (!io.interactive) throw new CommandFailed([t('user.missing_option', { option: '--password / --password-stdin' })]);
  return typedPassword(services, io, t, choice);
}

/** The prompted fields (username, email) a refusal names; null when it names one that was given by a flag, or another field. */
function fieldsToAskAgain(services: Services, error: ValidationError, prompted: readonly Identifier[]): Identifier[] | null {
  const named = Object.keys(error.fields);
  const again = prompted.filter((identifier) => named.includes(services.accounts.identifierField(identifier)));
  return again.length === named.length ? again : null;
}

/**
 * createuser and createsuperuser: asks for what the flags left out, then
 * creates the account. A username or email address typed at a prompt that
 * is refused (taken, malformed) is asked for again, as Django's createsuperuser.
 */
export async function createAccount(
  services: Services,
  io: CliIO,
  t: Translate,
  options: AccountOptions,
): Promise<AuthUser> {
  const given: Record<Identifier, string> = {
    username: await identifierAnswer(services, io, t, 'username', options.username, '--username'),
    email: await identifierAnswer(services, io, t, 'email', options.email, '--email'),
  };
  const prompted = (['username', 'email'] as const).filter((identifier) => options[identifier] === undefined);
  const words = services.accounts.newAccountWords({ ...given, name: options.name });
  const password = await obtainPassword(services, io, t, options, { words, mayBypass: true });
  for (;;) {
    try {
      return await services.accounts.create({
        ...given,
        name: options.name,
        password,
        isStaff: Boolean(options.staff || options.superuser),
        isSuperuser: Boolean(options.superuser),
      });
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const again = fieldsToAskAgain(services, error, prompted);
      if (!again) throw new CommandFailed(validationLines(t, error));
      io.stderr.write(`${validationLines(t, error).join('\n')}\n`);
      for (const identifier of again) given[identifier] = await io.prompter.text(t(PROMPTS[identifier]));
    }
  }
}

export async function changePassword(
  services: Services,
  io: CliIO,
  t: Translate,
  username: string,
  options: AccountOptions,
): Promise<void> {
  const row = await services.accounts.findByUsername(username);
  if (!row) throw new CommandFailed([t('user.not_found', { username })]);
  const words = services.accounts.accountWords((field) => row.get(field));
  const password = await obtainPassword(services, io, t, options, { words, mayBypass: false, tries: CHANGE_PASSWORD_TRIES });
  try {
    await services.accounts.setPassword(username, password);
  } catch (error) {
    if (error instanceof ValidationError) throw new CommandFailed(validationLines(t, error));
    throw error;
  }
}
