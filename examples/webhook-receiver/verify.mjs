import { Buffer } from 'node:buffer';
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Verifies a webhook delivery from the video automation API. No dependencies: copy this file
 * into any Node project (18 or later).
 *
 * The signature header is `v1=<hex>`, the HMAC-SHA256 of `<timestamp>.<raw body>` keyed with the
 * endpoint's signing secret: the whole `whsec_...` string as UTF-8 bytes, nothing decoded. The
 * header may carry several space-separated values (while a secret is being rotated); a delivery
 * is genuine when any of them matches any of the secrets given.
 */

/**
 * @typedef {{ get(name: string): string | null }} HeadersLike
 * @typedef {Record<string, string | string[] | undefined> | HeadersLike} WebhookHeaders
 * @typedef {'missing_headers' | 'invalid_timestamp' | 'timestamp_out_of_tolerance' | 'no_matching_signature'} VerifyFailureReason
 * @typedef {{ ok: true, eventId: string, eventType: string, timestamp: number }
 *   | { ok: false, reason: VerifyFailureReason }} VerifyWebhookResult
 */

const HEADER_NAMES = {
  id: 'service-webhook-id',
  event: 'service-webhook-event',
  timestamp: 'service-webhook-timestamp',
  signature: 'service-webhook-signature',
};

const SIGNATURE_VERSION = 'v1=';
const SHA256_HEX = /^[0-9a-f]{64}$/i;
// Digits only, and few enough to stay an exact integer.
const UNIX_SECONDS = /^\d{1,12}$/;

/**
 * @param {WebhookHeaders} headers
 * @param {string} name lower case
 * @returns {string | undefined}
 */
function headerValue(headers, name) {
  if (typeof headers.get === 'function') return /** @type {HeadersLike} */ (headers).get(name) || undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return (Array.isArray(value) ? value[0] : value) || undefined;
  }
  return undefined;
}

/**
 * The 32-byte digests the header claims; values of another version or not hex are not claims.
 * @param {string} header
 * @returns {Buffer[]}
 */
function claimedDigests(header) {
  return header
    .split(/\s+/)
    .filter((value) => value.startsWith(SIGNATURE_VERSION))
    .map((value) => value.slice(SIGNATURE_VERSION.length))
    .filter((hex) => SHA256_HEX.test(hex))
    .map((hex) => Buffer.from(hex, 'hex'));
}

/**
 * @param {string} secret
 * @param {string} timestamp exactly as the header carries it
 * @param {string | Buffer} rawBody
 * @returns {Buffer}
 */
function expectedDigest(secret, timestamp, rawBody) {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest();
}

/**
 * Checks a delivery before anything reads its body. Pass the body exactly as received (a string
 * or the raw bytes): parsing and re-serializing JSON changes the bytes and the signature with them.
 *
 * @param {object} input
 * @param {WebhookHeaders} input.headers request headers, names in any case, or a `Headers`
 * @param {string | Buffer} input.rawBody
 * @param {string | string[]} input.secrets the endpoint's signing secret, or several while rotating
 * @param {number} [input.toleranceSeconds] how far the timestamp may be from now, either way (replays)
 * @param {number} [input.now] milliseconds since the epoch
 * @returns {VerifyWebhookResult}
 */
export function verifyWebhook({ headers, rawBody, secrets, toleranceSeconds = 300, now = Date.now() }) {
  const candidates = (Array.isArray(secrets) ? secrets : [secrets]).filter(Boolean);
  // A missing secret is a configuration mistake, not a forged delivery: fail loudly.
  if (candidates.length === 0) throw new TypeError('verifyWebhook needs at least one signing secret');

  const eventId = headerValue(headers, HEADER_NAMES.id);
  const eventType = headerValue(headers, HEADER_NAMES.event);
  const timestampHeader = headerValue(headers, HEADER_NAMES.timestamp);
  const signatureHeader = headerValue(headers, HEADER_NAMES.signature);
  if (!eventId || !eventType || !timestampHeader || !signatureHeader) return { ok: false, reason: 'missing_headers' };

  if (!UNIX_SECONDS.test(timestampHeader)) return { ok: false, reason: 'invalid_timestamp' };
  const timestamp = Number(timestampHeader);
  if (Math.abs(Math.floor(now / 1000) - timestamp) > toleranceSeconds) {
    return { ok: false, reason: 'timestamp_out_of_tolerance' };
  }

  const claimed = claimedDigests(signatureHeader);
  const matches = candidates.some((secret) => {
    const expected = expectedDigest(secret, timestampHeader, rawBody);
    return claimed.some((digest) => timingSafeEqual(digest, expected));
  });
  if (!matches) return { ok: false, reason: 'no_matching_signature' };

  return { ok: true, eventId, eventType, timestamp };
}
