/**
 * When a failed delivery is attempted again. Six attempts in all, like the spec's bound: at once,
 * then after 5 s, 5 min, 30 min, 2 h and 5 h (Svix's first six steps), about 7.6 hours from the
 * first attempt to the last. Each wait varies by up to a tenth either way, so that a receiver
 * that failed for many deliveries at once is not hit by all of them again in the same second.
 * A 429 or 503 answered with Retry-After is honoured: the wait is at least what it asks, up to a
 * day. `scale` shrinks the waits (the local stack: 0.001, six attempts in seconds); Retry-After is
 * never scaled, as the receiver asked for it.
 */
export const MAX_ATTEMPTS = 6;

/** The wait before attempt 2, 3, … 6. */
export const RETRY_DELAYS_SECONDS = [5, 300, 1800, 7200, 18_000] as const;

export const MAX_RETRY_AFTER_SECONDS = 86_400;

const JITTER = 0.1;

export interface RetryDecision {
  /** Seconds from now to the next attempt, or undefined when none is left. */
  delaySeconds?: number;
}

export function nextAttemptDelay(
  attemptsMade: number,
  options: { scale?: number; retryAfterSeconds?: number; random?: () => number } = {},
): RetryDecision {
  if (attemptsMade >= MAX_ATTEMPTS) return {};
  const base = RETRY_DELAYS_SECONDS[attemptsMade - 1];
  if (base === undefined) throw new Error(`No retry follows attempt ${attemptsMade}`);
  const random = options.random ?? Math.random;
  const scheduled = base * (options.scale ?? 1) * (1 - JITTER + 2 * JITTER * random());
  const asked = Math.min(options.retryAfterSeconds ?? 0, MAX_RETRY_AFTER_SECONDS);
  return { delaySeconds: Math.max(scheduled, asked) };
}

/** Whether a response asks to be retried later (its Retry-After is honoured). */
export function honoursRetryAfter(status: number): boolean {
  return status === 429 || status === 503;
}
