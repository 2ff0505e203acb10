/**
 * Timestamps as the sites show them. JavaScript dates hold milliseconds; the
 * six fractional digits the documents ask for end in 000.
 */

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** `YYYY-MM-DDTHH:MM:SS.ffffffZ` in UTC (Laravel's serialization). */
export function utcTimestamp(date: Date): string {
  return `${date.toISOString().slice(0, 23)}000Z`;
}

/** `YYYY-MM-DDTHH:MM:SS.ffffff` in `timeZone`, without zone (Django REST Framework with USE_TZ off). */
export function zonedTimestampFormatter(timeZone: string): (date: Date) => string {
  if (timeZone === 'UTC' || timeZone === 'Etc/UTC') return (date) => utcTimestamp(date).slice(0, -1);
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  return (date) => {
    const parts: Record<string, string> = {};
    for (const { type, value } of format.formatToParts(date)) parts[type] = value;
    const fraction = `${pad(date.getUTCMilliseconds(), 3)}000`;
    return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}.${fraction}`;
  };
}
