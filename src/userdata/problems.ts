import type { MessageParams } from '../errors.js';

/** Where in the input a problem is: the file, the record (from 1; 0 is a CSV header) and the field as the file names it. */
export interface Location {
  file?: string;
  record?: number;
  field?: string;
}

/** A problem with its message key (in `locales/<lang>/cli.json` or `common.json`) and where it is. */
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
