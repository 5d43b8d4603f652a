import { createHmac, randomBytes } from 'node:crypto';

/**
 * How a delivery proves it came from this service (the spec's Events section): the
 * `Service-Webhook-Signature` header is `v1=` and the hex HMAC-SHA256 of `<timestamp>.<rawBody>`.
 * The HMAC key is the whole secret string, `whsec_` prefix included, as UTF-8 bytes: a receiver in
 * any language uses the string it was shown as is, without decoding anything. The receiver's side
 * is the client package's `verifyWebhook` (client/src/webhooks.ts), whose `signWebhook` signs what
 * `video-api-listen` forwards: test/unit/webhook-signature.test.ts holds both to this file.
 */

export const SIGNATURE_HEADERS = {
  id: 'Service-Webhook-Id',
  event: 'Service-Webhook-Event',
  timestamp: 'Service-Webhook-Timestamp',
  signature: 'Service-Webhook-Signature',
} as const;

const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

/** One signature of the header's value, for one secret. */
export function signatureOf(secret: string, timestamp: number, rawBody: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest('hex')}`;
}

/**
 * The headers of one delivery attempt; the id stays the event's, so a retry can be recognized.
 * While a secret is rotated, `previousSecret` signs too: the header carries both signatures, the
 * current secret's first, separated by a space (as Standard Webhooks does), and a receiver that
 * knows either secret verifies the delivery.
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
  };
}

export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
}
