import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { log } from '#platform/log';
import { putMetric } from '#platform/metrics';
import {
  flagSetting,
  positiveNumberSetting,
  DEVELOPER_WEBHOOK_DELIVERY_ENABLED,
  WEBHOOK_LOOPBACK_ALLOWED,
  WEBHOOK_RETRY_SCALE,
} from '#platform/settings';
import { enqueueDeliveryLater, parseDeliveryMessage } from './delivery-queue';
import { sendDelivery, type DeliveryResult } from './delivery-request';
import {
  claimAttempt,
  findDelivery,
  recordOutcome,
  type AttemptOutcome,
  type AttemptRecord,
  type Delivery,
  type DeliveryRef,
} from './delivery-store';
import {
  disableEndpoint,
  findEndpoint,
  recordEndpointFailure,
  recordEndpointSuccess,
  type Endpoint,
} from './endpoint-store';
import { honoursRetryAfter, nextAttemptDelay } from './retry-schedule';
import { responseExcerpt } from './response-excerpt';
import { openSecret, type SealedSecret } from './secret-sealing';
import { deliveryHeaders } from './signature';

/**
 * The delivery worker: one attempt per due delivery named by a queue message. The message is
 * only a pointer; the delivery item decides. Nothing is sent while delivery is switched off
 * (the delivery stays pending and the sweeper queues it once it is on), and a message that
 * arrives before its delivery is due is sent on again with the rest of the wait.
 */

/** An endpoint that failed every attempt for this long is disabled (Svix's rule). */
export const DISABLE_AFTER_FAILING_MS = 5 * 86_400_000;

/**
 * How long an attempt waits for the receiver (connection, response headers and the start of its
 * body): long enough for a receiver that answers first and works after, as the spec asks, short
 * enough that a dead one does not hold a worker.
 */
const RESPONSE_TIMEOUT_SECONDS = 10;

/** A message this early is requeued; within it, the attempt is made now. */
const EARLY_TOLERANCE_MS = 1000;

/** The claim outlives the attempt, so a crashed worker's delivery is free again soon after. */
const LEASE_MS = (RESPONSE_TIMEOUT_SECONDS + 20) * 1000;

function attemptRecord(result: DeliveryResult, at: Date, signingSecrets: readonly string[]): AttemptRecord {
  const base = { at: at.toISOString(), duration_ms: Math.round(result.durationMs) };
  switch (result.kind) {
    case 'response': {
      const excerpt = responseExcerpt(result.body, signingSecrets);
      return { ...base, status_code: result.status, ...(excerpt === undefined ? {} : { response_body: excerpt }) };
    }
    case 'refused':
      return { ...base, error: `refused: ${result.reason}` };
    case 'error':
      return { ...base, error: result.reason };
  }
}

/** Why a delivery ends without an attempt. */
type SkipReason = 'endpoint_deleted' | 'endpoint_disabled' | 'endpoint_unsubscribed';

/** An endpoint a delivery may go to: one that still holds its signing secret. */
type SendableEndpoint = Endpoint & { secretSealed: SealedSecret };

/** What became of one queue message's delivery. */
export type DeliveryRun =
  | 'delivery-switched-off'
  | 'not-pending'
  | 'requeued'
  | SkipReason
  | 'claimed-elsewhere'
  | 'recorded-elsewhere'
  | AttemptOutcome['status'];

/** The endpoint the delivery goes out to, or why it ends without an attempt. */
function recipientOf(
  delivery: Delivery,
  endpoint: Endpoint | undefined,
): { endpoint: SendableEndpoint } | { skip: SkipReason } {
  if (!endpoint || endpoint.status === 'deleted' || !endpoint.secretSealed) return { skip: 'endpoint_deleted' };
  const sendable = { endpoint: { ...endpoint, secretSealed: endpoint.secretSealed } };
  // A test is sent whatever the endpoint's status and subscriptions: the caller asked for it.
  if (delivery.eventType === 'webhook.test') return sendable;
  if (endpoint.status === 'disabled') return { skip: 'endpoint_disabled' };
  // A resend was asked for by its delivery, so it goes whatever the endpoint subscribes to now.
  if (delivery.resendOf === null && !(endpoint.events as readonly string[]).includes(delivery.eventType)) {
    return { skip: 'endpoint_unsubscribed' };
  }
  return sendable;
}

/** The sealed secret a rotation replaced, while it still signs. */
function signingPreviousSecret(endpoint: Endpoint, now: Date): SealedSecret | undefined {
  const { previousSecretSealed, previousSecretExpiresAt } = endpoint;
  if (!previousSecretSealed || !previousSecretExpiresAt) return undefined;
  return Date.parse(previousSecretExpiresAt) > now.getTime() ? previousSecretSealed : undefined;
}

