import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './clients/dynamodb';
import type { TransactionItem } from './transactions';
import { organizationPartition } from './table-design';

/** How long a key is remembered, like Stripe: long enough for any sane client retry loop. */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;

/** An Idempotency-Key presented with a create: scoped to the organization and the operation. */
export interface IdempotencyClaim {
  operation: string;
  key: string;
  /** Of the validated body, see requestFingerprint. */
  fingerprint: string;
}

export interface IdempotencyRecord {
  fingerprint: string;
  /** The job the first request created. */
  jobId: string;
}

interface IdempotencyItem {
  fingerprint: string;
  job_id: string;
  created_at: string;
  expires_at: number;
}

export function idempotencyKey(organizationId: number, operation: string, key: string) {
  return { pk: organizationPartition(organizationId), sk: `IDEMPOTENCY#${operation}#${key}` };
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((name) => [name, canonical((value as Record<string, unknown>)[name])]),
    );
  }
  return value;
}

/**
 * Fingerprint of a validated request body (defaults applied, keys sorted), so that an explicit
 * default and an omitted field count as the same request.
 */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}

/** The claim of a create request that sent an Idempotency-Key; none when it sent none. */
export function idempotencyClaim(
  operation: string,
  key: string | undefined,
  body: unknown,
): IdempotencyClaim | undefined {
  return key === undefined ? undefined : { operation, key, fingerprint: requestFingerprint(body) };
}

const unixSeconds = (time: Date) => Math.floor(time.getTime() / 1000);

/**
 * The record of a claim, for the transaction that creates the job; it fails if the key was used
 * within its retention. TTL deletes a record up to days after `expires_at`, so a record past it is
 * overwritten as if it were gone.
 */
export function idempotencyRecordPut(
  organizationId: number,
  claim: IdempotencyClaim,
  jobId: string,
  now: Date,
): TransactionItem {
  const item: IdempotencyItem = {
    fingerprint: claim.fingerprint,
    job_id: jobId,
    created_at: now.toISOString(),
    expires_at: unixSeconds(now) + IDEMPOTENCY_RETENTION_SECONDS,
  };
  return {
    Put: {
      TableName: tableName(),
      Item: { ...idempotencyKey(organizationId, claim.operation, claim.key), ...item },
      ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now',
      ExpressionAttributeValues: { ':now': unixSeconds(now) },
    },
  };
}

/** The claim's record; undefined when there is none, or it is past its retention and TTL has not deleted it yet. */
export async function findIdempotencyRecord(
  organizationId: number,
  claim: Pick<IdempotencyClaim, 'operation' | 'key'>,
  now = new Date(),
): Promise<IdempotencyRecord | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({
      TableName: tableName(),
      Key: idempotencyKey(organizationId, claim.operation, claim.key),
      ConsistentRead: true,
    }),
  );
  if (!Item) return undefined;
  const item = Item as IdempotencyItem;
  if (item.expires_at < unixSeconds(now)) return undefined;
  return { fingerprint: item.fingerprint, jobId: item.job_id };
}
