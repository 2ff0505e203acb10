import type { MessageParams } from '../errors.js';

/** Where in the input a problem is: the file, the record (from 1; 0 is a CSV header) and the field as the file names it. */
export interface Location {
  file?: string;
  record?: number;
  field?: string;
}

/** A problem with its message key (in `src/locales/<lang>/cli.json` or `common.json`) and where it is. */
export interface LocatedProblem extends Location {
  key: string;
  params: MessageParams;
}

/** One thing wrong with the input, found where only part of its location is known; `located` completes it. */
export class Problem extends Error {
  constructor(
    readonly key: string,
    readonly params: MessageParams = {},
    readonly location: Location = {},
  ) {
    super(key);
    this.name = 'Problem';
  }

  located(location: Location): LocatedProblem {
    return { ...location, ...this.location, key: this.key, params: this.params };
  }
}

/** Everything wrong with a load, reported together; nothing of the load is kept. */
export class ProblemList extends Error {
  constructor(
    readonly problems: readonly LocatedProblem[],
    /** Reading stopped at the report's limit: there may be more. */
    readonly truncated = false,
  ) {
    super(problems.map((problem) => `${problem.file ?? ''}:${problem.record ?? ''}:${problem.field ?? ''} ${problem.key}`).join('\n'));
    this.name = 'ProblemList';
  }
}

/** A load with more problems than this is not worth reading further: the report would not be read either. */
const MAX_PROBLEMS = 50;

/**
 * The problems of one load, across its files and kinds of record, up to the
 * report's limit; `finish` throws them together.
 */
export class ProblemCollector {
  private readonly problems: LocatedProblem[] = [];

  /** Reading further would find problems nobody reads. */
  get full(): boolean {
    return this.problems.length >= MAX_PROBLEMS;
  }

  /** The load will fail: what remains of it is only checked, not written. */
  get any(): boolean {
    return this.problems.length > 0;
  }

  /** Records without a username use their email for both: its one problem is reported once, not twice. */
  report(problem: LocatedProblem): void {
    const last = this.problems.at(-1);
    const repeated =
      last && (['file', 'record', 'field', 'key'] as const).every((key) => last[key] === problem[key]);
    if (!this.full && !repeated) this.problems.push(problem);
  }

  /** Throws every problem found: the caller's transaction then rolls back. */
  finish(): void {
    if (this.problems.length > 0) throw new ProblemList(this.problems, this.full);
  }
}
