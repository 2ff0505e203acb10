import type { Readable, Writable } from 'node:stream';
import { confirm as confirmPrompt, password as passwordPrompt, input as textPrompt } from '@inquirer/prompts';
import type { Language } from '../i18n.js';

/** Asks a person at a terminal; tests substitute their own answers. */
export interface Prompter {
  text(label: string): Promise<string>;
  secret(label: string): Promise<string>;
  /** A yes-or-no question whose answer is no unless the person says yes. */
  confirm(label: string): Promise<boolean>;
}

export interface CliIO {
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
  env: Record<string, string | undefined>;
  /** Whether a person can answer prompts. */
  interactive: boolean;
  /** Whether standard error is a terminal that can show a progress bar. */
  progress: boolean;
  prompter: Prompter;
}

export function terminalPrompter(stdin: Readable, stdout: Writable): Prompter {
  const context = { input: stdin, output: stdout };
  return {
    text: (label) => textPrompt({ message: label, required: true }, context),
    secret: (label) => passwordPrompt({ message: label, mask: '*' }, context),
    confirm: (label) => confirmPrompt({ message: label, default: false }, context),
  };
}

/**
 * Standard output whose reader may go away (`manage openapi | head -1`): the
 * rest is dropped quietly, as other Unix tools stop writing, instead of the
 * unhandled EPIPE ending the process with a stack trace. The command itself
 * runs to its end and keeps its exit status (0 when it succeeded).
 */
function quietWhenReaderGone(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
  });
  return stream;
}

export function processIO(): CliIO {
  return {
    stdin: process.stdin,
    stdout: quietWhenReaderGone(process.stdout),
    stderr: process.stderr,
    env: process.env,
    interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
    progress: Boolean(process.stderr.isTTY),
    prompter: terminalPrompter(process.stdin, process.stdout),
  };
}

/** Japanese when the locale asks for it, English otherwise. */
export function cliLanguage(env: Record<string, string | undefined>): Language {
  const locale = env.LC_ALL || env.LC_MESSAGES || env.LANG || '';
  return locale.toLowerCase().startsWith('ja') ? 'ja' : 'en';
}

/** Everything on standard input, without the one line ending a shell pipe adds. */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)));
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
