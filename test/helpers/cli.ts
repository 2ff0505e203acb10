import { Readable, Writable } from 'node:stream';
import type { CliIO, Prompter } from '../../src/cli/io.js';
import { runCli } from '../../src/cli/manage.js';

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString();
    done();
  }
}

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
  /** What the prompter was asked, in order. */
  asked: string[];
}

export interface CliInput {
  env: Record<string, string>;
  stdin?: string;
  /** Answers typed at prompts; given means the session is interactive. */
  answers?: string[];
}

export async function cli(argv: string[], input: CliInput): Promise<CliRun> {
  const stdout = new Capture();
  const stderr = new Capture();
  const asked: string[] = [];
  const answers = [...(input.answers ?? [])];
  const next = async (label: string): Promise<string> => {
    asked.push(label);
    const answer = answers.shift();
    if (answer === undefined) throw new Error(`unexpected prompt ${label}`);
    return answer;
  };
  const prompter: Prompter = { text: next, secret: next, confirm: async (label) => /^y/i.test(await next(label)) };
  const io: CliIO = {
    stdin: Readable.from(input.stdin === undefined ? [] : [Buffer.from(input.stdin)]),
    stdout,
    stderr,
    env: input.env,
    interactive: input.answers !== undefined,
    progress: false,
    prompter,
  };
  const status = await runCli(argv, io);
  return { status, stdout: stdout.text, stderr: stderr.text, asked };
}
