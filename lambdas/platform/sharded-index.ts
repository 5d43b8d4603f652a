import { createHash } from 'node:crypto';
import { paginateQuery, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './clients/dynamodb';
import type { IndexDesign } from './table-design';

/**
 * The one module that queries the table's indexes (test/infra/table-access.test.ts holds every
 * index query to it, so the indexes a function reads are known from the calls it makes): a
 * sharded index's entries, and pages of one partition of an index.
 */

/** An index, named by its design, whose queries go through this module. */
export interface IndexRef {
  readonly design: IndexDesign;
}

/**
 * A sparse index spread over a few partitions, one per shard, so that no single partition takes
 * every write of the items it lists (DynamoDB serves about 1,000 writes a second per partition).
 * An item's shard follows from a hash of its id; a reader queries every shard.
 */
export interface ShardedIndex extends IndexRef {
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

/** What a page of one index partition selects. */
export interface IndexPageQuery {
  partition: string;
  /** The sort key: between two values, both inclusive, or equal to one. */
  sortKey: { from: string; to: string } | { equals: string };
  /** A filter expression over the items read, with its own names and values (`:`-prefixed). */
  filter?: { expression: string; names?: Record<string, string>; values: Record<string, unknown> };
  /** The full key (table and index) of the item the page starts after. */
  startAfter?: Record<string, unknown>;
  descending: boolean;
  /** How many items to read, selected by the filter or not. */
  limit?: number;
}

export interface IndexPage<T> {
  items: T[];
  /** How many items were read, selected or not. */
  itemsRead: number;
  /** The full key of the last item read, when the partition may go on after it. */
  lastKey?: Record<string, unknown>;
}

/** One Query of one partition of an index (eventually consistent, as every index read is). */
export async function indexPage<T>(index: IndexRef, query: IndexPageQuery): Promise<IndexPage<T>> {
  const { indexName, partitionKey, sortKey } = index.design;
  const range = 'equals' in query.sortKey ? '#sort = :equals' : '#sort BETWEEN :from AND :to';
  const {
    Items = [],
    ScannedCount = 0,
    LastEvaluatedKey,
  } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: indexName,
      KeyConditionExpression: `#partition = :partition AND ${range}`,
      ...(query.filter ? { FilterExpression: query.filter.expression } : {}),
      ExpressionAttributeNames: { '#partition': partitionKey, '#sort': sortKey, ...query.filter?.names },
      ExpressionAttributeValues: {
        ':partition': query.partition,
        ...('equals' in query.sortKey
          ? { ':equals': query.sortKey.equals }
          : { ':from': query.sortKey.from, ':to': query.sortKey.to }),
        ...query.filter?.values,
      },
      ...(query.startAfter ? { ExclusiveStartKey: query.startAfter } : {}),
      ScanIndexForward: !query.descending,
      ...(query.limit === undefined ? {} : { Limit: query.limit }),
    }),
  );
  return { items: Items as T[], itemsRead: ScannedCount, ...(LastEvaluatedKey ? { lastKey: LastEvaluatedKey } : {}) };
}
