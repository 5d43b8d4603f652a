import { createHash } from 'node:crypto';
import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './clients/dynamodb';
import type { IndexDesign } from './table-design';

/**
 * A sparse index spread over a few partitions, one per shard, so that no single partition takes
 * every write of the items it lists (DynamoDB serves about 1,000 writes a second per partition).
 * An item's shard follows from a hash of its id; a reader queries every shard.
 */
export interface ShardedIndex {
  readonly design: IndexDesign;
  /** The partition key's value for shard n is `<prefix>#<n>`. */
  readonly prefix: string;
  readonly shards: number;
}

export function shardOf(index: ShardedIndex, id: string): string {
  return `${index.prefix}#${createHash('sha256').update(id).digest().readUInt8(0) % index.shards}`;
}

/** Every entry whose sort key sorts before `bound`, shard after shard, each in sort key order. */
export async function* entriesBefore<T>(index: ShardedIndex, bound: string): AsyncGenerator<T> {
  const { indexName, partitionKey, sortKey } = index.design;
  for (let shard = 0; shard < index.shards; shard += 1) {
    const pages = paginateQuery(
      { client: dynamo() },
      {
        TableName: tableName(),
        IndexName: indexName,
        // The sort key says since when an entry is listed (a job's start, an outbox entry's due time).
        KeyConditionExpression: '#shard = :shard AND #since < :before',
        ExpressionAttributeNames: { '#shard': partitionKey, '#since': sortKey },
        ExpressionAttributeValues: { ':shard': `${index.prefix}#${shard}`, ':before': bound },
      },
    );
    for await (const page of pages) yield* (page.Items ?? []) as T[];
  }
}
