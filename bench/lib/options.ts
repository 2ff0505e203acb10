/** What the benchmarks' command lines share: numbers, and `--help` and mistakes answered with the usage. */

/** A mistake on the command line: the program prints it in one line with the usage and exits 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** `raw` as a whole number of at least 1; otherwise an error that names the option `--name`. */
export function positiveInteger(name: string, raw: string | undefined): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`--${name} must be a positive integer, not ${raw}`);
  return value;
}

/** `parse()`, a call of node:util's parseArgs: its own errors (an unknown option, a missing value, a positional) become UsageErrors. */
export function argumentErrors<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) throw new UsageError((error as Error).message.split('\n')[0] ?? code);
    throw error;
  }
}

export function helpAsked(args: readonly string[] = process.argv.slice(2)): boolean {
  return args.includes('--help') || args.includes('-h');
}

/**
 * The parsed command line of a benchmark program. `--help` (or `-h`) prints
 * `usage` on stdout and exits 0; a mistake (an unknown option, a missing or
 * wrong value) prints `<program>: <the mistake>` and the usage on stderr and
 * exits 2, before anything has started. Anything else `parse` throws goes on up.
 */
export function commandLine<T>(program: string, usage: string, parse: () => T): T {
  if (helpAsked()) {
    process.stdout.write(usage.endsWith('\n') ? usage : `${usage}\n`);
    process.exit(0);
  }
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`${program}: ${error.message}\n\n${usage.endsWith('\n') ? usage : `${usage}\n`}`);
    process.exit(2);
  }
}
