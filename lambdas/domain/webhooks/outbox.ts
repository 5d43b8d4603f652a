import { eventIdOf, findEvent } from '#domain/events/events';
import { entriesDueBefore } from '#domain/events/outbox-index';
import { flagSetting, DEVELOPER_WEBHOOK_DELIVERY_ENABLED } from '#platform/settings';
import { enqueueDeliveries } from './delivery-queue';
import { deliveryRefOf, makeDueNow, type DeliveryRef } from './delivery-store';
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

export async function sweepOutbox({
  overdueSeconds,
  retryNow = false,
  now = new Date(),
}: SweepOptions): Promise<SweepResult> {
  const cutoff = retryNow ? END_OF_TIME : new Date(now.getTime() - overdueSeconds * 1000).toISOString();
  const sendDeliveries = flagSetting(DEVELOPER_WEBHOOK_DELIVERY_ENABLED);
  const result: SweepResult = { relayedEvents: 0, queuedDeliveries: 0 };
  const toQueue: DeliveryRef[] = [];
  for await (const entry of entriesDueBefore(cutoff)) {
    const eventId = eventIdOf(entry.sk);
    if (eventId !== undefined) {
      const event = await findEvent(entry.organization_id, eventId);
      if (!event?.awaitsRelay) continue;
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
