import { createHmac, randomBytes } from 'node:crypto';

/**
 * How a delivery proves it came from this service, twice over.
 *
 * The contract's headers (the spec's Events section): `Service-Webhook-Signature` is `v1=` and the
 * hex HMAC-SHA256 of `<timestamp>.<rawBody>`, keyed with the whole secret string, `whsec_` prefix
 * included, as UTF-8 bytes. That rule is the contract's and stays as it is.
 *
 * The Standard Webhooks headers (standardwebhooks.com), so that its libraries verify a delivery in
 * any language: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of
 * `<id>.<timestamp>.<rawBody>`, keyed with the bytes the secret encodes after `whsec_`. Secrets are
 * issued in the specification's encoding (standard base64); those issued before were base64url,
 * which Node's base64 decoder reads as well, so an old secret keys the same 32 bytes as its
 * standard form (docs/webhooks.md, "Secrets issued before").
 *
 * The receiver's side is the client package's `verifyWebhook` (client/src/webhooks.ts), whose
 * `signWebhook` signs what `video-api-listen` forwards: test/unit/webhook-signature.test.ts holds
 * both to this file.
 */

export const SIGNATURE_HEADERS = {
  id: 'Service-Webhook-Id',
  event: 'Service-Webhook-Event',
  timestamp: 'Service-Webhook-Timestamp',
  signature: 'Service-Webhook-Signature',
} as const;

/** Lower case, as the Standard Webhooks specification spells them. */
export const STANDARD_HEADERS = {
  id: 'webhook-id',
  timestamp: 'webhook-timestamp',
  signature: 'webhook-signature',
} as const;

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** One signature of the contract's header's value, for one secret. */
export function signatureOf(secret: string, timestamp: number, rawBody: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/** The HMAC key of the Standard Webhooks signature: what the secret encodes after `whsec_`. */
export function standardKeyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
}

/** One signature of the Standard Webhooks header's value, for one secret. */
export function standardSignatureOf(secret: string, id: string, timestamp: number, rawBody: string): string {
  return `v1,${createHmac('sha256', standardKeyOf(secret)).update(`${id}.${timestamp}.${rawBody}`).digest('base64')}`;
}

/**
 * The headers of one delivery attempt; the id stays the event's, so a retry can be recognized.
 * While a secret is rotated, `previousSecret` signs too: each signature header carries both
 * signatures, the current secret's first, separated by a space (as Standard Webhooks does), and a
 * receiver that knows either secret verifies the delivery.
 */
export function deliveryHeaders(input: {
  eventId: string;
  eventType: string;
  secret: string;
  previousSecret?: string;
  rawBody: string;
  now?: Date;
}): Record<string, string> {
  const timestamp = Math.floor((input.now ?? new Date()).getTime() / 1000);
  const secrets = input.previousSecret === undefined ? [input.secret] : [input.secret, input.previousSecret];
  return {
    [SIGNATURE_HEADERS.id]: input.eventId,
    [SIGNATURE_HEADERS.event]: input.eventType,
    [SIGNATURE_HEADERS.timestamp]: String(timestamp),
    [SIGNATURE_HEADERS.signature]: secrets.map((secret) => signatureOf(secret, timestamp, input.rawBody)).join(' '),
    [STANDARD_HEADERS.id]: input.eventId,
    [STANDARD_HEADERS.timestamp]: String(timestamp),
    [STANDARD_HEADERS.signature]: secrets
      .map((secret) => standardSignatureOf(secret, input.eventId, timestamp, input.rawBody))
      .join(' '),
  };
}

/** `whsec_` and 32 random bytes in standard base64, the encoding Standard Webhooks libraries decode. */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}
