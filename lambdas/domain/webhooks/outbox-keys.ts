import { createHash } from 'node:crypto';

/**
 * The keys of the outbox index (lambdas/platform/table-design.ts), for the items that own an
 * entry in it: an event until it is relayed, a delivery while it is pending. Spread over a few
 * shards by a hash of the item's id, so that no single partition takes every event's writes;
 * the sweeper reads every shard.
 */
export const OUTBOX_SHARDS = 8;

export function outboxShards(): string[] {
  return Array.from({ length: OUTBOX_SHARDS }, (_, shard) => `OUTBOX#${shard}`);
}

export function outboxEntry(itemId: string, dueAt: string) {
  const shard = createHash('sha256').update(itemId).digest().readUInt8(0) % OUTBOX_SHARDS;
  return { outbox_shard: `OUTBOX#${shard}`, outbox_due: `${dueAt}#${itemId}` };
}

/** The bound of a Query for the entries due before `instant`. */
export function dueBefore(instant: Date): string {
  return instant.toISOString();
}
