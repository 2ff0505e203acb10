/** What the benchmarks' command lines share. */

/** `raw` as a whole number of at least 1; otherwise an error that names the option `--name`. */
export function positiveInteger(name: string, raw: string | undefined): number {
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer, not ${raw}`);
  return value;
}
