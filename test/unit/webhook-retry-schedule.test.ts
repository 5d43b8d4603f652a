import fc from 'fast-check';
import {
  honoursRetryAfter,
  MAX_ATTEMPTS,
  MAX_RETRY_AFTER_SECONDS,
  nextAttemptDelay,
  RETRY_DELAYS_SECONDS,
} from '#domain/webhooks/retry-schedule';

describe('the webhook retry schedule', () => {
  it('waits 5 s, 5 min, 30 min, 2 h and 5 h before attempts 2 to 6, and leaves none after the sixth', () => {
    const middle = () => 0.5;
    expect([1, 2, 3, 4, 5].map((made) => nextAttemptDelay(made, { random: middle }).delaySeconds)).toEqual([
      5, 300, 1800, 7200, 18_000,
    ]);
    expect(nextAttemptDelay(MAX_ATTEMPTS)).toEqual({});
    expect(MAX_ATTEMPTS).toBe(6);
  });

  it('varies each wait by at most a tenth either way, scaled as asked', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.constantFrom(1, 0.001),
        (made, random, scale) => {
          const base = RETRY_DELAYS_SECONDS[made - 1]! * scale;
          const { delaySeconds } = nextAttemptDelay(made, { random: () => random, scale });
          expect(delaySeconds).toBeGreaterThanOrEqual(base * 0.9 - 1e-9);
          expect(delaySeconds).toBeLessThanOrEqual(base * 1.1 + 1e-9);
        },
      ),
    );
  });

  it('waits at least what Retry-After asks, unscaled, up to a day', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MAX_ATTEMPTS - 1 }), fc.nat({ max: 10 * 86_400 }), (made, asked) => {
        const { delaySeconds } = nextAttemptDelay(made, { retryAfterSeconds: asked, scale: 0.001 });
        expect(delaySeconds).toBeGreaterThanOrEqual(Math.min(asked, MAX_RETRY_AFTER_SECONDS));
        expect(delaySeconds).toBeLessThanOrEqual(MAX_RETRY_AFTER_SECONDS);
      }),
    );
  });

  it('honours Retry-After on 429 and 503 only', () => {
    expect([429, 503, 500, 502, 301, 410].map(honoursRetryAfter)).toEqual([true, true, false, false, false, false]);
  });
});
