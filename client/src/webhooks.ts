import { Buffer } from 'node:buffer';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures, both sides: `verifyWebhook` for a receiver, `signWebhook` for what sends
 * deliveries as the service does (`video-api-listen`, tests of a receiver).
 *
 * The signature header is `v1=<hex>`, the HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the
 * endpoint's signing secret: the whole `whsec_...` string as UTF-8 bytes, nothing decoded. The
 * header may carry several space-separated values (while a secret is being rotated); a delivery
 * is genuine when any of them matches any of the secrets given.
 *
 * Deliveries also carry the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`,
 * `webhook-signature`), which its libraries verify: `v1,<base64>` of the HMAC-SHA256 of
 * `<id>.<timestamp>.<raw body>`, keyed with the bytes the secret encodes after `whsec_` (base64;
 * secrets issued before were base64url, which decodes to the same bytes here).
 */

export const WEBHOOK_HEADERS = {
  id: 'Service-Webhook-Id',
  event: 'Service-Webhook-Event',
  timestamp: 'Service-Webhook-Timestamp',
  signature: 'Service-Webhook-Signature',
} as const;

/** The Standard Webhooks headers every delivery carries too, named as its specification spells them. */
export const STANDARD_WEBHOOK_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

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
  /** The body exactly as received: parsing and re-serializing JSON changes the bytes and the signature with them. */
  rawBody: string | Uint8Array;
  /** The endpoint's signing secret, or several while one is being rotated. */
  secrets: string | readonly string[];
  /** How far the timestamp may be from now, either way (replays); 300 unless given. */
  toleranceSeconds?: number;
  /** Milliseconds since the epoch; `Date.now()` unless given. */
  now?: number;
}

const SIGNATURE_VERSION = 'v1=';
const SHA256_HEX = /^[0-9a-f]{64}$/i;
// Digits only, and few enough to stay an exact integer.
const UNIX_SECONDS = /^\d{1,12}$/;
const DEFAULT_TOLERANCE_SECONDS = 300;
const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

function isHeadersLike(headers: WebhookHeaders): headers is HeadersLike {
  return typeof headers.get === 'function';
}

function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  const lowerName = name.toLowerCase();
  if (isHeadersLike(headers)) return headers.get(lowerName) || undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === lowerName) return (typeof value === 'string' ? value : value?.[0]) || undefined;
  }
  return undefined;
}

function digest(secret: string, timestamp: string, rawBody: string | Uint8Array): Buffer {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
}

/** The 32-byte digests the header claims; values of another version or not hex are not claims. */
function claimedDigests(header: string): Buffer[] {
  return header
    .split(/\s+/)
    .filter((value) => value.startsWith(SIGNATURE_VERSION))
    .map((value) => value.slice(SIGNATURE_VERSION.length))
    .filter((hex) => SHA256_HEX.test(hex))
    .map((hex) => Buffer.from(hex, 'hex'));
}

/**
 * Checks a delivery before anything reads its body: the four headers are there, the timestamp is
 * within the tolerance of now, and a signature matches a secret (compared in constant time).
 * Throws a TypeError when no secret is given: that is a configuration mistake, not a forgery.
 */
export function verifyWebhook({
  headers,
  rawBody,
  secrets,
  toleranceSeconds = DEFAULT_TOLERANCE_SECONDS,
  now = Date.now(),
}: VerifyWebhookInput): VerifyWebhookResult {
  const candidates = (typeof secrets === 'string' ? [secrets] : secrets).filter(Boolean);
  if (candidates.length === 0) throw new TypeError('verifyWebhook needs at least one signing secret');

  const eventId = headerValue(headers, WEBHOOK_HEADERS.id);
  const eventType = headerValue(headers, WEBHOOK_HEADERS.event);
  const timestampHeader = headerValue(headers, WEBHOOK_HEADERS.timestamp);
  const signatureHeader = headerValue(headers, WEBHOOK_HEADERS.signature);
  if (!eventId || !eventType || !timestampHeader || !signatureHeader) return { ok: false, reason: 'missing_headers' };

  if (!UNIX_SECONDS.test(timestampHeader)) return { ok: false, reason: 'invalid_timestamp' };
  const timestamp = Number(timestampHeader);
  if (Math.abs(Math.floor(now / 1000) - timestamp) > toleranceSeconds) {
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  }

  const claimed = claimedDigests(signatureHeader);
  const matches = candidates.some((secret) => {
    const expected = digest(secret, timestampHeader, rawBody);
    return claimed.some((candidate) => timingSafeEqual(candidate, expected));
  });
  if (!matches) return { ok: false, reason: 'no_matching_signature' };

  return { ok: true, eventId, eventType, timestamp };
}

export interface SignWebhookInput {
  eventId: string;
  eventType: string;
  rawBody: string | Uint8Array;
  /** The signing secret; or, while one is rotated, the current one first, then the previous one. */
  secrets: string | readonly string[];
  /** When it is signed; now unless given. */
  now?: Date;
}

function standardDigest(secret: string, id: string, timestamp: string, rawBody: string | Uint8Array): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return createHmac('sha256', key).update(`${id}.${timestamp}.`).update(rawBody).digest('base64');
}

/**
 * The headers of a delivery signed as the service signs it: one `v1=` signature per secret in the
 * contract's header, and one `v1,` signature per secret in the Standard Webhooks header.
 */
export function signWebhook({ eventId, eventType, rawBody, secrets, now = new Date() }: SignWebhookInput) {
  const timestamp = String(Math.floor(now.getTime() / 1000));
  const secretList = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    [WEBHOOK_HEADERS.id]: eventId,
    [WEBHOOK_HEADERS.event]: eventType,
    [WEBHOOK_HEADERS.timestamp]: timestamp,
    [WEBHOOK_HEADERS.signature]: secretList
      .map((secret) => SIGNATURE_VERSION + digest(secret, timestamp, rawBody).toString('hex'))
      .join(' '),
    [STANDARD_WEBHOOK_HEADERS.id]: eventId,
    [STANDARD_WEBHOOK_HEADERS.timestamp]: timestamp,
    [STANDARD_WEBHOOK_HEADERS.signature]: secretList
      .map((secret) => `v1,${standardDigest(secret, eventId, timestamp, rawBody)}`)
      .join(' '),
  };
}

/** A new signing secret in the service's form: `whsec_` and 32 random bytes in standard base64. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}
