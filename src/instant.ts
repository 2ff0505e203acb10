/**
 * Points in time to the microsecond. JavaScript dates stop at the
 * millisecond, while both databases keep microseconds and the sites show six
 * fractional digits: an Instant is a Date that also carries the microseconds
 * past its millisecond, so that every Date API still works and only the code
 * that stores, reads or shows a time needs to know. The clock stamps writes
 * with Instants (src/clock.ts), which is what keeps the order of writes made
 * within one millisecond without running ahead of real time.
 */

export class Instant extends Date {
  /** The microseconds past the millisecond, 0 to 999. */
  readonly microsecond: number;

  constructor(milliseconds: number, microsecond = 0) {
    super(milliseconds);
    this.microsecond = microsecond;
  }

  /** JSON (an entity tag's content, a kept body) tells two instants of one millisecond apart, as the databases do. */
  override toJSON(): string {
    return `${this.toISOString().slice(0, 23)}${digits(this.microsecond, 3)}Z`;
  }
}

function digits(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** The microseconds past the millisecond of any date: a plain Date has none. */
export function microsecondOf(date: Date): number {
  return date instanceof Instant ? date.microsecond : 0;
}

/** Microseconds since the epoch: safe integers until the year 2255. */
export function epochMicroseconds(date: Date): number {
  return date.getTime() * 1000 + microsecondOf(date);
}

/** The instant `microseconds` after the epoch. */
export function instantAt(microseconds: number): Instant {
  const milliseconds = Math.floor(microseconds / 1000);
  return new Instant(milliseconds, microseconds - milliseconds * 1000);
}

/** The six fractional digits of a date's second. */
export function fractionOf(date: Date): string {
  return `${digits(date.getUTCMilliseconds(), 3)}${digits(microsecondOf(date), 3)}`;
}

/**
 * The microseconds a written fraction of a second carries past its
 * milliseconds (`123456` → 456, `1234` → 400): its 4th to 6th digits. Both
 * databases and Django keep six; any further digit is dropped.
 */
export function microsecondsOfFraction(fraction: string): number {
  return fraction.length <= 3 ? 0 : Number(fraction.slice(3, 6).padEnd(3, '0'));
}

/** `date` as an Instant with `microsecond` past its millisecond; the date itself when there are none to carry. */
export function withMicroseconds(date: Date, microsecond: number): Date {
  return microsecond === 0 ? date : new Instant(date.getTime(), microsecond);
}

/** A time without an offset is UTC: Sequelize writes SQLite times as `YYYY-MM-DD HH:MM:SS.mmm +00:00`. */
const HAS_OFFSET = /(?:[+-]\d\d(?::?\d\d)?|Z)$/;
/** Where a stored time's fraction of a second starts: after `YYYY-MM-DD HH:MM:SS`. */
const FRACTION_AT = 19;

/**
 * A time as the databases give it as text (SQLite's column, PostgreSQL's
 * `timestamptz` output), its microseconds kept.
 */
export function readStoredTime(text: string): Date {
  const date = new Date(HAS_OFFSET.test(text) ? text : `${text} +00:00`);
  if (text.charCodeAt(FRACTION_AT) !== 0x2e) return date;
  let end = FRACTION_AT + 1;
  while (end < text.length && text.charCodeAt(end) >= 0x30 && text.charCodeAt(end) <= 0x39) end += 1;
  return withMicroseconds(date, microsecondsOfFraction(text.slice(FRACTION_AT + 1, end)));
}

/**
 * An instant as the framework writes it into either database:
 * `YYYY-MM-DD HH:MM:SS.mmm +00:00`, as Sequelize writes dates, with three
 * more digits when it has microseconds. One text per instant, so SQLite's
 * text compares equal exactly when the times are, and in their order
 * (`.123 +` sorts before `.123001`, as the space before any digit).
 */
export function storedTimeText(date: Date): string {
  const iso = date.toISOString();
  const microsecond = microsecondOf(date);
  return `${iso.slice(0, 10)} ${iso.slice(11, 23)}${microsecond === 0 ? '' : digits(microsecond, 3)} +00:00`;
}
