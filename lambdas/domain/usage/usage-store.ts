import { paginateQuery } from '@aws-sdk/lib-dynamodb';
import { JOB_STATUSES, type JobStatus, type JobType } from '#domain/jobs/job';
import { JOB_TYPE_NAMES } from '#domain/jobs/job-types';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { DAY_MS, utcDay } from '#platform/instants';
import type { TransactionItem } from '#platform/transactions';
import { organizationPartition } from '#platform/table-design';

/**
 * The usage aggregates: the one module that knows their keys and counters. One item per
 * organization and UTC day, and one per API key and day, each counting the jobs created that
 * day: how many of each type, what they were charged and refunded, and how many are now in
 * each status. Every figure is added inside the transaction that creates the job or changes its
 * status, so the aggregates never disagree with the jobs and usage is never computed by
 * scanning them. Webhook deliveries are counted in an item of their own per day, so that
 * delivery bursts never contend with job transactions.
 */

/** A year of history and a month to spare; custom periods reach back as far as that. */
export const USAGE_RETENTION_DAYS = 400;

function organizationDayKey(organizationId: number, day: string) {
  return { pk: organizationPartition(organizationId), sk: `USAGE#DAY#${day}` };
}

function apiKeyDayKey(organizationId: number, keyPrefix: string, day: string) {
  return { pk: organizationPartition(organizationId), sk: `USAGE#KEY#${keyPrefix}#${day}` };
}

function deliveriesDayKey(organizationId: number, day: string) {
  return { pk: organizationPartition(organizationId), sk: `USAGE#DELIVERIES#${day}` };
}

const counter = {
  created: (type: JobType) => `${type}_created`,
  charged: (type: JobType) => `${type}_charged`,
  refunded: (type: JobType) => `${type}_refunded`,
  inStatus: (type: JobType, status: JobStatus) => `${type}_${status}`,
};

/** The job whose creation day is counted, and by whom it was created. */
export interface CountedJob {
  organizationId: number;
  type: JobType;
  createdAt: string;
  /** The API key that created it; null for jobs created before keys were recorded. */
  createdByKey: string | null;
}

/** What one transaction changes in a job's counts. */
export interface UsageChange {
  created?: boolean;
  charged?: number;
  refunded?: number;
  /** The status the job leaves (absent at creation). */
  from?: JobStatus;
  to: JobStatus;
}

function dayUpdate(key: { pk: string; sk: string }, job: CountedJob, change: UsageChange): TransactionItem {
  const additions: [string, number][] = [[counter.inStatus(job.type, change.to), 1]];
  if (change.from) additions.push([counter.inStatus(job.type, change.from), -1]);
  if (change.created) additions.push([counter.created(job.type), 1]);
  if (change.charged) additions.push([counter.charged(job.type), change.charged]);
  if (change.refunded) additions.push([counter.refunded(job.type), change.refunded]);
  const names = Object.fromEntries(additions.map(([name], index) => [`#c${index}`, name]));
  const values = Object.fromEntries(additions.map(([, amount], index) => [`:c${index}`, amount]));
  const expiresAt = Math.floor((Date.parse(job.createdAt) + USAGE_RETENTION_DAYS * DAY_MS) / 1000);
  return {
    Update: {
      TableName: tableName(),
      Key: key,
      UpdateExpression: `ADD ${additions.map((_, index) => `#c${index} :c${index}`).join(', ')} SET expires_at = if_not_exists(expires_at, :expires)`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: { ...values, ':expires': expiresAt },
    },
  };
}

/**
 * The updates of a job's counts for the transaction that creates it or changes its status: the
 * organization's day and, when known, the creating key's day (the day the job was created).
 */
export function jobUsageUpdates(job: CountedJob, change: UsageChange): Record<string, TransactionItem> {
  const day = utcDay(job.createdAt);
  return {
    'usage:organization': dayUpdate(organizationDayKey(job.organizationId, day), job, change),
    ...(job.createdByKey
      ? { 'usage:api-key': dayUpdate(apiKeyDayKey(job.organizationId, job.createdByKey, day), job, change) }
      : {}),
  };
}

export interface JobTypeCounts {
  created: number;
  charged: number;
  refunded: number;
  byStatus: Record<JobStatus, number>;
}

