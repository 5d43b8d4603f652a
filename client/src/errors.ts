import { rateLimitOf, requestIdOf, retryAfterOf, type RateLimit } from './rate-limits.ts';
import type { components } from './schema.ts';

export type ErrorCode = components['schemas']['ErrorCode'];

/** The error envelope every failure of the API answers with. */
export type ErrorEnvelope = components['schemas']['ErrorEnvelope'];

function isErrorEnvelope(body: unknown): body is ErrorEnvelope {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const { error } = body;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    'message' in error &&
    typeof error.message === 'string'
  );
}

/**
 * An answer other than 2xx, thrown by every call of the client (after its retries, when the call
 * is retried). `code` is the envelope's, typed by the document's `ErrorCode`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  /** The envelope's code; null when the answer had no envelope (a proxy's 502, a storage error). */
  readonly code: ErrorCode | null;
  /** `req_…`: quote it to support. */
  readonly requestId: string | undefined;
  /** Seconds the answer asked to wait (`Retry-After`, sent with 429). */
  readonly retryAfter: number | undefined;
  readonly rateLimit: RateLimit | undefined;

  constructor(
    /** What was called, as `METHOD URL`. */
    readonly request: string,
    readonly response: Response,
    /** The answer's body: the parsed JSON, or its text. */
    readonly body: unknown,
  ) {
    const envelope = isErrorEnvelope(body) ? body.error : undefined;
    const explanation = envelope ? `${envelope.code}: ${envelope.message}` : String(body ?? '').slice(0, 200);
    super(`${request} answered ${response.status}${explanation ? ` ${explanation}` : ''}`);
    this.code = envelope?.code ?? null;
    this.requestId = envelope?.request_id ?? requestIdOf(response.headers);
    this.retryAfter = retryAfterOf(response.headers);
    this.rateLimit = rateLimitOf(response.headers);
  }

  get status(): number {
    return this.response.status;
  }
}
