import fc from 'fast-check';
import { operation as getUsage } from '#contract/operations/getUsage';
import { MAX_CUSTOM_PERIOD_DAYS, resolvePeriod, type PeriodQuery } from '#domain/usage/usage-period';
import { validateRequest } from '#http/validation';
import { ApiError } from '#platform/errors';

const DAY_MS = 86_400_000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const midnight = (day: string) => Date.parse(`${day}T00:00:00Z`);

/** Any instant of two centuries around now. */
const instants = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2199-12-31T23:59:59.999Z'),
  noInvalidDate: true,
});
/** Any UTC day from 1900 to 9980 (far enough from year 9999 to add 5000 days), as its index since the epoch. */
const dayIndexes = fc.integer({ min: midnight('1900-01-01') / DAY_MS, max: midnight('9980-01-01') / DAY_MS });

/** The VALIDATION_FAILED message the resolution throws, or fails the test when it resolves. */
function refusal(query: PeriodQuery, now = new Date()): string {
  try {
    resolvePeriod(query, now);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    return (error as ApiError).message;
  }
  throw new Error(`${JSON.stringify(query)} resolved`);
}

describe('custom periods', () => {
  it('span exactly the days asked, both ends included, from start_date 00:00Z to the day after end_date', () => {
    fc.assert(
      fc.property(dayIndexes, fc.integer({ min: 1, max: MAX_CUSTOM_PERIOD_DAYS }), instants, (first, length, now) => {
        const query: PeriodQuery = {
          period: 'custom',
          start_date: dayOf(first * DAY_MS),
          end_date: dayOf((first + length - 1) * DAY_MS),
        };
        const { range, days } = resolvePeriod(query, now);
        const [start, end] = [Date.parse(range.start), Date.parse(range.end)];
        expect(days).toEqual({ firstDay: query.start_date, lastDay: query.end_date });
        expect(start).toBe(first * DAY_MS);
        expect(end).toBe(midnight(query.end_date as string) + DAY_MS);
        expect(start).toBeLessThan(end);
        expect((end - start) / DAY_MS).toBe(length);
        expect(length).toBeLessThanOrEqual(90);
      }),
    );
  });

  it('do not depend on when they are asked for', () => {
    fc.assert(
      fc.property(dayIndexes, fc.integer({ min: 1, max: 90 }), instants, instants, (first, length, now, later) => {
        const query: PeriodQuery = {
          period: 'custom',
          start_date: dayOf(first * DAY_MS),
          end_date: dayOf((first + length - 1) * DAY_MS),
        };
        expect(resolvePeriod(query, now)).toEqual(resolvePeriod(query, later));
      }),
    );
  });

  it('accept exactly 90 days and refuse 91', () => {
    expect(resolvePeriod({ period: 'custom', start_date: '2026-01-01', end_date: '2026-03-31' }, new Date())).toEqual({
      range: { start: '2026-01-01T00:00:00.000Z', end: '2026-04-01T00:00:00.000Z' },
      days: { firstDay: '2026-01-01', lastDay: '2026-03-31' },
    });
    expect(refusal({ period: 'custom', start_date: '2026-01-01', end_date: '2026-04-01' })).toContain('90 days');
  });

  it('refuse any range longer than 90 days, naming the 90-day maximum', () => {
    fc.assert(
      fc.property(dayIndexes, fc.integer({ min: 91, max: 5000 }), (first, length) => {
        const message = refusal({
          period: 'custom',
          start_date: dayOf(first * DAY_MS),
          end_date: dayOf((first + length - 1) * DAY_MS),
        });
        expect(message).toContain('at most 90 days');
      }),
    );
  });

  it('refuse an end_date before start_date, naming end_date', () => {
    fc.assert(
      fc.property(dayIndexes, fc.integer({ min: 1, max: 5000 }), (first, gap) => {
        const message = refusal({
          period: 'custom',
          start_date: dayOf(first * DAY_MS),
          end_date: dayOf((first - gap) * DAY_MS),
        });
        expect(message).toContain('end_date');
        expect(message).toContain('before start_date');
      }),
    );
  });

  it('accept a single day and days in the future', () => {
    expect(resolvePeriod({ period: 'custom', start_date: '2999-05-05', end_date: '2999-05-05' }, new Date())).toEqual({
      range: { start: '2999-05-05T00:00:00.000Z', end: '2999-05-06T00:00:00.000Z' },
      days: { firstDay: '2999-05-05', lastDay: '2999-05-05' },
    });
  });

  it('accept 9999-12-30 and refuse 9999-12-31, whose exclusive end is past year 9999', () => {
    expect(
      resolvePeriod({ period: 'custom', start_date: '9999-12-01', end_date: '9999-12-30' }, new Date()).range.end,
    ).toBe('9999-12-31T00:00:00.000Z');
    expect(refusal({ period: 'custom', start_date: '9999-12-01', end_date: '9999-12-31' })).toContain('end_date');
  });

  it.each([
    ['start_date', { start_date: '2026-02-30', end_date: '2026-03-01' }],
    ['end_date', { start_date: '2025-02-01', end_date: '2025-02-29' }],
    ['end_date', { start_date: '2026-04-01', end_date: '2026-04-31' }],
    ['start_date', { start_date: '2026-13-01', end_date: '2026-12-01' }],
    ['start_date', { start_date: '2026-1-01', end_date: '2026-01-02' }],
    ['end_date', { start_date: '2026-01-01' }],
  ])('refuse a missing or impossible day, naming %s', (field, dates) => {
    expect(refusal({ period: 'custom', ...dates })).toContain(field);
  });
});

