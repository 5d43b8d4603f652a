import { entriesBefore, shardOf, type ShardedIndex } from '#platform/sharded-index';
import { TABLE_DESIGN } from '#platform/table-design';

/**
 * The keys of the outbox index (lambdas/platform/table-design.ts), for the items that own an
 * entry in it: an event until it is relayed, a delivery while it is pending. Spread over a few
 * shards by a hash of the item's id, so that no single partition takes every event's writes;
 * the sweeper reads every shard.
 */
const OUTBOX_INDEX: ShardedIndex = { design: TABLE_DESIGN.outbox, prefix: 'OUTBOX', shards: 8 };

export function outboxEntry(itemId: string, dueAt: string) {
  return { outbox_shard: shardOf(OUTBOX_INDEX, itemId), outbox_due: `${dueAt}#${itemId}` };
}

/** The index's keys and what it projects of an entry. */
export interface OutboxEntry {
  pk: string;
  sk: string;
  organization_id: number;
}

/** Every entry due before `instant`, shard after shard. */
export function entriesDueBefore(instant: string): AsyncGenerator<OutboxEntry> {
  return entriesBefore<OutboxEntry>(OUTBOX_INDEX, instant);
}
