import { sortableId } from './ids';

export type EventType = 'job.completed' | 'job.failed' | 'webhook.test';

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
  payload: Record<string, unknown>;
  delivery_state: 'pending';
  gsi1pk: string;
  gsi1sk: string;
}

export function newEvent(
  organizationId: number,
  type: EventType,
  data: Record<string, unknown>,
  now = new Date(),
): EventRecord {
  const eventId = sortableId('evt_', now.getTime());
  const createdAt = now.toISOString();
  return {
    event_id: eventId,
    organization_id: organizationId,
    type,
    created_at: createdAt,
    payload: { id: eventId, type, created_at: createdAt, data },
    delivery_state: 'pending',
    gsi1pk: 'EVENTS#pending',
    gsi1sk: `${createdAt}#${eventId}`,
  };
}
