/** Typings of verify.mjs, so TypeScript code and tests can import it. */

export interface HeadersLike {
  get(name: string): string | null;
}

/** A plain object of request headers, names in any case (Node's `req.headers`), or a `Headers`. */
export type WebhookHeaders = Readonly<Record<string, string | readonly string[] | undefined>> | HeadersLike;

export type VerifyFailureReason =
  'missing_headers' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'no_matching_signature';

export type VerifyWebhookResult =
  { ok: true; eventId: string; eventType: string; timestamp: number } | { ok: false; reason: VerifyFailureReason };

export interface VerifyWebhookInput {
  headers: WebhookHeaders;
  /** The body exactly as received. */
  rawBody: string | Buffer;
  /** The endpoint's signing secret, or several while one is being rotated. */
  secrets: string | readonly string[];
  /** How far the timestamp may be from now, either way; 300 unless given. */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch; `Date.now()` unless given. */
  now?: number;
}

/** Throws a TypeError when no secret is given. */
export declare function verifyWebhook(input: VerifyWebhookInput): VerifyWebhookResult;
