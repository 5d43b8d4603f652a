import type { components } from './schema.ts';

/** One window of the rate limits. */
export interface RateLimitWindow {
  /** Requests allowed in the window. */
  limit: number;
  /** Requests left in the window. */
  remaining: number;
  /** Unix time (seconds) at which the window starts over. */
  reset: number;
}

/**
 * The `X-RateLimit-*` headers of an answer: the key's minute window (60 requests on Team) and the
 * organization's UTC day. Every answer carries them once the key is known; a 401 cannot.
 */
export interface RateLimit {
  key: RateLimitWindow;
  organizationDay: RateLimitWindow;
}

type DocumentedHeader = keyof components['headers'];

const HEADERS = {
  key: {
    limit: 'X-RateLimit-Limit',
    remaining: 'X-RateLimit-Remaining',
    reset: 'X-RateLimit-Reset',
  },
  organizationDay: {
    limit: 'X-RateLimit-Limit-Organization-Day',
    remaining: 'X-RateLimit-Remaining-Organization-Day',
    reset: 'X-RateLimit-Reset-Organization-Day',
  },
} as const satisfies Record<keyof RateLimit, Record<keyof RateLimitWindow, DocumentedHeader>>;

const RETRY_AFTER: DocumentedHeader = 'Retry-After';
const REQUEST_ID: DocumentedHeader = 'X-Request-Id';

function integerHeader(headers: Headers, name: DocumentedHeader): number | undefined {
  const value = headers.get(name);
  return value !== null && /^\d+$/.test(value) ? Number(value) : undefined;
}

function windowOf(
  headers: Headers,
  names: Record<keyof RateLimitWindow, DocumentedHeader>,
): RateLimitWindow | undefined {
  const limit = integerHeader(headers, names.limit);
  const remaining = integerHeader(headers, names.remaining);
  const reset = integerHeader(headers, names.reset);
  return limit === undefined || remaining === undefined || reset === undefined
    ? undefined
    : { limit, remaining, reset };
}

/** The rate limits an answer reports; undefined when it reports none, or not all of them. */
export function rateLimitOf(headers: Headers): RateLimit | undefined {
  const key = windowOf(headers, HEADERS.key);
  const organizationDay = windowOf(headers, HEADERS.organizationDay);
  return key && organizationDay ? { key, organizationDay } : undefined;
}

/** `Retry-After` in seconds, when the answer has one in that form. */
export function retryAfterOf(headers: Headers): number | undefined {
  return integerHeader(headers, RETRY_AFTER);
}

export function requestIdOf(headers: Headers): string | undefined {
  return headers.get(REQUEST_ID) ?? undefined;
}
