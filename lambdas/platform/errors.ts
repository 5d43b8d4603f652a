/**
 * The application's errors: each code of the v1 contract and of our documented decisions,
 * with its HTTP status, mapped once here. Domain code throws `new ApiError(code, message)`;
 * the HTTP layer turns it into the error envelope.
 */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  API_KEY_INVALID: 401,
  INSUFFICIENT_CREDITS: 402,
  API_ACCESS_DENIED: 403,
  INSUFFICIENT_SCOPE: 403,
  ROUTE_NOT_FOUND: 404,
  ASSET_NOT_FOUND: 404,
  JOB_NOT_FOUND: 404,
  WEBHOOK_NOT_FOUND: 404,
  EVENT_NOT_FOUND: 404,
  DELIVERY_NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  IDEMPOTENCY_CONFLICT: 409,
  ASSET_NOT_UPLOADED: 409,
  ASSET_NOT_READY: 409,
  JOB_NOT_READY: 409,
  JOB_FAILED: 409,
  JOB_ALREADY_ENDED: 409,
  WEBHOOK_DISABLED: 409,
  ASSET_UPLOAD_TOO_LARGE: 413,
  ASSET_CONTENT_MISMATCH: 422,
  SOURCE_NOT_SUPPORTED: 422,
  RATE_LIMIT_EXCEEDED: 429,
  CONCURRENT_JOB_LIMIT_EXCEEDED: 429,
  INTERNAL_ERROR: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra response headers the error carries (for example Retry-After). */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}
