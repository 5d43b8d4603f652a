import { GetCommand, paginateQuery } from '@aws-sdk/lib-dynamodb';
import { EVENT_ITEM_PREFIX } from '#domain/events/event-stream';
import { eventKey, type EventRecord } from '#domain/events/events';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { TABLE_DESIGN } from '#platform/table-design';
import { enqueueDeliveries } from './delivery-queue';
import { deliveryRefOf, makeDueNow, type DeliveryRef } from './delivery-store';
import { deliveryEnabled } from './delivery-settings';
import { dueBefore, outboxShards } from './outbox-keys';
import { relayEvent } from './relay';

/**
 * The sweeper: what the stream and the queue should have handled but did not. An event still in
 * the outbox well after it happened was not relayed (the stream keeps records 24 hours, and a
 * relay can fail past its retries): it is relayed here. A pending delivery well past its due
 * time lost its message, or waited while delivery was switched off: it is queued again (only
 * while delivery is on). Both are idempotent, so a sweep racing the stream or the queue costs a
 * duplicate message at most, which the worker's claim absorbs.
 */

export interface SweepOptions {
  /** How long past due an entry must be; 0 takes everything due. */
  overdueSeconds: number;
  /** Makes every pending delivery due now, whatever its schedule (an operator's retry run). */
  retryNow?: boolean;
  now?: Date;
}

export interface SweepResult {
  relayedEvents: number;
  queuedDeliveries: number;
}

/** Sorts after every due time: an operator's run takes every entry. */
const END_OF_TIME = '9999-12-31T23:59:59.999Z';

interface OutboxEntry {
  pk: string;
  sk: string;
  organization_id: number;
}

async function* entriesDue(cutoff: string): AsyncGenerator<OutboxEntry> {
  const { indexName, partitionKey, sortKey } = TABLE_DESIGN.outbox;
  for (const shard of outboxShards()) {
    const pages = paginateQuery(
      { client: dynamo },
      {
        TableName: tableName(),
        IndexName: indexName,
        KeyConditionExpression: '#shard = :shard AND #due < :cutoff',
        ExpressionAttributeNames: { '#shard': partitionKey, '#due': sortKey },
        ExpressionAttributeValues: { ':shard': shard, ':cutoff': cutoff },
      },
    );
    for await (const page of pages) yield* (page.Items ?? []) as OutboxEntry[];
  }
}

async function findEvent(entry: OutboxEntry): Promise<EventRecord | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName(),
      Key: eventKey(entry.organization_id, entry.sk.slice(EVENT_ITEM_PREFIX.length)),
      ConsistentRead: true,
    }),
  );
  return Item as EventRecord | undefined;
}

export async function sweepOutbox({
  overdueSeconds,
  retryNow = false,
  now = new Date(),
}: SweepOptions): Promise<SweepResult> {
  const cutoff = retryNow ? END_OF_TIME : dueBefore(new Date(now.getTime() - overdueSeconds * 1000));
  const sendDeliveries = deliveryEnabled();
  const result: SweepResult = { relayedEvents: 0, queuedDeliveries: 0 };
  const toQueue: DeliveryRef[] = [];
  for await (const entry of entriesDue(cutoff)) {
    if (entry.sk.startsWith(EVENT_ITEM_PREFIX)) {
      const event = await findEvent(entry);
      if (!event?.outbox_shard) continue;
      await relayEvent(event, now);
      result.relayedEvents += 1;
      continue;
    }
    const ref = deliveryRefOf(entry.organization_id, entry.sk);
    if (!ref || !sendDeliveries) continue;
    if (retryNow && !(await makeDueNow(ref, now))) continue;
    toQueue.push(ref);
  }
  await enqueueDeliveries(toQueue);
  result.queuedDeliveries = toQueue.length;
  return result;
}
