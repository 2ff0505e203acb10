// The admin's one way of showing a time: "2026-11-28 13:19", as AdminJS's lists
// write one, in the server's TIME_ZONE (the page's locale carries it, locale.ts)
// rather than in the browser's own zone, as Django's admin shows times in
// TIME_ZONE. Lists and row pages use it in place of AdminJS's (registered as
// their override in components.ts); the dashboard calls formatDateTime.
import React from 'react';
import { useSelector } from 'react-redux';
import { ValueGroup } from '@adminjs/design-system';
import { useTranslation } from 'adminjs';

const formats = new Map();

/** The wall-clock parts of an instant in `timeZone` (the browser's own zone when none is given), made once per zone. */
function zoneFormat(timeZone) {
  const key = timeZone ?? '';
  if (!formats.has(key)) {
    formats.set(key, new Intl.DateTimeFormat('en-US', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }));
  }
  return formats.get(key);
}

/** `value` (an ISO 8601 text or a Date) as `YYYY-MM-DD HH:mm` in `timeZone`; '' for no time. */
export function formatDateTime(value, timeZone) {
  if (value === null || value === undefined || value === '') return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return '';
  const parts = Object.fromEntries(zoneFormat(timeZone).formatToParts(date).map(({ type, value: part }) => [type, part]));
  return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}`;
}

/** The zone the admin shows times in: TIME_ZONE, from the page's locale. */
export function useTimeZone() {
  return useSelector((state) => state.locale?.timeZone) || undefined;
}

/** A time for people, the instant itself for machines and on hover. */
export const Time = ({ value, timeZone, ...props }) => {
  const text = formatDateTime(value, timeZone);
  if (text === '') return null;
  const iso = new Date(value).toISOString();
  return (
    <time dateTime={iso} title={iso} {...props}>
      {text}
    </time>
  );
};

/**
 * AdminJS's datetime value in a list (DefaultDatetimeListProperty) and on a
 * row's page (DefaultDatetimeShowProperty); a date (no time of day) is left
 * to AdminJS's own component, as it has no zone.
 */
const DatetimeValue = (props) => {
  const { property, record, where, OriginalComponent } = props;
  const timeZone = useTimeZone();
  const { translateProperty } = useTranslation();
  if (property.type !== 'datetime') return <OriginalComponent {...props} />;
  const value = <Time value={record?.params?.[property.path]} timeZone={timeZone} />;
  if (where !== 'show') return value;
  return <ValueGroup label={translateProperty(property.label, property.resourceId)}>{value}</ValueGroup>;
};

export default DatetimeValue;
