import type { Operations, WebhookDelivery } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import { cursorKeyRing } from '#platform/cursor-keys';
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
 * One page of the endpoint's retained deliveries, newest first, as GET /events pages its events:
 * reads grow from one more item than the page holds and double until the page is full, the log
 * ends or DELIVERIES_READ_PER_PAGE items are read; the cursor then goes on from the last delivery
 * read, whether or not the page showed it. The cursor is bound to the endpoint and the filters.
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
  let after = query.cursor === undefined ? undefined : openCursor(keys, scope, query.cursor);
  const range: DeliveryLogRange = {
    organizationId,
    webhookId,
    order: 'newest-first',
    status: query.status,
    eventType: query.event_type,
  };
  const deliveries: (Delivery & { deliveryId: string })[] = [];
  let itemsRead = 0;
  let readSize = query.limit + 1;
  for (;;) {
    const read = await readDeliveryLog(range, after, Math.min(readSize, DELIVERIES_READ_PER_PAGE - itemsRead), nowMs);
    deliveries.push(...read.deliveries.filter(logged));
    itemsRead += read.itemsRead;
    const lastShown = deliveries[query.limit - 1];
    if (lastShown && deliveries.length > query.limit) {
      return {
        deliveries: deliveries.slice(0, query.limit).map(presentWebhookDelivery),
        nextCursor: sealCursor(keys, scope, logPositionOf(lastShown)),
      };
    }
    const present = () => deliveries.map(presentWebhookDelivery);
    if (read.lastReadPosition === undefined) return { deliveries: present(), nextCursor: null };
    after = read.lastReadPosition;
    if (itemsRead >= DELIVERIES_READ_PER_PAGE)
      return { deliveries: present(), nextCursor: sealCursor(keys, scope, after) };
    readSize *= 2;
  }
}
