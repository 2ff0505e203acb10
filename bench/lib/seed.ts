/**
 * The comments of a benchmark database, the same on every run and on both
 * databases: comment i is a pure function of i. They look enough like a
 * site's for its list queries to cost what they would: many owners (1,000
 * users who never log in), short titles and bodies (the paginated site's
 * limits: 10 and 15 characters) drawn from a small vocabulary, two search
 * terms planted at known rates (a rare one in 0.1% of the comments, a common
 * one in 10%), and times as a site gathers them: written in id order, one in
 * ten edited later. The seeders count what they wrote (SeedSummary), so the
 * benchmark can check the server's answers without asking the database.
 */

/** Users who own the comments, inserted directly with an unusable password (Django's `!`): nobody logs in as them. */
export const OWNERS = 1000;
/** In every 1,000th comment, half of the time in the title (capitalised), half in the body. */
export const RARE_TERM = 'zebra';
/** At the start of every 10th comment's body. */
export const COMMON_TERM = 'good';
const TITLE_LENGTH = 10;
const BODY_LENGTH = 15;
/** Comment i was written at this instant plus i seconds: distinct, in id order, all in the past. */
const FIRST_TIMESTAMP = Date.UTC(2025, 0, 1);
/** The longest time between writing a comment and editing it. */
const EDITED_WITHIN_SECONDS = 30 * 24 * 3600;

/** No word holds either term, so that a term's matches are exactly the comments it was planted in. */
const VOCABULARY = (
  'the a nice post thanks great idea agree why not yes no maybe later fix typo link code test works broke again see above ' +
  'below same here cool wow ok sure true false read this that more less fast slow bug page list user note plan done todo ' +
  'soon today night day week year time data api sql query index table row cell text word line file save load run build ' +
  'ship merge review check help ask reply close open new old small big short long first last next top end start stop ' +
  'well also just very much lol hmm fair point mine yours ours their cat dog bird fish tree rain snow sun moon star'
).split(' ');

export interface SeedComment {
  title: string;
  body: string;
  /** 0 … OWNERS-1: which of the owners (not a user id: the seeder maps it). */
  owner: number;
  createdMs: number;
  updatedMs: number;
}

/** A well-mixed 32-bit hash of (i, salt): the "random" choices of comment i, the same every run. */
function mix(i: number, salt: number): number {
  let h = Math.imul(i ^ Math.imul(salt, 0x9e3779b9), 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** `start` words, then vocabulary words picked by (i, salt) while they fit in `max` characters. */
function words(i: number, salt: number, start: readonly string[], max: number): string {
  let text = start.join(' ');
  for (let pick = 0; pick < 4; pick += 1) {
    const word = VOCABULARY[mix(i, salt + pick) % VOCABULARY.length] ?? 'ok';
    const longer = text === '' ? word : `${text} ${word}`;
    if (longer.length > max) break;
    text = longer;
  }
  return text;
}

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

export function seedComment(i: number): SeedComment {
  const rare = i % 1000 === 500;
  const rareInTitle = rare && Math.floor(i / 1000) % 2 === 0;
  const title = capitalised(words(i, 1, rareInTitle ? [RARE_TERM] : [], TITLE_LENGTH));
  const bodyStart = i % 10 === 3 ? [COMMON_TERM] : rare && !rareInTitle ? [RARE_TERM] : [];
  const body = words(i, 11, bodyStart, BODY_LENGTH);
  const createdMs = FIRST_TIMESTAMP + i * 1000;
  const edited = mix(i, 21) % 10 === 0;
  const updatedMs = edited ? createdMs + (mix(i, 22) % EDITED_WITHIN_SECONDS) * 1000 : createdMs;
  return { title, body, owner: mix(i, 31) % OWNERS, createdMs, updatedMs };
}

/** The owners' usernames, in owner order. */
export function ownerUsername(owner: number): string {
  return `owner${String(owner).padStart(4, '0')}`;
}

/** What a seeder wrote: how many comments hold each search term and how many each owner has. */
export interface SeedSummary {
  comments: number;
  /** Term → comments whose title or body holds it, ignoring case. */
  matches: Record<string, number>;
  /** User id of each owner, in owner order. */
  ownerIds: number[];
  /** Comments of each owner, in owner order. */
  ownerComments: number[];
}

export function emptySummary(ownerIds: number[]): SeedSummary {
  return { comments: 0, matches: { [RARE_TERM]: 0, [COMMON_TERM]: 0 }, ownerIds, ownerComments: ownerIds.map(() => 0) };
}

/** Counts `comment` into `summary` as the seeder writes it. */
export function countComment(summary: SeedSummary, comment: SeedComment): void {
  summary.comments += 1;
  summary.ownerComments[comment.owner] = (summary.ownerComments[comment.owner] ?? 0) + 1;
  for (const term of Object.keys(summary.matches)) {
    if (comment.title.toLowerCase().includes(term) || comment.body.toLowerCase().includes(term)) summary.matches[term] = (summary.matches[term] ?? 0) + 1;
  }
}
