import type { RecoverWebhookDeliveriesResponse, WebhookDelivery } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import { ApiError } from '#platform/errors';
import { DAY_MS, instantRoundedUp } from '#platform/instants';
import { enqueueDeliveries } from './delivery-queue';
import {
  creationAtPosition,
  DELIVERY_RETENTION_DAYS,
  findLoggedDelivery,
  readDeliveryLog,
  recordResend,
  type Delivery,
  type DeliveryRef,
} from './delivery-store';
import { liveEndpoint } from './endpoints';
import type { Endpoint } from './endpoint-store';
import { presentWebhookDelivery } from './presentation';

/**
 * Resending deliveries of the log, one by its id or every failed one since an instant (Svix's
 * resend and recover). A resend is a new delivery of the same event to the same endpoint, with
 * the same body and Service-Webhook-Id, recorded and queued as the relay records and queues a
 * first delivery: it is then attempted and retried like any other, waits while delivery is
 * switched off, and the sweeper queues it should its message be lost.
 */

/** How many deliveries one recover request resends at most: its transactions run in the request. */
export const RECOVER_RESENDS_PER_REQUEST = 100;

/** How many delivery items one recover request reads at most to find the failed ones. */
export const RECOVER_READS_PER_REQUEST = 1000;

/** Resends run this many side by side: enough to finish a full request in a few seconds. */
const RESEND_CONCURRENCY = 10;

/** An endpoint deliveries may be resent to: not disabled (it would end them failed unattempted). */
async function resendableEndpoint(organizationId: number, webhookId: string): Promise<Endpoint> {
  const endpoint = await liveEndpoint(organizationId, webhookId);
  if (endpoint.status === 'disabled') {
    throw new ApiError(
      'WEBHOOK_DISABLED',
      `Webhook endpoint ${webhookId} is disabled; make it active (PATCH status active) to resend to it.`,
    );
  }
  return endpoint;
}

const logged = (delivery: Delivery): WebhookDelivery => {
  if (delivery.deliveryId === null) throw new Error('A resend is always a delivery of the log');
  return presentWebhookDelivery({ ...delivery, deliveryId: delivery.deliveryId });
};

/** Sends the endpoint's delivery `deliveryId` again now, as a new delivery; answers it. */
export async function resendWebhookDelivery(
  caller: Caller,
  webhookId: string,
  deliveryId: string,
  now = new Date(),
): Promise<WebhookDelivery> {
  const organizationId = caller.organization.organizationId;
  // Side by side: the lookup of the delivery only reads, and the endpoint's refusal comes first.
  const [, source] = await Promise.all([
    resendableEndpoint(organizationId, webhookId),
    findLoggedDelivery(organizationId, webhookId, deliveryId, now.getTime()),
  ]);
  const resend = source && (await recordResend(source, 'any', now));
  if (!resend) {
    throw new ApiError(
      'DELIVERY_NOT_FOUND',
      `Webhook endpoint ${webhookId} has no delivery ${deliveryId} (deliveries are kept ${DELIVERY_RETENTION_DAYS} days).`,
    );
  }
  await enqueueDeliveries([resend]);
  return logged(resend);
}

/** `since` to the millisecond, when it is within the retention; else 400. */
function recoverySince(since: string, nowMs: number): number {
  const sinceMs = instantRoundedUp(since);
  if (sinceMs === undefined) throw new ApiError('VALIDATION_FAILED', 'since must be an ISO 8601 date-time');
  if (sinceMs < nowMs - DELIVERY_RETENTION_DAYS * DAY_MS) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `since must be at most ${DELIVERY_RETENTION_DAYS} days ago: older deliveries are no longer kept`,
    );
  }
  return sinceMs;
}

/**
 * Resends each failed delivery of the endpoint created since `since` that was not resent yet,
 * oldest first. Each resend marks its source in the transaction that records it, conditional on
 * the source being unmarked, so two recovers racing, or a recover repeated, resend a delivery
 * once. A request stops after RECOVER_RESENDS_PER_REQUEST resends or RECOVER_READS_PER_REQUEST
 * items read and says where the next one goes on from.
 */
export async function recoverWebhookDeliveries(
  caller: Caller,
  webhookId: string,
  since: string,
  now = new Date(),
): Promise<RecoverWebhookDeliveriesResponse> {
  const organizationId = caller.organization.organizationId;
  const range = {
    organizationId,
    webhookId,
    order: 'oldest-first',
    createdFromMs: recoverySince(since, now.getTime()),
    status: 'failed',
    notResent: true,
  } as const;
  const queued: DeliveryRef[] = [];
  let itemsRead = 0;
  const readPage = (after?: string) =>
    readDeliveryLog(
      range,
      after,
      Math.min(RECOVER_RESENDS_PER_REQUEST - queued.length + 1, RECOVER_READS_PER_REQUEST - itemsRead),
      now.getTime(),
    );
  // Side by side: the first page only reads, and the endpoint's refusal comes first.
  let [, read] = await Promise.all([resendableEndpoint(organizationId, webhookId), readPage()]);
  let stoppedAt: number | undefined;
  for (;;) {
    itemsRead += read.itemsRead;
    const sources = read.deliveries.slice(0, RECOVER_RESENDS_PER_REQUEST - queued.length);
    for (let start = 0; start < sources.length; start += RESEND_CONCURRENCY) {
      const batch = sources.slice(start, start + RESEND_CONCURRENCY);
      const resends = await Promise.all(batch.map((source) => recordResend(source, 'failed-and-not-resent', now)));
      queued.push(...resends.filter((resend) => resend !== undefined));
    }
    const last = sources.at(-1);
    if (sources.length < read.deliveries.length && last) {
      stoppedAt = Date.parse(last.createdAt);
      break;
    }
    const after = read.lastReadPosition;
    if (after === undefined) break;
    if (queued.length >= RECOVER_RESENDS_PER_REQUEST || itemsRead >= RECOVER_READS_PER_REQUEST) {
      stoppedAt = creationAtPosition(after);
      break;
    }
    read = await readPage(after);
  }
  await enqueueDeliveries(queued);
  return { queued: queued.length, next_since: stoppedAt === undefined ? null : new Date(stoppedAt).toISOString() };
}
