import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import type { TransactionItem } from '#platform/transactions';

/** The primary key an item of a transaction writes or checks. */
export interface ItemKey {
  pk: string;
  sk: string;
}

export function keyOf(item: TransactionItem): ItemKey {
  const key = item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key ?? item.ConditionCheck?.Key;
  if (!key) throw new Error(`A transaction item without a key: ${JSON.stringify(item)}`);
  return { pk: String(key.pk), sk: String(key.sk) };
}

/** The items of a transaction that write or check the item of this key. */
export function itemsAt(items: readonly TransactionItem[], key: ItemKey): TransactionItem[] {
  return items.filter((item) => {
    const { pk, sk } = keyOf(item);
    return pk === key.pk && sk === key.sk;
  });
}

/** The one item of a transaction at this key. */
export function itemAt(items: readonly TransactionItem[], key: ItemKey): TransactionItem {
  const found = itemsAt(items, key);
  if (found.length !== 1) throw new Error(`${found.length} items at ${key.pk} ${key.sk}`);
  return found[0]!;
}

/**
 * A fake TransactWriteItems that cancels the transaction as DynamoDB does when the condition of
 * the item at `key` fails: one reason per item in the order sent, with the stored item when
 * given. It finds the item by key, so the test does not depend on where it sits in the list.
 */
export function refusedAt(key: ItemKey, stored?: Record<string, unknown>) {
  return (input: TransactWriteCommandInput) => {
    const items = input.TransactItems ?? [];
    if (itemsAt(items, key).length === 0) throw new Error(`The transaction writes nothing at ${key.pk} ${key.sk}`);
    throw new TransactionCanceledException({
      message: 'Transaction cancelled',
      $metadata: {},
      CancellationReasons: items.map((item) => {
        const { pk, sk } = keyOf(item);
        if (pk !== key.pk || sk !== key.sk) return { Code: 'None' };
        return { Code: 'ConditionalCheckFailed', ...(stored ? { Item: marshall(stored) } : {}) };
      }),
    });
  };
}

/**
 * What an `ADD` clause adds, by attribute name: `ADD #c0 :c0, request_count :one` with its
 * names and values read as `{ video_created: 1, request_count: 1 }`.
 */
export function addedCounters(update: {
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
}): Record<string, number> {
  const clause = /(?:^|\s)ADD\s+(.*?)(?=\s+(?:SET|REMOVE|DELETE)\s|$)/.exec(update.UpdateExpression ?? '')?.[1];
  if (clause === undefined) return {};
  return Object.fromEntries(
    clause.split(',').map((action) => {
      const [name = '', value = ''] = action.trim().split(/\s+/);
      const attribute = name.startsWith('#') ? update.ExpressionAttributeNames?.[name] : name;
      const amount = update.ExpressionAttributeValues?.[value];
      if (attribute === undefined || typeof amount !== 'number') throw new Error(`Unreadable ADD action: ${action}`);
      return [attribute, amount];
    }),
  );
}
