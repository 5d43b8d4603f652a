import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { EventType } from '#domain/events/events';
import { deliveryUsageUpdate, type DeliveryStatus } from '#domain/usage/usage-store';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { DAY_MS } from '#platform/instants';
import { TransactionRefused, writeTransaction } from '#platform/transactions';
import { OUTBOX_ATTRIBUTES, outboxEntry } from '#domain/events/outbox-index';
import { organizationPartition } from '#platform/table-design';

/**
 * Delivery items: one per event and endpoint, in the organization's partition under
 * `DELIVERY#<event id>#<webhook id>`, so that recording the same event for the same endpoint
 * twice (a replayed stream record, the sweeper racing the stream) writes nothing the second
 * time. A delivery carries the exact body it sends, so every attempt sends the same bytes. While
 * pending it has an entry in the outbox index, due at its next attempt; each status change moves
 * the day's delivery counts in the same transaction.
 */

export const DELIVERY_RETENTION_DAYS = 30;

/** Which delivery: the event and the endpoint it goes to. */
export interface DeliveryRef {
  organizationId: number;
  eventId: string;
  webhookId: string;
}

export interface AttemptRecord {
  at: string;
  /** The receiver's HTTP status, when it answered. */
  status_code?: number;
  /** Why there was no answer (`timeout`, `connection`, `tls`, `refused: …`). */
  error?: string;
  duration_ms: number;
}

export interface Delivery extends DeliveryRef {
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
}

function fromItem(item: DeliveryItem): Delivery {
  return {
    organizationId: item.organization_id,
    eventId: item.event_id,
    webhookId: item.webhook_id,
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

const deliveryId = (ref: DeliveryRef) => `${ref.eventId}#${ref.webhookId}`;

function deliveryKey(ref: DeliveryRef) {
  return { pk: organizationPartition(ref.organizationId), sk: `DELIVERY#${deliveryId(ref)}` };
}

/** The delivery a delivery item's sort key names. */
export function deliveryRefOf(organizationId: number, sortKey: string): DeliveryRef | undefined {
  const match = /^DELIVERY#(evt_[^#]+)#(webhook_[^#]+)$/.exec(sortKey);
  const [, eventId, webhookId] = match ?? [];
  return eventId && webhookId ? { organizationId, eventId, webhookId } : undefined;
}

export async function findDelivery(ref: DeliveryRef): Promise<Delivery | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: deliveryKey(ref), ConsistentRead: true }),
  );
  // The table holds what this module wrote; this is where the stored shape meets its type.
  return Item ? fromItem(Item as DeliveryItem) : undefined;
}

/** Records a pending delivery, due now; false when it was already recorded. */
export async function recordDelivery(
  ref: DeliveryRef,
  event: { type: EventType; body: string },
  now: Date,
): Promise<boolean> {
  const createdAt = now.toISOString();
  const item: DeliveryItem = {
    organization_id: ref.organizationId,
    event_id: ref.eventId,
    webhook_id: ref.webhookId,
    event_type: event.type,
    body: event.body,
    status: 'pending',
    attempts: 0,
    attempt_log: [],
    next_attempt_at: createdAt,
    created_at: createdAt,
    updated_at: createdAt,
    ...outboxEntry(deliveryId(ref), createdAt),
    expires_at: Math.floor((now.getTime() + DELIVERY_RETENTION_DAYS * DAY_MS) / 1000),
  };
  try {
    await writeTransaction({
      delivery: {
        Put: {
          TableName: tableName(),
          Item: { ...deliveryKey(ref), ...item },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      usage: deliveryUsageUpdate(ref.organizationId, createdAt, { created: true, to: 'pending' }),
    });
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
    const entry = outboxEntry(deliveryId(delivery), due);
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
  const entry = outboxEntry(deliveryId(ref), due);
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
