import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord } from 'aws-lambda';
import { eventOfStreamImage, markEventRelayed, type EventRecord } from '#domain/events/events';
import { log } from '#platform/log';
import { enqueueDeliveries } from './delivery-queue';
import { recordDelivery, type DeliveryRef } from './delivery-store';
import { endpointsOf, type Endpoint } from './endpoint-store';

/**
 * The relay of the transactional outbox: for each new event, one delivery per endpoint that
 * should receive it (active and subscribed to its type; for a test event, the endpoint tested,
 * whatever became of it since), each recorded by a conditional put and then queued. Recording
 * first means a delivery exists before any message names it; a crash between the two leaves a
 * pending delivery that the sweeper queues. Relaying an event again records nothing new and
 * queues its deliveries again, which the worker's claim makes harmless. Last, the event leaves
 * the outbox index.
 */

/** The ids of the endpoints a job event goes to: the active ones subscribed to its type. */
function subscribers(event: EventRecord, endpoints: readonly Endpoint[]): string[] {
  return endpoints
    .filter((endpoint) => endpoint.status === 'active' && (endpoint.events as readonly string[]).includes(event.type))
    .map((endpoint) => endpoint.webhookId);
}

/** Reads an organization's endpoints; a batch of events reads each organization's once. */
type EndpointsReader = (organizationId: number) => Promise<Endpoint[]>;

export async function relayEvent(
  event: EventRecord,
  now = new Date(),
  readEndpoints: EndpointsReader = endpointsOf,
): Promise<DeliveryRef[]> {
  const { organizationId } = event;
  // A test event goes to the endpoint tested, unread: the test was answered `pending` while the
  // endpoint was live, so a delivery to one deleted since is recorded all the same, for the
  // worker to end failed (`endpoint_deleted`) rather than let it vanish.
  const webhookIds = event.targetWebhookId
    ? [event.targetWebhookId]
    : subscribers(event, await readEndpoints(organizationId));
  const body = JSON.stringify(event.payload);
  const refs: DeliveryRef[] = webhookIds.map((webhookId) => ({ organizationId, eventId: event.eventId, webhookId }));
  await Promise.all(refs.map((ref) => recordDelivery(ref, { type: event.type, body }, now)));
  await enqueueDeliveries(refs);
  await markEventRelayed(event);
  return refs;
}

/**
 * The stream's new event items, relayed side by side (each relay is idempotent, so their order
 * does not matter), each organization's endpoints read once for the batch. The first record in stream order that failed is reported, and Lambda (or the
 * local poller) retries from it: the ones before it are done, the ones after it are relayed again,
 * which records nothing twice.
 */
export async function relayStreamRecords(records: readonly DynamoDBRecord[]): Promise<DynamoDBBatchResponse> {
  const endpointsRead = new Map<number, Promise<Endpoint[]>>();
  const readOncePerBatch: EndpointsReader = (organizationId) => {
    let read = endpointsRead.get(organizationId);
    if (!read) {
      read = endpointsOf(organizationId);
      endpointsRead.set(organizationId, read);
    }
    return read;
  };
  const now = new Date();
  const outcomes = await Promise.allSettled(
    records.map(async (record) => {
      const image = record.dynamodb?.NewImage;
      if (image) await relayEvent(eventOfStreamImage(image as Record<string, AttributeValue>), now, readOncePerBatch);
    }),
  );
  const failed = outcomes.findIndex((outcome) => outcome.status === 'rejected');
  if (failed < 0) return { batchItemFailures: [] };
  const record = records[failed]!;
  log('warn', 'Relaying an event failed; the batch resumes from it', {
    error: (outcomes[failed] as PromiseRejectedResult).reason,
    sequence_number: record.dynamodb?.SequenceNumber,
  });
  return { batchItemFailures: [{ itemIdentifier: record.dynamodb?.SequenceNumber ?? '' }] };
}
