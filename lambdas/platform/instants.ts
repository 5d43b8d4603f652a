export const DAY_MS = 86_400_000;

/** The UTC day of an instant, `YYYY-MM-DD`: how day windows and daily aggregates are keyed. */
export function utcDay(instant: number | string | Date): string {
  return new Date(instant).toISOString().slice(0, 10);
}

/** 400 Gregorian years: 146,097 days exactly. */
const GREGORIAN_CYCLE_MS = 146_097 * DAY_MS;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * The millisecond an RFC 3339 date-time (as the OpenAPI `date-time` format accepts it) falls in,
 * rounded up: `00:00:00.0001Z` is after every job created at `00:00:00.000Z`, so as a lower
 * bound it must not include them, and as an exclusive upper bound it must. A leap second
 * (`23:59:60`) is the first millisecond of the next minute, which is how it sorts. Undefined
 * when the text is not such a date-time. The validator has already refused impossible dates.
 */
export function instantRoundedUp(text: string): number | undefined {
  const match = RFC3339.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, fraction = '', , sign, offsetHours, offsetMinutes] = match;
  // Date.UTC reads years 0-99 as 1900-1999; 400 Gregorian years later is the same calendar, a fixed span earlier.
  const wholeMs =
    Date.UTC(Number(year) + 400, Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second)) -
    GREGORIAN_CYCLE_MS;
  const milliseconds = Number(fraction.slice(0, 3).padEnd(3, '0'));
  const beyondMilliseconds = /[1-9]/.test(fraction.slice(3)) ? 1 : 0;
  const offsetMs = sign ? (sign === '-' ? -1 : 1) * (Number(offsetHours) * 60 + Number(offsetMinutes)) * 60_000 : 0;
  return wholeMs + milliseconds + beyondMilliseconds - offsetMs;
}
