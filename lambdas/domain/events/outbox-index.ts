import { entriesBefore, shardOf, type ShardedIndex } from '#platform/sharded-index';
import { TABLE_DESIGN } from '#platform/table-design';

/**
 * The keys of the outbox index (lambdas/platform/table-design.ts), for the items that own an
 * entry in it: an event until it is relayed, a delivery while it is pending. Spread over a few
 * shards by a hash of the item's id, so that no single partition takes every event's writes;
 * the sweeper reads every shard.
 */
const OUTBOX_INDEX: ShardedIndex = { design: TABLE_DESIGN.outbox, prefix: 'OUTBOX', shards: 8 };

/** The item attributes that put an item in the index. */
export const OUTBOX_ATTRIBUTES = { shard: TABLE_DESIGN.outbox.partitionKey, due: TABLE_DESIGN.outbox.sortKey } as const;

/** An update expression's clause that takes an item out of the index. */
export const LEAVE_OUTBOX = `REMOVE ${OUTBOX_ATTRIBUTES.shard}, ${OUTBOX_ATTRIBUTES.due}`;

export function outboxEntry(itemId: string, dueAt: string) {
  return {
    [OUTBOX_ATTRIBUTES.shard]: shardOf(OUTBOX_INDEX, itemId),
    [OUTBOX_ATTRIBUTES.due]: `${dueAt}#${itemId}`,
  } as const satisfies Record<string, string>;
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