/** One attempt, and the secrets that signed it (for the redaction of what the receiver answers). */
async function attempt(
  delivery: Delivery,
  endpoint: SendableEndpoint,
  now: Date,
): Promise<{ result: DeliveryResult; secrets: string[] }> {
  const owner = { organizationId: delivery.organizationId, webhookId: delivery.webhookId };
  const previousSealed = signingPreviousSecret(endpoint, now);
  const [secret, previousSecret] = await Promise.all([
    openSecret(endpoint.secretSealed, owner),
    previousSealed && openSecret(previousSealed, owner),
  ]);
  const result = await sendDelivery({
    url: endpoint.url,
    headers: deliveryHeaders({
      eventId: delivery.eventId,
      eventType: delivery.eventType,
      secret,
      previousSecret,
      rawBody: delivery.body,
      now,
    }),
    body: delivery.body,
    timeoutMs: RESPONSE_TIMEOUT_SECONDS * 1000,
    loopbackAllowed: flagSetting(WEBHOOK_LOOPBACK_ALLOWED),
  });
  return { result, secrets: previousSecret === undefined ? [secret] : [secret, previousSecret] };
}

function succeeded(result: DeliveryResult): boolean {
  return result.kind === 'response' && result.status >= 200 && result.status < 300;
}

async function afterFailure(endpoint: Endpoint, result: DeliveryResult, now: Date): Promise<void> {
  const { organizationId, webhookId } = endpoint;
  await recordEndpointFailure(organizationId, webhookId, now);
  if (result.kind === 'response' && result.status === 410) {
    await disableEndpoint(organizationId, webhookId, 'receiver_gone', now);
    return;
  }
  const failingSince = endpoint.failingSince ? Date.parse(endpoint.failingSince) : now.getTime();
  if (now.getTime() - failingSince >= DISABLE_AFTER_FAILING_MS) {
    await disableEndpoint(organizationId, webhookId, 'persistent_failure', now);
  }
}

/** One queue message: what became of its delivery, if anything. */
export async function deliverOne(ref: DeliveryRef, now = new Date()): Promise<DeliveryRun> {
  if (!flagSetting(DEVELOPER_WEBHOOK_DELIVERY_ENABLED)) return 'delivery-switched-off';
  const delivery = await findDelivery(ref);
  if (!delivery || delivery.status !== 'pending') return 'not-pending';
  const waitMs = Date.parse(delivery.nextAttemptAt) - now.getTime();
  if (waitMs > EARLY_TOLERANCE_MS) {
    await enqueueDeliveryLater(ref, waitMs / 1000);
    return 'requeued';
  }
  const recipient = recipientOf(delivery, await findEndpoint(ref.organizationId, ref.webhookId));
  if ('skip' in recipient) {
    await recordOutcome(delivery, { status: 'failed', reason: recipient.skip }, now);
    return recipient.skip;
  }
  const { endpoint } = recipient;
  if (!(await claimAttempt(delivery, now, new Date(now.getTime() + LEASE_MS)))) return 'claimed-elsewhere';

  const { result, secrets } = await attempt(delivery, endpoint, now);
  putMetric('webhookDeliveryAttempts', 1, { Outcome: succeeded(result) ? 'succeeded' : 'failed' });
  const answeredAt = new Date();
  const record = attemptRecord(result, now, secrets);
  let outcome: AttemptOutcome;
  if (succeeded(result)) {
    outcome = { status: 'succeeded', attempt: record };
  } else {
    const retryAfterSeconds =
      result.kind === 'response' && honoursRetryAfter(result.status) ? result.retryAfterSeconds : undefined;
    const { delaySeconds } = nextAttemptDelay(delivery.attempts + 1, {
      scale: positiveNumberSetting(WEBHOOK_RETRY_SCALE, 1),
      retryAfterSeconds,
    });
    outcome =
      delaySeconds === undefined
        ? { status: 'failed', attempt: record, reason: 'attempts_exhausted' }
        : { status: 'pending', attempt: record, nextAttemptAt: new Date(answeredAt.getTime() + delaySeconds * 1000) };
  }
  if (!(await recordOutcome(delivery, outcome, answeredAt))) return 'recorded-elsewhere';
  if (outcome.status !== 'pending') putMetric('webhookDeliveriesEnded', 1, { Outcome: outcome.status });
  if (outcome.status === 'succeeded') await recordEndpointSuccess(ref.organizationId, ref.webhookId, answeredAt);
  else await afterFailure(endpoint, result, answeredAt);
  if (outcome.status === 'pending') {
    await enqueueDeliveryLater(ref, (outcome.nextAttemptAt.getTime() - Date.now()) / 1000);
  }
  return outcome.status;
}

/**
 * A batch of queue messages, side by side. A message that names no delivery is a poison
 * message: reported failed, it returns until the queue moves it to its dead-letter queue. So
 * is one whose handling threw (the table or the queue failing), which is then retried.
 */
export async function deliverQueuedMessages(records: readonly SQSRecord[]): Promise<SQSBatchResponse> {
  const results = await Promise.all(
    records.map(async (record) => {
      const ref = parseDeliveryMessage(record.body);
      if (!ref) {
        log('error', 'A deliveries queue message names no delivery', { message_id: record.messageId });
        return record.messageId;
      }
      try {
        await deliverOne(ref);
        return undefined;
      } catch (error) {
        log('warn', 'A delivery failed to run; its message will return', {
          message_id: record.messageId,
          event_id: ref.eventId,
          webhook_id: ref.webhookId,
          resend_id: ref.resendId,
          error,
        });
        return record.messageId;
      }
    }),
  );
  return {
    batchItemFailures: results
      .filter((messageId) => messageId !== undefined)
      .map((itemIdentifier) => ({ itemIdentifier })),
  };
}