/** Days are inclusive; `firstDay` and `lastDay` are `YYYY-MM-DD`. */
export interface DayRange {
  firstDay: string;
  lastDay: string;
}

async function sumDays(partition: string, range: { from: string; to: string }): Promise<Record<string, number>> {
  const totals: Record<string, number> = {};
  const pages = paginateQuery(
    { client: dynamo() },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': partition, ':from': range.from, ':to': range.to },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) {
    for (const item of page.Items ?? []) {
      for (const [name, value] of Object.entries(item)) {
        if (typeof value === 'number' && name !== 'expires_at') totals[name] = (totals[name] ?? 0) + value;
      }
    }
  }
  return totals;
}

function jobCountsOf(totals: Record<string, number>): Record<JobType, JobTypeCounts> {
  const of = (type: JobType): JobTypeCounts => ({
    created: totals[counter.created(type)] ?? 0,
    charged: totals[counter.charged(type)] ?? 0,
    refunded: totals[counter.refunded(type)] ?? 0,
    byStatus: Object.fromEntries(
      JOB_STATUSES.map((status) => [status, totals[counter.inStatus(type, status)] ?? 0]),
    ) as Record<JobStatus, number>,
  });
  return Object.fromEntries(JOB_TYPE_NAMES.map((type) => [type, of(type)])) as Record<JobType, JobTypeCounts>;
}

/**
 * The counts of the jobs created in the range, by type: the organization's, or with `keyPrefix`
 * those one key created. One Query of at most 92 small items.
 */
export async function jobCountsInRange(
  organizationId: number,
  range: DayRange,
  keyPrefix?: string,
): Promise<Record<JobType, JobTypeCounts>> {
  const bound = (day: string) =>
    keyPrefix ? apiKeyDayKey(organizationId, keyPrefix, day).sk : organizationDayKey(organizationId, day).sk;
  return jobCountsOf(
    await sumDays(organizationPartition(organizationId), { from: bound(range.firstDay), to: bound(range.lastDay) }),
  );
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/**
 * For the transaction that records a webhook delivery or ends it: the counts of the day the
 * delivery was created move from one status to the other (and the total grows at creation).
 */
export function deliveryUsageUpdate(
  organizationId: number,
  deliveryCreatedAt: string,
  change: { created?: boolean; from?: DeliveryStatus; to: DeliveryStatus },
): TransactionItem {
  const additions: [string, number][] = [[`deliveries_${change.to}`, 1]];
  if (change.from) additions.push([`deliveries_${change.from}`, -1]);
  if (change.created) additions.push(['deliveries_total', 1]);
  const expiresAt = Math.floor((Date.parse(deliveryCreatedAt) + USAGE_RETENTION_DAYS * DAY_MS) / 1000);
  return {
    Update: {
      TableName: tableName(),
      Key: deliveriesDayKey(organizationId, utcDay(deliveryCreatedAt)),
      UpdateExpression: `ADD ${additions.map((_, index) => `#c${index} :c${index}`).join(', ')} SET expires_at = if_not_exists(expires_at, :expires)`,
      ExpressionAttributeNames: Object.fromEntries(additions.map(([name], index) => [`#c${index}`, name])),
      ExpressionAttributeValues: {
        ...Object.fromEntries(additions.map(([, amount], index) => [`:c${index}`, amount])),
        ':expires': expiresAt,
      },
    },
  };
}

export interface DeliveryCounts {
  total: number;
  succeeded: number;
  failed: number;
  pending: number;
}

/**
 * Webhook deliveries created in the range, by their current outcome: counted per day by the
 * delivery pipeline in `deliveries_total`, `deliveries_succeeded`, `deliveries_failed` and
 * `deliveries_pending`.
 */
export async function deliveryCountsInRange(organizationId: number, range: DayRange): Promise<DeliveryCounts> {
  const totals = await sumDays(organizationPartition(organizationId), {
    from: deliveriesDayKey(organizationId, range.firstDay).sk,
    to: deliveriesDayKey(organizationId, range.lastDay).sk,
  });
  return {
    total: totals.deliveries_total ?? 0,
    succeeded: totals.deliveries_succeeded ?? 0,
    failed: totals.deliveries_failed ?? 0,
    pending: totals.deliveries_pending ?? 0,
  };
}
