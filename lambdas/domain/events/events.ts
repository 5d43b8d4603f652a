import type { JobCompletedEvent, JobFailedEvent, WebhookTestEvent } from '#contract/types';
import { tableName } from '#platform/clients/dynamodb';
import { sortableId } from '#platform/ids';
import type { TransactionItem } from '#platform/transactions';

/** Every event payload as the contract describes it. */
export type EventPayload = JobCompletedEvent | JobFailedEvent | WebhookTestEvent;
export type EventType = EventPayload['type'];
/** What an event says, before it gets its id and time: one of the payload types with its data. */
export type EventBody = { [T in EventType]: { type: T; data: Extract<EventPayload, { type: T }>['data'] } }[EventType];

/**
 * Events are written in the same transaction as the state change they report, so one is never
 * lost or invented; the webhook pipeline delivers them from there.
 */
export function eventKey(organizationId: number, eventId: string) {
  return { pk: `ORG#${organizationId}`, sk: `EVENT#${eventId}` };
}

export interface EventRecord {
  event_id: string;
  organization_id: number;
  type: EventType;
  created_at: string;
  payload: EventPayload;
  delivery_state: 'pending';
  gsi1pk: string;
  gsi1sk: string;
}

export function newEvent(organizationId: number, body: EventBody, now = new Date()): EventRecord {
  const eventId = sortableId('evt_', now.getTime());
  const createdAt = now.toISOString();
  const payload: EventPayload = { id: eventId, created_at: createdAt, ...body };
  return {
    event_id: eventId,
    organization_id: organizationId,
    type: body.type,
    created_at: createdAt,
    payload,
    delivery_state: 'pending',
    gsi1pk: 'EVENTS#pending',
    gsi1sk: `${createdAt}#${eventId}`,
  };
}

/** The event's item, for the transaction of the state change it reports. */
export function eventPut(event: EventRecord): TransactionItem {
  return { Put: { TableName: tableName(), Item: { ...eventKey(event.organization_id, event.event_id), ...event } } };
}
