import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { EventType } from '#domain/events/events';
import { deliveryUsageUpdate, type DeliveryStatus } from '#domain/usage/usage-store';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { isSortableId, SORTABLE_ID_LAST_MS, sortableId, sortableIdsAt, timeOfSortableId } from '#platform/ids';
import { DAY_MS } from '#platform/instants';
import { TransactionRefused, writeTransaction, type TransactionItem } from '#platform/transactions';
import { OUTBOX_ATTRIBUTES, outboxEntry } from '#domain/events/outbox-index';
import { indexPage, type IndexRef } from '#platform/sharded-index';
import { organizationPartition, TABLE_DESIGN } from '#platform/table-design';

/**
 * Delivery items: the event's first delivery to an endpoint in the organization's partition under
 * `DELIVERY#<event id>#<webhook id>`, so that recording the same event for the same endpoint
 * twice (a replayed stream record, the sweeper racing the stream) writes nothing the second
 * time; a resend of it under `DELIVERY#<event id>#<webhook id>#<delivery id>`. A delivery carries
 * the exact body it sends, so every attempt sends the same bytes. While pending it has an entry in
 * the outbox index, due at its next attempt; each status change moves the day's delivery counts in
 * the same transaction.
 *
 * The delivery log: every delivery has an id of its own (`dlv_…`, sortable by creation), and is
 * listed by it in its endpoint's gsi1 partition, `<organization partition>#WEBHOOK#<webhook
 * id>#DELIVERIES`. Deliveries recorded before the log have neither and are not listed.
 */

export const DELIVERY_RETENTION_DAYS = 30;

const DELIVERY_ID_PREFIX = 'dlv_';

/** Which delivery: the event and the endpoint it goes to, and which resend of it. */
export interface DeliveryRef {
  organizationId: number;
  eventId: string;
  webhookId: string;
  /** A resend's delivery id; absent for the event's first delivery to the endpoint. */
  resendId?: string;
}

export interface AttemptRecord {
  at: string;
  /** The receiver's HTTP status, when it answered. */
  status_code?: number;
  /** Why there was no answer (`timeout`, `connection`, `tls`, `refused: …`). */
  error?: string;
  duration_ms: number;
  /** The start of the receiver's answer, redacted (response-excerpt.ts); absent when it was empty. */
  response_body?: string;
}

export interface Delivery extends DeliveryRef {
  /** The delivery's id in the log; null for a delivery recorded before the log. */
  deliveryId: string | null;
  /** The delivery this one resends. */
  resendOf: string | null;
  eventType: EventType;
  /** The JSON body, byte for byte as every attempt sends it. */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  attemptLog: AttemptRecord[];
  nextAttemptAt: string;
  /** Why it ended failed without an answer to blame (`endpoint_disabled`, …). */
  failureReason: string | null;
  createdAt: string;
}

interface DeliveryItem {
  organization_id: number;
  event_id: string;
  webhook_id: string;
  delivery_id?: string;
  resend_of?: string;
  /** The delivery that resent this one (the latest, when it was resent more than once). */
  resent_as?: string;
  event_type: EventType;
  /** The JSON body, byte for byte as every attempt sends it. */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  attempt_log: AttemptRecord[];
  next_attempt_at: string;
  /** Why it ended failed without an answer to blame (`endpoint_disabled`, …). */
  failure_reason?: string;
  /** While an attempt is under way: until when it is reserved to the worker that claimed it. */
  lease_until?: string;
  created_at: string;
  updated_at: string;
  outbox_shard?: string;
  outbox_due?: string;
  expires_at: number;
  gsi1pk?: string;
  gsi1sk?: string;
}

function fromItem(item: DeliveryItem): Delivery {
  return {
    organizationId: item.organization_id,
    eventId: item.event_id,
    webhookId: item.webhook_id,
    ...(item.resend_of && item.delivery_id ? { resendId: item.delivery_id } : {}),
    deliveryId: item.delivery_id ?? null,
    resendOf: item.resend_of ?? null,
    eventType: item.event_type,
    body: item.body,
    status: item.status,
    attempts: item.attempts,
    attemptLog: item.attempt_log,
    nextAttemptAt: item.next_attempt_at,
    failureReason: item.failure_reason ?? null,
    createdAt: item.created_at,
  };
}

