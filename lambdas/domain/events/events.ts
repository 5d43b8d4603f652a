import type { JobCancelledEvent, JobCompletedEvent, JobFailedEvent, WebhookTestEvent } from '#contract/types';
import { ConditionalCheckFailedException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { isSortableId, SORTABLE_ID_LAST_MS, sortableId, sortableIdsAt } from '#platform/ids';
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

const EVENT_ID_PREFIX = 'evt_';

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
  /** Absent on events written before the outbox, when no endpoint existed yet: they read as expired. */
  expires_at?: number;
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
  const eventId = sortableId(EVENT_ID_PREFIX, now.getTime());
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

const unixSeconds = (milliseconds: number) => Math.floor(milliseconds / 1000);

/**
 * An event is retained while its `expires_at` (Unix seconds) is ahead: TTL deletes an item up to a
 * few days after that, and until then the event must read as gone.
 */
function isRetained(item: Pick<EventItem, 'expires_at'>, nowMs: number): boolean {
  return item.expires_at !== undefined && item.expires_at > unixSeconds(nowMs);
}

/** The payload of a retained event, as its deliveries carry it; text that is no event id is not looked up. */
export async function findRetainedPayload(
  organizationId: number,
  eventId: string,
  nowMs = Date.now(),
): Promise<EventPayload | undefined> {
  if (!isSortableId(EVENT_ID_PREFIX, eventId)) return undefined;
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: tableName(),
      Key: eventKey(organizationId, eventId),
      ProjectionExpression: '#payload, expires_at',
      ExpressionAttributeNames: { '#payload': 'payload' },
      ConsistentRead: true,
    }),
  );
  const item = Item as Pick<EventItem, 'payload' | 'expires_at'> | undefined;
  return item && isRetained(item, nowMs) ? item.payload : undefined;
}

/** Which of an organization's events a range read selects. */
export interface EventRange {
  organizationId: number;
  /** Only events created at or after this millisecond. */
  createdFromMs?: number;
  /** Only events created before this millisecond. */
  createdBeforeMs?: number;
  type?: EventType;
  /** Only events about this job (`data.job.id`). */
  jobId?: string;
}

export interface EventRangeRead {
  /** The retained events among those read that the range selects, newest first. */
  payloads: EventPayload[];
  /** How many event items the read went through, selected or not. */
  itemsRead: number;
  /** The last event read, when the range may go on after it. */
  lastReadEventId?: string;
}

/**
 * The sort keys of the range's events, both inclusive: event ids sort by creation, so the creation
 * range, the retention included, is a key range. Undefined when it holds nothing. The retention's
 * bound is a second early because `expires_at` is in whole seconds; the filter is exact.
 */
function sortKeyRange(range: EventRange, nowMs: number): { from: string; to: string } | undefined {
  const retainedFromMs = nowMs - EVENT_RETENTION_DAYS * DAY_MS - 1000;
  const fromMs = Math.max(0, retainedFromMs, range.createdFromMs ?? 0);
  const toMs = Math.min(SORTABLE_ID_LAST_MS, (range.createdBeforeMs ?? Infinity) - 1);
  if (fromMs > toMs) return undefined;
  return {
    from: `${EVENT_ITEM_PREFIX}${sortableIdsAt(EVENT_ID_PREFIX, fromMs).first}`,
    to: `${EVENT_ITEM_PREFIX}${sortableIdsAt(EVENT_ID_PREFIX, toMs).last}`,
  };
}

/**
 * Reads at most `itemLimit` of the range's event items, newest first, after the event `after`
 * (a previous read's last): one strongly consistent Query of the organization's partition with
 * the creation range in the key condition. Type, job and retention are a filter expression, so
 * the items it discards are read (and paid for) too; `itemLimit` bounds them.
 */
export async function readEventRange(
  range: EventRange,
  after: string | undefined,
  itemLimit: number,
  nowMs = Date.now(),
): Promise<EventRangeRead> {
  const keys = sortKeyRange(range, nowMs);
  const start = after === undefined ? undefined : eventKey(range.organizationId, after);
  // A position the retention has since passed has nothing after it (and DynamoDB refuses a start outside the range).
  if (keys === undefined || (start !== undefined && start.sk < keys.from)) return { payloads: [], itemsRead: 0 };
  const conditions = ['expires_at > :retained'];
  if (range.type !== undefined) conditions.push('#type = :type');
  if (range.jobId !== undefined) conditions.push('#payload.#data.#job.#id = :job_id');
  const {
    Items = [],
    ScannedCount = 0,
    LastEvaluatedKey,
  } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :partition AND sk BETWEEN :from AND :to',
      FilterExpression: conditions.join(' AND '),
      ProjectionExpression: '#payload',
      ExpressionAttributeNames: {
        '#payload': 'payload',
        ...(range.type === undefined ? {} : { '#type': 'type' }),
        ...(range.jobId === undefined ? {} : { '#data': 'data', '#job': 'job', '#id': 'id' }),
      },
      ExpressionAttributeValues: {
        ':partition': organizationPartition(range.organizationId),
        ':from': keys.from,
        ':to': keys.to,
        ':retained': unixSeconds(nowMs),
        ...(range.type === undefined ? {} : { ':type': range.type }),
        ...(range.jobId === undefined ? {} : { ':job_id': range.jobId }),
      },
      ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: itemLimit,
    }),
  );
  const lastReadEventId = LastEvaluatedKey === undefined ? undefined : eventIdOf(String(LastEvaluatedKey.sk));
  return {
    payloads: (Items as Pick<EventItem, 'payload'>[]).map((item) => item.payload),
    itemsRead: ScannedCount,
    ...(lastReadEventId === undefined ? {} : { lastReadEventId }),
  };
}
