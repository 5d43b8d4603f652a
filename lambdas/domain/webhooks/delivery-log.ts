import type { Operations, WebhookDelivery } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import { cursorKeyRing } from '#platform/cursor-keys';
import { boundedPage } from '#platform/bounded-pages';
import { openCursor, sealCursor, type CursorScope } from '#platform/cursors';
import { logPositionOf, readDeliveryLog, type Delivery, type DeliveryLogRange } from './delivery-store';
import { liveEndpoint } from './endpoints';
import { presentWebhookDelivery } from './presentation';

type ListWebhookDeliveriesQuery = Operations['listWebhookDeliveries']['query'];

export interface DeliveryPage {
  deliveries: WebhookDelivery[];
  nextCursor: string | null;
}

/**
 * The most delivery items one page reads to find its deliveries. Status and event type are a
 * filter expression over the endpoint's log (docs/data-model.md, The delivery log), so without a
 * bound a filter that matches little would read 30 days of deliveries in one request; with it a
 * page costs at most this many reads and may come back short, even empty, with a cursor to go on.
 */
export const DELIVERIES_READ_PER_PAGE = 1000;

/** Only deliveries of the log have an id to show; those recorded before it are never read by it. */
const logged = (delivery: Delivery): delivery is Delivery & { deliveryId: string } => delivery.deliveryId !== null;

/**
 * One page of the endpoint's retained deliveries, newest first, at most DELIVERIES_READ_PER_PAGE
 * items read (bounded-pages.ts); the cursor is bound to the endpoint and the filters.
 */
export async function listWebhookDeliveries(
  caller: Caller,
  webhookId: string,
  query: ListWebhookDeliveriesQuery,
  nowMs = Date.now(),
): Promise<DeliveryPage> {
  const organizationId = caller.organization.organizationId;
  await liveEndpoint(organizationId, webhookId);
  const scope: CursorScope = {
    operation: 'listWebhookDeliveries',
    organizationId,
    filters: {
      webhook_id: webhookId,
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.event_type === undefined ? {} : { event_type: query.event_type }),
    },
  };
  const keys = await cursorKeyRing();
  const after = query.cursor === undefined ? undefined : openCursor(keys, scope, query.cursor);
  const range: DeliveryLogRange = {
    organizationId,
    webhookId,
    order: 'newest-first',
    status: query.status,
    eventType: query.event_type,
  };
  const page = await boundedPage({
    limit: query.limit,
    maxItemsRead: DELIVERIES_READ_PER_PAGE,
    after,
    read: async (position: string | undefined, itemLimit) => {
      const read = await readDeliveryLog(range, position, itemLimit, nowMs);
      return { items: read.deliveries.filter(logged), itemsRead: read.itemsRead, lastPosition: read.lastReadPosition };
    },
    positionOf: logPositionOf,
  });
  return {
    deliveries: page.items.map(presentWebhookDelivery),
    nextCursor: page.next === undefined ? null : sealCursor(keys, scope, page.next),
  };
}
