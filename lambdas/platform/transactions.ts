import { TransactionCanceledException, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamo } from './clients/dynamodb';

/** One Put, Update, Delete or ConditionCheck of a transaction, as the document client takes it. */
export type TransactionItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Why DynamoDB cancelled one item of a transaction, with the item as it was when asked for. */
export interface CancellationReason {
  code: string;
  item?: Record<string, unknown>;
}

/**
 * A transaction DynamoDB refused because a condition failed: `reasons` by the names the items
 * were given, so a caller asks `failed('organization')` rather than counting positions, which
 * would silently change meaning when an item is added.
 */
export class TransactionRefused extends Error {
  constructor(readonly reasons: Readonly<Record<string, CancellationReason>>) {
    super(
      `Transaction refused: ${Object.entries(reasons)
        .map(([name, reason]) => `${name} ${reason.code}`)
        .join(', ')}`,
    );
    this.name = 'TransactionRefused';
  }

  /** True when the named item's condition failed. */
  failed(name: string): boolean {
    return this.reasons[name]?.code === 'ConditionalCheckFailed';
  }
}

/**
 * DynamoDB cancels concurrent transactions on the same item (`TransactionConflict`); they are
 * retried with full-jitter backoff (at most 500 ms apart), since the conflict says nothing
 * about whether the write is allowed.
 */
const MAX_ATTEMPTS = 12;
const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(500, 15 * 2 ** attempt)));

function reasonsByName(names: readonly string[], error: TransactionCanceledException) {
  const reasons: Record<string, CancellationReason> = {};
  (error.CancellationReasons ?? []).forEach((reason, index) => {
    const name = names[index];
    if (name === undefined || !reason.Code || reason.Code === 'None') return;
    reasons[name] = {
      code: reason.Code,
      item: reason.Item ? unmarshall(reason.Item as Record<string, AttributeValue>) : undefined,
    };
  });
  return reasons;
}

/**
 * Writes the named items all together or not at all. A failed condition throws
 * `TransactionRefused` naming the items whose condition failed; a conflict with another
 * transaction is retried; anything else is thrown as it came.
 */
export async function writeTransaction(items: Readonly<Record<string, TransactionItem>>): Promise<void> {
  const names = Object.keys(items);
  for (let attempt = 1; ; attempt += 1) {
    try {
      await dynamo().send(new TransactWriteCommand({ TransactItems: Object.values(items) }));
      return;
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = reasonsByName(names, error);
      const codes = Object.values(reasons).map((reason) => reason.code);
      if (codes.includes('ConditionalCheckFailed')) throw new TransactionRefused(reasons);
      if (!codes.includes('TransactionConflict') || attempt >= MAX_ATTEMPTS) throw error;
      await backoff(attempt);
    }
  }
}