describe('named periods', () => {
  it.each([
    ['last_7_days', 7],
    ['last_30_days', 30],
  ] as const)('%s is the %d UTC days ending with today, today included, and contains now', (period, length) => {
    fc.assert(
      fc.property(instants, (now) => {
        const { range, days } = resolvePeriod({ period }, now);
        const [start, end] = [Date.parse(range.start), Date.parse(range.end)];
        expect(start).toBeLessThanOrEqual(now.getTime());
        expect(now.getTime()).toBeLessThan(end);
        expect(start % DAY_MS).toBe(0);
        expect(end % DAY_MS).toBe(0);
        expect((end - start) / DAY_MS).toBe(length);
        expect(days).toEqual({ firstDay: dayOf(start), lastDay: dayOf(now.getTime()) });
      }),
    );
  });

  it('current_billing_period is the UTC calendar month of now, from its first day to the next month', () => {
    fc.assert(
      fc.property(instants, (now) => {
        const { range, days } = resolvePeriod({ period: 'current_billing_period' }, now);
        const [start, end] = [new Date(range.start), new Date(range.end)];
        expect(start.getTime()).toBeLessThanOrEqual(now.getTime());
        expect(now.getTime()).toBeLessThan(end.getTime());
        expect(start.getTime() % DAY_MS).toBe(0);
        expect(end.getTime() % DAY_MS).toBe(0);
        expect([start.getUTCDate(), end.getUTCDate()]).toEqual([1, 1]);
        expect([start.getUTCFullYear(), start.getUTCMonth()]).toEqual([now.getUTCFullYear(), now.getUTCMonth()]);
        const length = (end.getTime() - start.getTime()) / DAY_MS;
        expect(length).toBeGreaterThanOrEqual(28);
        expect(length).toBeLessThanOrEqual(31);
        expect(days).toEqual({ firstDay: dayOf(start.getTime()), lastDay: dayOf(end.getTime() - DAY_MS) });
      }),
    );
  });

  it('resolve at the edges of a day, a month, a year and a leap February', () => {
    const at = (iso: string, period: PeriodQuery['period']) => resolvePeriod({ period }, new Date(iso)).range;
    expect(at('2026-03-15T10:00:00Z', 'last_7_days')).toEqual({
      start: '2026-03-09T00:00:00.000Z',
      end: '2026-03-16T00:00:00.000Z',
    });
    expect(at('2026-03-15T00:00:00Z', 'last_30_days')).toEqual({
      start: '2026-02-14T00:00:00.000Z',
      end: '2026-03-16T00:00:00.000Z',
    });
    expect(at('2026-12-31T23:59:59.999Z', 'current_billing_period')).toEqual({
      start: '2026-12-01T00:00:00.000Z',
      end: '2027-01-01T00:00:00.000Z',
    });
    expect(at('2028-02-29T12:00:00Z', 'current_billing_period')).toEqual({
      start: '2028-02-01T00:00:00.000Z',
      end: '2028-03-01T00:00:00.000Z',
    });
  });

  it('ignore dates, which the contract refuses with any period but custom', () => {
    const now = new Date('2026-03-15T10:00:00Z');
    expect(resolvePeriod({ period: 'last_7_days', start_date: '2020-01-01', end_date: '2020-01-02' }, now)).toEqual(
      resolvePeriod({ period: 'last_7_days' }, now),
    );
  });
});

describe('the usage routes’ query contract', () => {
  const query = (parameters: Record<string, string>) => validateRequest(getUsage, { query: parameters }).query;

  it.each(['2026-02-30', '2025-02-29', '2026-04-31', '2026-00-10', '2026-02-3'])(
    'refuses the impossible day %s with 400 VALIDATION_FAILED naming the parameter',
    (day) => {
      expect(() => query({ period: 'custom', start_date: day, end_date: '2026-12-01' })).toThrow(
        expect.objectContaining({
          code: 'VALIDATION_FAILED',
          status: 400,
          message: expect.stringContaining('start_date'),
        }),
      );
      expect(() => query({ period: 'custom', start_date: '2025-01-01', end_date: day })).toThrow(
        expect.objectContaining({ code: 'VALIDATION_FAILED', message: expect.stringContaining('end_date') }),
      );
    },
  );

  it('accepts 29 February of a leap year, and defaults the period to the billing period', () => {
    expect(query({ period: 'custom', start_date: '2024-02-29', end_date: '2024-03-01' })).toEqual({
      period: 'custom',
      start_date: '2024-02-29',
      end_date: '2024-03-01',
    });
    expect(query({})).toEqual({ period: 'current_billing_period' });
  });

  it.each([
    ['custom without dates', 'start_date', { period: 'custom' }],
    ['custom without end_date', 'end_date', { period: 'custom', start_date: '2026-01-01' }],
    ['start_date without custom', 'start_date', { start_date: '2026-01-01' }],
    ['end_date with a named period', 'end_date', { period: 'last_7_days', end_date: '2026-01-01' }],
  ])('refuses %s, naming %s', (_, field, parameters) => {
    expect(() => query(parameters)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', message: expect.stringContaining(field) }),
    );
  });
});
