import { SendMessageBatchCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { requiredSetting, WEBHOOK_DELIVERIES_QUEUE_URL } from '#platform/settings';
import type { DeliveryRef } from './delivery-store';

/**
 * The deliveries queue: a message names one delivery and nothing else, so a message is never
 * stale. The delivery item says what to send and when; the worker reads it.
 */

/** SQS delays a message at most this long; a longer wait is made of several hops. */
export const MAX_QUEUE_DELAY_SECONDS = 900;

const BATCH = 10;

let client: SQSClient | undefined;

/** One client per container, made on first use. */
export function sqs(): SQSClient {
  client ??= new SQSClient({});
  return client;
}

// The queue table (lambdas/queues.ts) gives the webhook-deliveries queue's URL through this setting.
const queueUrl = () => requiredSetting(WEBHOOK_DELIVERIES_QUEUE_URL);

/** A message's body: the delivery's ids, in the snake_case of everything the service writes. */
interface DeliveryMessage {
  organization_id: number;
  event_id: string;
  webhook_id: string;
  /** Only in a resend's message. */
  resend_id?: string;
}

export function parseDeliveryMessage(body: string): DeliveryRef | undefined {
  try {
    const parsed = JSON.parse(body) as Partial<DeliveryMessage>;
    if (
      typeof parsed.organization_id === 'number' &&
      typeof parsed.event_id === 'string' &&
      typeof parsed.webhook_id === 'string' &&
      (parsed.resend_id === undefined || typeof parsed.resend_id === 'string')
    ) {
      return {
        organizationId: parsed.organization_id,
        eventId: parsed.event_id,
        webhookId: parsed.webhook_id,
        ...(parsed.resend_id === undefined ? {} : { resendId: parsed.resend_id }),
      };
    }
  } catch {
    // not JSON: a poison message
  }
  return undefined;
}

const messageOf = (ref: DeliveryRef) =>
  JSON.stringify({
    organization_id: ref.organizationId,
    event_id: ref.eventId,
    webhook_id: ref.webhookId,
    ...(ref.resendId === undefined ? {} : { resend_id: ref.resendId }),
  } satisfies DeliveryMessage);

export async function enqueueDeliveries(refs: readonly DeliveryRef[]): Promise<void> {
  for (let start = 0; start < refs.length; start += BATCH) {
    const batch = refs.slice(start, start + BATCH);
    const { Failed } = await sqs().send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl(),
        Entries: batch.map((ref, index) => ({ Id: String(index), MessageBody: messageOf(ref) })),
      }),
    );
    if (Failed?.length) {
      throw new Error(`The deliveries queue refused ${Failed.length} messages: ${Failed[0]?.Code ?? 'unknown'}`);
    }
  }
}

/** Queues the delivery to be picked up in `delaySeconds`, or in the longest delay SQS allows. */
export async function enqueueDeliveryLater(ref: DeliveryRef, delaySeconds: number): Promise<void> {
  await sqs().send(
    new SendMessageCommand({
      QueueUrl: queueUrl(),
      MessageBody: messageOf(ref),
      DelaySeconds: Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds))),
    }),
  );
}
