import fc from 'fast-check';
import { deliveredBy, NOTHING_DELIVERED, unfinishedJobRefund } from '#domain/jobs/refunds';

describe('the refund of a job that ends without completing', () => {
  const splitCase = fc
    .record({ charged: fc.integer({ min: 0, max: 100_000 }), total: fc.integer({ min: 1, max: 10 }) })
    .chain(({ charged, total }) =>
      fc.record({
        charged: fc.constant(charged),
        total: fc.constant(total),
        completed: fc.integer({ min: 0, max: total }),
      }),
    );

  test('is all of the charge when nothing was delivered (a video job, a split job before its clips)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100_000 }), (charged) => {
        expect(unfinishedJobRefund(charged, NOTHING_DELIVERED)).toBe(charged);
      }),
    );
  });

  test('is the share of the clips not completed, rounded up: never less than that share, less than one credit more', () => {
    fc.assert(
      fc.property(splitCase, ({ charged, total, completed }) => {
        const refund = unfinishedJobRefund(charged, { completed, total });
        const share = (charged * (total - completed)) / total;
        expect(Number.isInteger(refund)).toBe(true);
        expect(refund).toBeGreaterThanOrEqual(share);
        expect(refund - share).toBeLessThan(1);
        expect(refund).toBeGreaterThanOrEqual(0);
        expect(refund).toBeLessThanOrEqual(charged);
      }),
    );
  });

  test('keeps half of 25 credits for 2 clips of 4 completed, rounded down: 13 back', () => {
    expect(unfinishedJobRefund(25, { completed: 2, total: 4 })).toBe(13);
  });

  test('gives back less for every further clip completed, nothing once all are', () => {
    fc.assert(
      fc.property(splitCase, ({ charged, total, completed }) => {
        expect(unfinishedJobRefund(charged, { completed: total, total })).toBe(0);
        expect(unfinishedJobRefund(charged, { completed: 0, total })).toBe(charged);
        const oneMore = Math.min(completed + 1, total);
        expect(unfinishedJobRefund(charged, { completed: oneMore, total })).toBeLessThanOrEqual(
          unfinishedJobRefund(charged, { completed, total }),
        );
      }),
    );
  });
});

describe('what a job delivered', () => {
  test('is its completed clips of all those chosen: failed, pending and processing ones deliver nothing', () => {
    const statuses = ['completed', 'failed', 'pending', 'processing', 'completed'] as const;
    const clips = statuses.map((status) => ({ status }));
    expect(deliveredBy(clips)).toEqual({ completed: 2, total: 5 });
  });

  test('is nothing for a job without clips', () => {
    expect(deliveredBy([])).toEqual(NOTHING_DELIVERED);
  });
});
