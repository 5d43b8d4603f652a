import { BatchGetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './clients/dynamodb';

/** At most this many keys per BatchGetItem (DynamoDB's limit). */
export const BATCH_GET_MAX_KEYS = 100;

/**
 * Reads up to 100 items by key, strongly consistent, in one BatchGetItem; only keys DynamoDB
 * leaves unprocessed (under throttling) are asked again, after a jittered pause. Missing items
 * are simply absent from the answer, which is in no particular order.
 */
type Items = NonNullable<BatchGetCommandOutput['Responses']>[string];

export async function batchGetConsistent(keys: readonly Record<string, string>[]): Promise<Items> {
  if (keys.length > BATCH_GET_MAX_KEYS) throw new Error(`BatchGetItem takes at most ${BATCH_GET_MAX_KEYS} keys`);
  const items: Items = [];
  let pending = [...keys];
  for (let attempt = 0; pending.length > 0; attempt += 1) {
    if (attempt > 0)
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 50 * 2 ** attempt)));
    const { Responses, UnprocessedKeys } = await dynamo().send(
      new BatchGetCommand({ RequestItems: { [tableName()]: { Keys: pending, ConsistentRead: true } } }),
    );
    items.push(...(Responses?.[tableName()] ?? []));
    pending = (UnprocessedKeys?.[tableName()]?.Keys ?? []) as Record<string, string>[];
  }
  return items;
}
