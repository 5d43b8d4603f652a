import type { JobCancelledEvent, JobCompletedEvent, JobFailedEvent, WebhookTestEvent } from '#contract/types';
import { ConditionalCheckFailedException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { sortableId } from '#platform/ids';
import { DAY_MS } from '#platform/instants';
import type { TransactionItem } from '#platform/transactions';
import { organizationPartition } from '#platform/table-design';
import { EVENT_ITEM_PREFIX } from './event-stream';
import { LEAVE_OUTBOX, OUTBOX_ATTRIBUTES, outboxEntry } from './outbox-index';

/** Every event payload as the contract describes it. */
export type EventPayload = JobCompletedEvent | JobFailedEvent | JobCancelledEvent | WebhookTestEvent;
export type EventType = EventPayload['type'];
/** What an event says, before it gets its id and time: one of the payload types with its data. */
export type EventBody = { [T in EventType]: { type: T; data: Extract<EventPayload, { type: T }>['data'] } }[EventType];

/** Events stay readable this long after they happened, then TTL removes them; deliveries are kept as long. */
export const EVENT_RETENTION_DAYS = 30;

/**
 * Events are written in the same transaction as the state change they report, so one is never
 * lost or invented: the transactional outbox. The table's stream hands each new event to the
 * relay, which records its deliveries; until it has, the event keeps an entry in the outbox
 * index, where the sweeper finds an event the stream did not hand over.
 */
export function eventKey(organizationId: number, eventId: string) {
  return { pk: organizationPartition(organizationId), sk: `${EVENT_ITEM_PREFIX}${eventId}` };
}

export interface EventRecord {
  eventId: string;
  organizationId: number;
  type: EventType;
  createdAt: string;
  payload: EventPayload;
  /** A `webhook.test` event goes to this endpoint only, whatever its subscriptions. */
  targetWebhookId: string | null;
  /** Whether the event still waits in the outbox for the relay to record its deliveries. */
  awaitsRelay: boolean;
}

interface EventItem {
  event_id: string;
  organization_id: number;
  type: EventType;
  created_at: string;
  payload: EventPayload;
  target_webhook_id?: string;
  outbox_shard?: string;
  outbox_due?: string;
  expires_at: number;
}

function fromItem(item: EventItem): EventRecord {
  return {
    eventId: item.event_id,
    organizationId: item.organization_id,
    type: item.type,
    createdAt: item.created_at,
    payload: item.payload,
    targetWebhookId: item.target_webhook_id ?? null,
    awaitsRelay: item[OUTBOX_ATTRIBUTES.shard] !== undefined,
  };
}

/** A new event's item: in the outbox until relayed, and forgotten after the retention. */
function newEventItem(event: EventRecord): Record<string, unknown> {
  const item: EventItem = {
    event_id: event.eventId,
    organization_id: event.organizationId,
    type: event.type,
    created_at: event.createdAt,
    payload: event.payload,
    ...(event.targetWebhookId ? { target_webhook_id: event.targetWebhookId } : {}),
    ...outboxEntry(event.eventId, event.createdAt),
    expires_at: Math.floor((Date.parse(event.createdAt) + EVENT_RETENTION_DAYS * DAY_MS) / 1000),
  };
  return { ...eventKey(event.organizationId, event.eventId), ...item };
}

/** The event a stream record's new image holds: the stream hands the relay the item as written. */
export function eventOfStreamImage(image: Record<string, AttributeValue>): EventRecord {
  return fromItem(unmarshall(image) as EventItem);
}

export function newEvent(
  organizationId: number,
  body: EventBody,
  now = new Date(),
  targetWebhookId?: string,
): EventRecord {
  const eventId = sortableId('evt_', now.getTime());
  const createdAt = now.toISOString();
  const payload: EventPayload = {
    id: eventId,
    type: body.type,
    created_at: createdAt,
    data: body.data,
  } as EventPayload;
  return {
    eventId,
    organizationId,
    type: body.type,
    createdAt,
    payload,
    targetWebhookId: targetWebhookId ?? null,
    awaitsRelay: true,
  };
}

/** The event's item, for the transaction of the state change it reports. */
export function eventPut(event: EventRecord): TransactionItem {
  return {
    Put: {
      TableName: tableName(),
      Item: newEventItem(event),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** The event an event item's sort key names, or undefined for another item's key. */
export function eventIdOf(sortKey: string): string | undefined {
  return sortKey.startsWith(EVENT_ITEM_PREFIX) ? sortKey.slice(EVENT_ITEM_PREFIX.length) : undefined;
}

export async function findEvent(organizationId: number, eventId: string): Promise<EventRecord | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: eventKey(organizationId, eventId), ConsistentRead: true }),
  );
  // The table holds what this module wrote; this is where the stored shape meets its type.
  return Item ? fromItem(Item as EventItem) : undefined;
}

/** Takes a relayed event out of the outbox index; an event TTL already removed has nothing left to take out. */
export async function markEventRelayed(event: Pick<EventRecord, 'organizationId' | 'eventId'>): Promise<void> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: eventKey(event.organizationId, event.eventId),
        UpdateExpression: LEAVE_OUTBOX,
        ConditionExpression: 'attribute_exists(pk)',
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}