/** The item's id in its key and in the outbox index. */
const itemIdOf = (ref: DeliveryRef) =>
  [ref.eventId, ref.webhookId, ...(ref.resendId === undefined ? [] : [ref.resendId])].join('#');

function deliveryKey(ref: DeliveryRef) {
  return { pk: organizationPartition(ref.organizationId), sk: `DELIVERY#${itemIdOf(ref)}` };
}

/** The delivery a delivery item's sort key names. */
export function deliveryRefOf(organizationId: number, sortKey: string): DeliveryRef | undefined {
  const match = /^DELIVERY#(evt_[^#]+)#(webhook_[^#]+)(?:#(dlv_[^#]+))?$/.exec(sortKey);
  const [, eventId, webhookId, resendId] = match ?? [];
  if (!eventId || !webhookId) return undefined;
  return { organizationId, eventId, webhookId, ...(resendId === undefined ? {} : { resendId }) };
}

/** The delivery log's index: each endpoint's deliveries in a partition of gsi1, by delivery id. */
const DELIVERY_LOG_INDEX: IndexRef = { design: TABLE_DESIGN.gsi1 };

function logPartition(organizationId: number, webhookId: string): string {
  return `${organizationPartition(organizationId)}#WEBHOOK#${webhookId}#DELIVERIES`;
}

/** A delivery's keys in the log: its endpoint's gsi1 partition, by delivery id. */
function logKeys(ref: DeliveryRef, deliveryId: string) {
  return { gsi1pk: logPartition(ref.organizationId, ref.webhookId), gsi1sk: deliveryId };
}

/** True when `value` has the shape of a delivery id; anything else names no delivery. */
export const isDeliveryId = (value: string) => isSortableId(DELIVERY_ID_PREFIX, value);

const expiry = (now: Date) => Math.floor((now.getTime() + DELIVERY_RETENTION_DAYS * DAY_MS) / 1000);

export async function findDelivery(ref: DeliveryRef): Promise<Delivery | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: deliveryKey(ref), ConsistentRead: true }),
  );
  // The table holds what this module wrote; this is where the stored shape meets its type.
  return Item ? fromItem(Item as DeliveryItem) : undefined;
}

/** A new delivery's item: pending, due now, in the outbox and the endpoint's log. */
function pendingDeliveryItem(
  ref: DeliveryRef,
  deliveryId: string,
  event: { type: EventType; body: string },
  now: Date,
): DeliveryItem {
  const createdAt = now.toISOString();
  return {
    organization_id: ref.organizationId,
    event_id: ref.eventId,
    webhook_id: ref.webhookId,
    delivery_id: deliveryId,
    event_type: event.type,
    body: event.body,
    status: 'pending',
    attempts: 0,
    attempt_log: [],
    next_attempt_at: createdAt,
    created_at: createdAt,
    updated_at: createdAt,
    ...outboxEntry(itemIdOf(ref), createdAt),
    expires_at: expiry(now),
    ...logKeys(ref, deliveryId),
  };
}

/**
 * A new pending delivery, due now, for a transaction: its id, and the items that write it (named
 * `delivery`, refused when it was already recorded) and count it in its day (`usage`).
 */
