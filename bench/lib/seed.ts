/**
 * The comments of a benchmark database, the same on every run and on both
 * databases: comment i is a pure function of i. They look enough like a
 * site's for its list queries to cost what they would: many owners (1,000
 * users who never log in), short titles and bodies (the paginated site's
 * limits: 10 and 15 characters) drawn from a small vocabulary, two search
 * terms planted at known rates (a rare one in 0.1% of the comments, a common
 * one in 10%), a vocabulary of 250 more search terms each in 0.1% (so that
 * searches can differ from one request to the next, as people's do), 250
 * rare terms found only among the oldest comments (a term of a few matches
 * far from the list's start: what makes a search walk the list's order
 * instead of its index), and times as a site gathers them: written in id
 * order, one in ten edited later. The seeders count what they wrote (SeedSummary), so the benchmark
 * can check the server's answers without asking the database.
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

/** Made-up words of five letters (consonant, vowel, consonant, vowel, consonant), picked by hash, held by no other word. */
function searchWords(count: number): string[] {
  const consonants = 'bdfgklmnprstvz';
  const vowels = 'aeiou';
  const others = [...VOCABULARY, RARE_TERM, COMMON_TERM];
  const found = new Set<string>();
  for (let k = 0; found.size < count; k += 1) {
    let h = mix(k, 41);
    const letter = (set: string): string => {
      const picked = set.charAt(h % set.length);
      h = Math.floor(h / set.length);
      return picked;
    };
    const word = letter(consonants) + letter(vowels) + letter(consonants) + letter(vowels) + letter(consonants);
    // So that a term's matches are exactly the comments it was planted in.
    if (!others.some((other) => other.includes(word))) found.add(word);
  }
  return [...found];
}

const WORDS = searchWords(500);

/**
 * The search vocabulary: term k is in comment i when i % 1000 is
 * SEARCH_TERM_OFFSETS[k] (0.1% of the comments each; a quarter of the
 * comments hold one), in the title or the body as the rare term is.
 */
export const SEARCH_TERMS = WORDS.slice(0, 250);
const SEARCH_TERM_OFFSETS = SEARCH_TERMS.map((_, k) => 4 * k + 1);
const TERM_AT_OFFSET = new Map(SEARCH_TERM_OFFSETS.map((offset, k) => [offset, k]));
const TERM_INDEX = new Map(SEARCH_TERMS.map((term, k) => [term, k]));

/** The old terms are only in the comments numbered up to this: the oldest 1% of a million. */
export const OLD_TERMS_UNTIL = 10_000;
/**
 * The old vocabulary: old term k is in comment i when i ≤ OLD_TERMS_UNTIL
 * and i % 1000 is OLD_TERM_OFFSETS[k] (10 comments each, a quarter of the
 * oldest 10,000 holding one), in the title or the body as the rare term is;
 * those comments are never edited, so they stay old in every order.
 */
export const OLD_TERMS = WORDS.slice(250);
const OLD_TERM_OFFSETS = OLD_TERMS.map((_, k) => 4 * k + 3);
const OLD_TERM_AT_OFFSET = new Map(OLD_TERM_OFFSETS.map((offset, k) => [offset, k]));
const OLD_TERM_INDEX = new Map(OLD_TERMS.map((term, k) => [term, k]));

/** The numbers (ids) of the comments among the first `comments` that hold search term k. */
export function searchTermComments(k: number, comments: number): number[] {
  return everyThousandth(SEARCH_TERM_OFFSETS[k], comments);
}

/** The numbers (ids) of the comments among the first `comments` that hold old term k. */
export function oldTermComments(k: number, comments: number): number[] {
  return everyThousandth(OLD_TERM_OFFSETS[k], Math.min(comments, OLD_TERMS_UNTIL));
}

function everyThousandth(first: number | undefined, last: number): number[] {
  const numbers: number[] = [];
  for (let i = first ?? last + 1; i <= last; i += 1000) numbers.push(i);
  return numbers;
}

/** The term planted in comment i, if any: the rare one, a vocabulary term or an old term. */
function plantedTerm(i: number): string | undefined {
  if (i % 1000 === 500) return RARE_TERM;
  const term = TERM_AT_OFFSET.get(i % 1000);
  if (term !== undefined) return SEARCH_TERMS[term];
  const old = i <= OLD_TERMS_UNTIL ? OLD_TERM_AT_OFFSET.get(i % 1000) : undefined;
  return old === undefined ? undefined : OLD_TERMS[old];
}

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
  const planted = plantedTerm(i);
  // Half of the thousands in the title (capitalised), half in the body.
  const inTitle = planted !== undefined && Math.floor(i / 1000) % 2 === 0;
  const title = capitalised(words(i, 1, inTitle && planted ? [planted] : [], TITLE_LENGTH));
  const bodyStart = [...(i % 10 === 3 ? [COMMON_TERM] : []), ...(!inTitle && planted ? [planted] : [])];
  const body = words(i, 11, bodyStart, BODY_LENGTH);
  const createdMs = FIRST_TIMESTAMP + i * 1000;
  const edited = mix(i, 21) % 10 === 0 && !(planted !== undefined && OLD_TERM_INDEX.has(planted));
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
  /** Comments holding each term of SEARCH_TERMS, in its order. */
  termMatches: number[];
  /** Comments holding each term of OLD_TERMS, in its order. */
  oldTermMatches: number[];
}

export function emptySummary(ownerIds: number[]): SeedSummary {
  return { comments: 0, matches: { [RARE_TERM]: 0, [COMMON_TERM]: 0 }, ownerIds, ownerComments: ownerIds.map(() => 0), termMatches: SEARCH_TERMS.map(() => 0), oldTermMatches: OLD_TERMS.map(() => 0) };
}

/** Counts `comment` into `summary` as the seeder writes it. */
export function countComment(summary: SeedSummary, comment: SeedComment): void {
  summary.comments += 1;
  summary.ownerComments[comment.owner] = (summary.ownerComments[comment.owner] ?? 0) + 1;
  for (const term of Object.keys(summary.matches)) {
    if (comment.title.toLowerCase().includes(term) || comment.body.toLowerCase().includes(term)) summary.matches[term] = (summary.matches[term] ?? 0) + 1;
  }
  // A search term is held by no other word: a word equal to one is where it is.
  for (const word of `${comment.title} ${comment.body}`.toLowerCase().split(' ')) {
    const k = TERM_INDEX.get(word);
    if (k !== undefined) summary.termMatches[k] = (summary.termMatches[k] ?? 0) + 1;
    const old = OLD_TERM_INDEX.get(word);
    if (old !== undefined) summary.oldTermMatches[old] = (summary.oldTermMatches[old] ?? 0) + 1;
  }
}
