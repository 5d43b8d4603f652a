import { retryAfterOf } from './rate-limits.ts';

export interface RetryPolicy {
  /** Attempts after the first. */
  maxRetries: number;
  /** A `Retry-After` longer than this is not waited for: the answer is final (the day's limit, say). */
  maxRetryAfterSeconds: number;
  /** The first backoff's upper bound; each retry doubles it, up to MAX_BACKOFF_MS. */
  initialBackoffMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 2, maxRetryAfterSeconds: 60, initialBackoffMs: 500 };

const MAX_BACKOFF_MS = 8_000;

/** Resolves after `ms`, or rejects with the signal's reason once it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Exponential backoff with full jitter: many clients failing at once do not come back at once. */
function backoffMs(policy: RetryPolicy, retry: number): number {
  return Math.random() * Math.min(MAX_BACKOFF_MS, policy.initialBackoffMs * 2 ** retry);
}

/** How long to wait before trying an answer again; undefined when it is final. */
function waitBeforeRetryMs(policy: RetryPolicy, response: Response, retry: number): number | undefined {
  if (response.status !== 429 && response.status < 500) return undefined;
  const retryAfter = retryAfterOf(response.headers);
  if (retryAfter === undefined) return backoffMs(policy, retry);
  return retryAfter <= policy.maxRetryAfterSeconds ? retryAfter * 1000 : undefined;
}

/**
 * Runs `attempt` until it answers something final: a 429 or 5xx, or a network failure (fetch's
 * TypeError), is tried again after `Retry-After` or a backoff, at most `maxRetries` times; then
 * the last answer is returned, or the last failure thrown. Only for calls that are safe to repeat.
 */
export async function withRetries<Outcome extends { response: Response }>(
  attempt: () => Promise<Outcome>,
  policy: RetryPolicy,
  signal?: AbortSignal | null,
): Promise<Outcome> {
  for (let retry = 0; ; retry += 1) {
    let outcome: Outcome;
    try {
      outcome = await attempt();
    } catch (error) {
      const networkFailure = error instanceof TypeError && !signal?.aborted;
      if (!networkFailure || retry >= policy.maxRetries) throw error;
      await sleep(backoffMs(policy, retry), signal ?? undefined);
      continue;
    }
    const waitMs = retry < policy.maxRetries ? waitBeforeRetryMs(policy, outcome.response, retry) : undefined;
    if (waitMs === undefined) return outcome;
    await sleep(waitMs, signal ?? undefined);
  }
}