export function deliveryRecording(
  ref: DeliveryRef,
  event: { type: EventType; body: string },
  now: Date,
): { deliveryId: string; items: { delivery: TransactionItem; usage: TransactionItem } } {
  const deliveryId = sortableId(DELIVERY_ID_PREFIX, now.getTime());
  const item = pendingDeliveryItem(ref, deliveryId, event, now);
  return {
    deliveryId,
    items: {
      delivery: {
        Put: {
          TableName: tableName(),
          Item: { ...deliveryKey(ref), ...item },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      usage: deliveryUsageUpdate(ref.organizationId, item.created_at, { created: true, to: 'pending' }),
    },
  };
}

/** Records a pending delivery, due now; false when it was already recorded. */
export async function recordDelivery(
  ref: DeliveryRef,
  event: { type: EventType; body: string },
  now: Date,
): Promise<boolean> {
  try {
    await writeTransaction(deliveryRecording(ref, event, now).items);
    return true;
  } catch (error) {
    if (error instanceof TransactionRefused && error.failed('delivery')) return false;
    throw error;
  }
}

/**
 * Reserves the delivery's next attempt to the caller until `leaseUntil`: it must still be
 * pending, at the attempt count the caller read, and not reserved by someone else. Two
 * messages for one delivery (a sweep and a retry, a redelivered message) thus make one attempt.
 */
export async function claimAttempt(delivery: Delivery, now: Date, leaseUntil: Date): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: deliveryKey(delivery),
        UpdateExpression: 'SET lease_until = :lease',
        ConditionExpression:
          '#status = :pending AND attempts = :attempts AND (attribute_not_exists(lease_until) OR lease_until < :now)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':lease': leaseUntil.toISOString(),
          ':pending': 'pending',
          ':attempts': delivery.attempts,
          ':now': now.toISOString(),
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

export type AttemptOutcome =
  | { status: 'succeeded'; attempt: AttemptRecord }
  | { status: 'pending'; attempt: AttemptRecord; nextAttemptAt: Date }
  | { status: 'failed'; attempt?: AttemptRecord; reason?: string };

/**
 * Writes what an attempt came to (or, with no attempt, why the delivery ended): the attempt
 * logged, the status, the next attempt's time and outbox entry, the day's counts. Conditional on
 * the attempt count the caller read, so a result is written once; false when it was not.
 */
export async function recordOutcome(delivery: Delivery, outcome: AttemptOutcome, now: Date): Promise<boolean> {
  const attempts = delivery.attempts + (outcome.attempt ? 1 : 0);
  const sets = ['#status = :status', 'attempts = :attempts', 'updated_at = :now'];
  const removes = ['lease_until'];
  const values: Record<string, unknown> = {
    ':status': outcome.status,
    ':attempts': attempts,
    ':now': now.toISOString(),
    ':pending': 'pending',
    ':read_attempts': delivery.attempts,
  };
  if (outcome.attempt) {
    sets.push('attempt_log = list_append(if_not_exists(attempt_log, :empty), :attempt)');
    values[':empty'] = [];
    values[':attempt'] = [outcome.attempt];
  }
  if (outcome.status === 'pending') {
    const due = outcome.nextAttemptAt.toISOString();
    const entry = outboxEntry(itemIdOf(delivery), due);
    sets.push('next_attempt_at = :next', `${OUTBOX_ATTRIBUTES.shard} = :shard`, `${OUTBOX_ATTRIBUTES.due} = :due`);
    Object.assign(values, { ':next': due, ':shard': entry.outbox_shard, ':due': entry.outbox_due });
  } else {
    removes.push(OUTBOX_ATTRIBUTES.shard, OUTBOX_ATTRIBUTES.due);
  }
  if (outcome.status === 'failed' && outcome.reason) {
    sets.push('failure_reason = :reason');
    values[':reason'] = outcome.reason;
  }
  try {
    await writeTransaction({
      delivery: {
        Update: {
          TableName: tableName(),
          Key: deliveryKey(delivery),
          UpdateExpression: `SET ${sets.join(', ')} REMOVE ${removes.join(', ')}`,
          ConditionExpression: '#status = :pending AND attempts = :read_attempts',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: values,
        },
      },
      ...(outcome.status === 'pending'
        ? {}
        : {
            usage: deliveryUsageUpdate(delivery.organizationId, delivery.createdAt, {
              from: 'pending',
              to: outcome.status,
            }),
          }),
    });
    return true;
  } catch (error) {
    if (error instanceof TransactionRefused && error.failed('delivery')) return false;
    throw error;
  }
}

/** Makes a pending delivery due now (an operator's retry run). */
export async function makeDueNow(ref: DeliveryRef, now: Date): Promise<boolean> {
  const due = now.toISOString();
  const entry = outboxEntry(itemIdOf(ref), due);
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: deliveryKey(ref),
        UpdateExpression: `SET next_attempt_at = :next, ${OUTBOX_ATTRIBUTES.shard} = :shard, ${OUTBOX_ATTRIBUTES.due} = :due`,
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':next': due,
          ':shard': entry.outbox_shard,
          ':due': entry.outbox_due,
          ':pending': 'pending',
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Which source deliveries a resend may be made of. */
export type ResendCondition =
  /** Any (an operator's resend names it). */
  | 'any'
  /** Only a failed delivery not resent yet (recover, which must not resend one twice). */
  | 'failed-and-not-resent';

/**
 * Records a pending resend of `source` (a delivery of the log), due now: the same event, endpoint
 * and body, a new delivery id. The source is marked resent by it in the same transaction, under
 * `condition`; undefined when the condition refused (another recover resent it first, or it is
 * gone).
 */
export async function recordResend(
  source: Delivery,
  condition: ResendCondition,
  now: Date,
): Promise<Delivery | undefined> {
  if (source.deliveryId === null) throw new Error('Only a delivery of the log can be resent');
  const deliveryId = sortableId(DELIVERY_ID_PREFIX, now.getTime());
  const ref: DeliveryRef = {
    organizationId: source.organizationId,
    eventId: source.eventId,
    webhookId: source.webhookId,
    resendId: deliveryId,
  };
  const item: DeliveryItem = {
    ...pendingDeliveryItem(ref, deliveryId, { type: source.eventType, body: source.body }, now),
    resend_of: source.deliveryId,
  };
  const createdAt = item.created_at;
  const onlyFailed = condition === 'failed-and-not-resent';
  try {
    await writeTransaction({
      resend: {
        Put: {
          TableName: tableName(),
          Item: { ...deliveryKey(ref), ...item },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      source: {
        Update: {
          TableName: tableName(),
          Key: deliveryKey(source),
          UpdateExpression: 'SET resent_as = :resend',
          ConditionExpression: onlyFailed
            ? '#status = :failed AND attribute_not_exists(resent_as)'
            : 'attribute_exists(pk)',
          ...(onlyFailed ? { ExpressionAttributeNames: { '#status': 'status' } } : {}),
          ExpressionAttributeValues: { ':resend': deliveryId, ...(onlyFailed ? { ':failed': 'failed' } : {}) },
        },
      },
      usage: deliveryUsageUpdate(ref.organizationId, createdAt, { created: true, to: 'pending' }),
    });
  } catch (error) {
    if (error instanceof TransactionRefused && error.failed('source')) return undefined;
    throw error;
  }
  return fromItem(item);
}

/** Which of an endpoint's logged deliveries a log read selects. */
export interface DeliveryLogRange {
  organizationId: number;
  webhookId: string;
  order: 'newest-first' | 'oldest-first';
  /** Only deliveries created at or after this millisecond. */
  createdFromMs?: number;
  status?: DeliveryStatus;
  eventType?: EventType;
  /** Only deliveries not resent yet. */
  notResent?: boolean;
}

export interface DeliveryLogRead {
  /** The retained deliveries among those read that the range selects, in the range's order. */
  deliveries: Delivery[];
  /** How many delivery items the read went through, selected or not. */
  itemsRead: number;
  /** Where the range goes on after this read, when it may. */
  lastReadPosition?: string;
}

/**
 * A place in an endpoint's log: the delivery's gsi1 and table keys, which a Query needs to start
 * after it. Opaque to callers, who get it from this module and hand it back.
 */
interface LogPosition {
  id: string;
  sk: string;
}

/** Where a log read goes on after `delivery`. */
export function logPositionOf(delivery: Delivery): string {
  if (delivery.deliveryId === null) throw new Error('Only a delivery of the log has a place in it');
  return JSON.stringify({ id: delivery.deliveryId, sk: deliveryKey(delivery).sk } satisfies LogPosition);
}

/** A position read back; undefined for text that is no position of this module's. */
function parsedPosition(position: string): LogPosition | undefined {
  try {
    const parsed = JSON.parse(position) as Partial<LogPosition>;
    if (typeof parsed.id === 'string' && typeof parsed.sk === 'string') return { id: parsed.id, sk: parsed.sk };
  } catch {
    // not a position this module wrote
  }
  return undefined;
}

/** When the delivery at `position` was recorded, to the millisecond (its id says so). */
export function creationAtPosition(position: string): number | undefined {
  const parsed = parsedPosition(position);
  return parsed && isDeliveryId(parsed.id) ? timeOfSortableId(DELIVERY_ID_PREFIX, parsed.id) : undefined;
}

const unixSeconds = (milliseconds: number) => Math.floor(milliseconds / 1000);

/**
 * The gsi1 sort keys of the range's deliveries, both inclusive: delivery ids sort by creation, so
 * the creation range, the retention included, is a key range. The retention's bound is a second
 * early because `expires_at` is in whole seconds; the filter is exact.
 */
function logKeyRange(range: DeliveryLogRange, nowMs: number): { from: string; to: string } {
  const retainedFromMs = nowMs - DELIVERY_RETENTION_DAYS * DAY_MS - 1000;
  const fromMs = Math.max(0, retainedFromMs, range.createdFromMs ?? 0);
  return {
    from: sortableIdsAt(DELIVERY_ID_PREFIX, Math.min(fromMs, SORTABLE_ID_LAST_MS)).first,
    to: sortableIdsAt(DELIVERY_ID_PREFIX, SORTABLE_ID_LAST_MS).last,
  };
}

/**
 * Reads at most `itemLimit` of the range's logged deliveries after `after` (a position this module
 * gave): one Query of the endpoint's gsi1 partition with the creation range in the key condition.
 * Status, event type, resends and retention are a filter expression, so the items it discards
 * are read (and paid for) too; `itemLimit` bounds them. The index is eventually consistent: a
 * delivery recorded a moment ago may not be read yet.
 */
export async function readDeliveryLog(
  range: DeliveryLogRange,
  after: string | undefined,
  itemLimit: number,
  nowMs = Date.now(),
): Promise<DeliveryLogRead> {
  const keys = logKeyRange(range, nowMs);
  const partition = logPartition(range.organizationId, range.webhookId);
  const position = after === undefined ? undefined : parsedPosition(after);
  if (after !== undefined && position === undefined) throw new Error('Not a position of the delivery log');
  // A position the retention has since passed has nothing after it (and DynamoDB refuses a start outside the range).
  if (position !== undefined && position.id < keys.from) return { deliveries: [], itemsRead: 0 };
  const conditions = ['expires_at > :retained'];
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':retained': unixSeconds(nowMs) };
  if (range.status !== undefined) {
    conditions.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = range.status;
  }
  if (range.eventType !== undefined) {
    conditions.push('event_type = :event_type');
    values[':event_type'] = range.eventType;
  }
  if (range.notResent) conditions.push('attribute_not_exists(resent_as)');
  const { partitionKey, sortKey } = DELIVERY_LOG_INDEX.design;
  const page = await indexPage<DeliveryItem>(DELIVERY_LOG_INDEX, {
    partition,
    sortKey: keys,
    filter: { expression: conditions.join(' AND '), names, values },
    ...(position === undefined
      ? {}
      : {
          startAfter: {
            pk: organizationPartition(range.organizationId),
            sk: position.sk,
            [partitionKey]: partition,
            [sortKey]: position.id,
          },
        }),
    descending: range.order === 'newest-first',
    limit: itemLimit,
  });
  // The table holds what this module wrote; this is where the stored shape meets its type.
  const lastKey = page.lastKey;
  return {
    deliveries: page.items.map(fromItem),
    itemsRead: page.itemsRead,
    ...(lastKey === undefined
      ? {}
      : {
          lastReadPosition: JSON.stringify({
            id: String(lastKey[sortKey]),
            sk: String(lastKey.sk),
          } satisfies LogPosition),
        }),
  };
}

/**
 * The endpoint's logged delivery with this id, retained, or undefined (read from the log's index,
 * so a delivery recorded a moment ago may not be found yet).
 */
export async function findLoggedDelivery(
  organizationId: number,
  webhookId: string,
  deliveryId: string,
  nowMs = Date.now(),
): Promise<Delivery | undefined> {
  if (!isDeliveryId(deliveryId)) return undefined;
  const { items } = await indexPage<DeliveryItem>(DELIVERY_LOG_INDEX, {
    partition: logPartition(organizationId, webhookId),
    sortKey: { equals: deliveryId },
    filter: { expression: 'expires_at > :retained', values: { ':retained': unixSeconds(nowMs) } },
    descending: false,
  });
  const [item] = items;
  return item ? fromItem(item) : undefined;
}
