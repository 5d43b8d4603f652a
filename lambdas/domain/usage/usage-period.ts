import type { UsagePeriodName, UsagePeriodRange } from '#contract/types';
import { ApiError } from '#platform/errors';
import { DAY_MS, utcDay } from '#platform/instants';
import type { DayRange } from './usage-store';

/**
 * The reporting periods of the usage routes, resolved to whole UTC days. Pure: it takes `now`,
 * so that every rule can be tested against any instant.
 */

/** The spec's bound on a custom period, in days, both ends included. */
export const MAX_CUSTOM_PERIOD_DAYS = 90;
/**
 * The last day a period may include: the day after it must still be a four-digit year, or the
 * period's exclusive end could not be written as an RFC 3339 date-time.
 */
const LAST_REPORTABLE_DAY = '9999-12-30';

export interface PeriodQuery {
  period: UsagePeriodName;
  start_date?: string;
  end_date?: string;
}

export interface ResolvedPeriod {
  /** As the response gives it: `start` inclusive, `end` exclusive, both at 00:00Z. */
  range: UsagePeriodRange;
  /** The UTC days the period covers, both included: what the daily aggregates are read by. */
  days: DayRange;
}

/** Midnight UTC of a `YYYY-MM-DD` day, or undefined when the text names no real day. */
function midnightOf(day: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return undefined;
  const ms = Date.parse(`${day}T00:00:00Z`);
  // Date.parse rolls 2026-02-30 over into March; only a day that reads back unchanged is real.
  return Number.isNaN(ms) || utcDay(ms) !== day ? undefined : ms;
}

function resolved(startMs: number, endMs: number): ResolvedPeriod {
  return {
    range: { start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString() },
    days: { firstDay: utcDay(startMs), lastDay: utcDay(endMs - DAY_MS) },
  };
}

/** The `days` UTC days ending with today, today included. */
function lastDays(days: number, now: Date): ResolvedPeriod {
  const todayMs = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  return resolved(todayMs - (days - 1) * DAY_MS, todayMs + DAY_MS);
}

function customDay(name: 'start_date' | 'end_date', day: string | undefined): number {
  if (day === undefined) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `Missing required query parameter '${name}' (required when period is 'custom')`,
    );
  }
  const ms = midnightOf(day);
  if (ms === undefined) {
    throw new ApiError('VALIDATION_FAILED', `Query parameter ${name} must be a real day in the form YYYY-MM-DD`);
  }
  if (day > LAST_REPORTABLE_DAY) {
    throw new ApiError('VALIDATION_FAILED', `Query parameter ${name} must be ${LAST_REPORTABLE_DAY} or earlier`);
  }
  return ms;
}

function custom(query: PeriodQuery): ResolvedPeriod {
  const startMs = customDay('start_date', query.start_date);
  const endMs = customDay('end_date', query.end_date);
  if (endMs < startMs) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `Query parameter end_date (${query.end_date}) must not be before start_date (${query.start_date})`,
    );
  }
  const days = (endMs - startMs) / DAY_MS + 1;
  if (days > MAX_CUSTOM_PERIOD_DAYS) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `A custom period covers at most ${MAX_CUSTOM_PERIOD_DAYS} days, start_date and end_date included; ` +
        `${query.start_date} to ${query.end_date} is ${days} days`,
    );
  }
  return resolved(startMs, endMs + DAY_MS);
}

/**
 * The period a usage request asks for. `current_billing_period` is the current UTC calendar
 * month; `last_7_days` and `last_30_days` are that many UTC days ending with today; `custom`
 * runs from `start_date` through `end_date`. Days in the future are allowed: they count zero.
 */
export function resolvePeriod(query: PeriodQuery, now: Date): ResolvedPeriod {
  switch (query.period) {
    case 'current_billing_period':
      return resolved(
        Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1),
        Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1),
      );
    case 'last_7_days':
      return lastDays(7, now);
    case 'last_30_days':
      return lastDays(30, now);
    case 'custom':
      return custom(query);
  }
}
