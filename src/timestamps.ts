/**
 * Timestamps as the sites show them, with six fractional digits: an
 * Instant's microseconds (src/instant.ts), 000 after a plain Date's
 * milliseconds.
 */
import { fractionOf, microsecondsOfFraction, withMicroseconds } from './instant.js';

/** The time the API description's examples show. */
export const EXAMPLE_TIME = new Date('2026-01-15T09:30:00.250Z');

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ` in UTC (Laravel's serialization). */
export function utcTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 20)}${fractionOf(date)}Z`;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** The wall-clock parts of an instant in `timeZone`, made once per zone. */
function zoneFormat(timeZone: string): Intl.DateTimeFormat {
  let format = zoneFormats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    zoneFormats.set(timeZone, format);
  }
  return format;
}

/** `YYYY-MM-DDTHH:MM:SS.ffffff` in `timeZone`, without zone (Django REST Framework with USE_TZ off). */
export function zonedTimestampFormatter(timeZone: string): (date: Date) => string {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return (date) => utcTimestamp(date).slice(0, -1);
  const format = zoneFormat(timeZone);
  return (date) => {
    const parts: Record<string, string> = {};
    for (const { type, value } of format.formatToParts(date)) parts[type] = value;
    const fraction = fractionOf(date);
    return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${fraction}`;
  };
}

const TIMESTAMP =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * A date-time as Django fixtures, Laravel exports and spreadsheets write it:
 * `YYYY-MM-DD`, then optionally `T` or a space, `HH:MM[:SS[.fraction]]` and a
 * zone (`Z`, `+09:00`, `+0900`, `+09`). Without a zone it is UTC. Digits past
 * microseconds are dropped; an impossible date gives null.
 */
export function parseTimestamp(text: string): Date | null {
  return parseZonedTimestamp(text, 'UTC');
}

/** Minutes `timeZone` is ahead of UTC at the instant `date`. */
function offsetAt(timeZone: string, date: Date): number {
  const parts: Record<string, number> = {};
  for (const { type, value } of zoneFormat(timeZone).formatToParts(date)) parts[type] = Number(value);
  const wall = Date.UTC(parts.year ?? 0, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0);
  return Math.round((wall - Math.floor(date.getTime() / 1000) * 1000) / 60_000);
}


/**
 * As parseTimestamp, but a time written without a zone is a wall-clock time
 * in `timeZone` (the root site's TIME_ZONE, as Django reads naive input).
 */
export function parseZonedTimestamp(text: string, timeZone: string): Date | null {
  const match = TIMESTAMP.exec(text.trim());
  if (!match) return null;
  const naive = match[8] === undefined && timeZone !== 'UTC' && timeZone !== 'Etc/UTC';
  let instant = parseMatch(match);
  if (instant && naive) {
    // The zone's offset at the wall-clock time read as UTC, corrected once for a change of offset in between.
    const first = instant.getTime() - offsetAt(timeZone, instant) * 60_000;
    instant = withMicroseconds(new Date(instant.getTime() - offsetAt(timeZone, new Date(first)) * 60_000), microsecondsOfFraction(match[7] ?? ''));
  }
  return instant && storable(instant) ? instant : null;
}

/** Years 1 to 9999 in UTC, what both databases store (and what SQLite's text compares in order). */
const FIRST_INSTANT = Date.parse('0001-01-01T00:00:00.000Z');
const LAST_INSTANT = Date.parse('9999-12-31T23:59:59.999Z');

function storable(instant: Date): boolean {
  const time = instant.getTime();
  return time >= FIRST_INSTANT && time <= LAST_INSTANT;
}

function parseMatch(match: RegExpExecArray): Date | null {
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone = 'Z'] = match;
  const fields = [Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)] as const;
  // Year 0 exists in JavaScript, not in PostgreSQL (nor in Django).
  if (fields[0] < 1) return null;
  const milliseconds = Number(fraction.padEnd(3, '0').slice(0, 3));
  const offset = zoneOffsetMinutes(zone);
  if (offset === null) return null;
  const check = new Date(Date.UTC(2000, 0, 1));
  // setUTCFullYear, unlike Date.UTC, takes years 0-99 as they are.
  check.setUTCFullYear(fields[0], fields[1], fields[2]);
  check.setUTCHours(fields[3], fields[4], fields[5], milliseconds);
  const local = check.getTime();
  const consistent =
    check.getUTCFullYear() === fields[0] && check.getUTCMonth() === fields[1] && check.getUTCDate() === fields[2] &&
    check.getUTCHours() === fields[3] && check.getUTCMinutes() === fields[4] && check.getUTCSeconds() === fields[5];
  if (!consistent) return null;
  return withMicroseconds(new Date(local - offset * 60_000), microsecondsOfFraction(fraction));
}

/** Minutes east of UTC; null for an offset no zone has (beyond ±14:00, or 60 minutes and more). */
function zoneOffsetMinutes(zone: string): number | null {
  if (zone.toUpperCase() === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || '0');
  if (hours > 14 || minutes >= 60) return null;
  const offset = hours * 60 + minutes;
  return zone.startsWith('-') ? -offset : offset;
}
