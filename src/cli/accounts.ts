import type { AuthUser } from '../auth/accounts.js';
import { fieldErrorMessages, ValidationError } from '../errors.js';
import type { Translate } from '../i18n.js';
import type { Services } from '../services.js';
import { readAll, type CliIO } from './io.js';

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

/** A password from the flag, standard input, or typed twice at the terminal. */
export async function obtainPassword(io: CliIO, t: Translate, options: AccountOptions): Promise<string> {
  if (options.password !== undefined) return options.password;
  if (options.passwordStdin) {
    const password = await readAll(io.stdin);
    if (password === '') throw new CommandFailed([t('user.stdin_empty')]);
    return password;
  }
  if (!io.interactive) throw new CommandFailed([t('user.missing_option', { option: '--password / --password-stdin' })]);
  const first = await io.prompter.secret(t('prompt.password'));
  const second = await io.prompter.secret(t('prompt.password_again'));
  if (first !== second) throw new CommandFailed([t('user.passwords_differ')]);
  return first;
}

/** createuser and createsuperuser: asks for what the flags left out, then creates the account. */
export async function createAccount(
  services: Services,
  io: CliIO,
  t: Translate,
  options: AccountOptions,
): Promise<AuthUser> {
  const username = await answer(io, t, options.username, '--username', 'prompt.username');
  const email = await answer(io, t, options.email, '--email', 'prompt.email');
  const password = await obtainPassword(io, t, options);
  try {
    return await services.accounts.create({
      username,
      email,
      name: options.name,
      password,
      isStaff: Boolean(options.staff || options.superuser),
      isSuperuser: Boolean(options.superuser),
    });
  } catch (error) {
    if (error instanceof ValidationError) throw new CommandFailed(validationLines(t, error));
    throw error;
  }
}

export async function changePassword(
  services: Services,
  io: CliIO,
  t: Translate,
  username: string,
  options: AccountOptions,
): Promise<void> {
  if (!(await services.accounts.findByUsername(username))) {
    throw new CommandFailed([t('user.not_found', { username })]);
  }
  const password = await obtainPassword(io, t, options);
  try {
    await services.accounts.setPassword(username, password);
  } catch (error) {
    if (error instanceof ValidationError) throw new CommandFailed(validationLines(t, error));
    throw error;
  }
}
