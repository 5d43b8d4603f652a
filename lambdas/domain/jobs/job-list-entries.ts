import { createHash } from 'node:crypto';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import type { TransactionItem } from '#platform/transactions';
import type { AnyJob, JobStatus, JobType } from './job';
import { organizationPartition } from '#platform/table-design';

/**
 * The job list's entries: the one module that knows their keys. Every job has one entry in
 * each partition that answers a combination of the list's filters it matches (all jobs, its
 * type, its status, its external id, and every combination of those), sorted by creation. A
 * page of any filter is then one strongly consistent Query of one partition, with the date
 * range in the key condition, and one BatchGetItem of the rows.
 *
 * The entries are written in the transactions that create the job and change its status, so
 * the list never disagrees with the jobs: a job is never in two status partitions, nor missing
 * from the one it belongs in.
 */

export interface JobListFilter {
  type?: JobType;
  status?: JobStatus;
  externalId?: string;
}

/** What a job's entries are made of. */
export interface ListedJob {
  organizationId: number;
  jobId: string;
  type: JobType;
  createdAt: string;
  externalId?: string;
}

export function listedJob(job: AnyJob): ListedJob {
  return {
    organizationId: job.organizationId,
    jobId: job.jobId,
    type: job.type,
    createdAt: job.createdAt,
    externalId: job.metadata?.external_id,
  };
}

/**
 * External ids are free text up to 255 characters; a digest keeps the partition key short and
 * free of `#`. The rows read afterwards are checked against the id itself, so even a collision
 * could not list another id's job.
 */
function externalIdDigest(externalId: string): string {
  return createHash('sha256').update(externalId).digest('base64url').slice(0, 22);
}

export function listPartition(organizationId: number, filter: JobListFilter): string {
  let partition = `${organizationPartition(organizationId)}#JOBS`;
  if (filter.externalId !== undefined) partition += `#EXT#${externalIdDigest(filter.externalId)}`;
  if (filter.type) partition += `#TYPE#${filter.type}`;
  if (filter.status) partition += `#STATUS#${filter.status}`;
  return partition;
}

/** The sort key of a job in every partition: creation time, then id, both sorting by age. */
export function listPosition(createdAt: string, jobId: string): string {
  return `${createdAt}#${jobId}`;
}

/** Every filter the job matches, with or without its status. */
function filtersOf(job: ListedJob, withStatus: boolean): JobListFilter[] {
  const externalIds = job.externalId === undefined ? [undefined] : [undefined, job.externalId];
  return externalIds.flatMap((externalId) =>
    [undefined, job.type].map((type) => ({ externalId, type, ...(withStatus ? {} : { status: undefined }) })),
  );
}

function entryKey(job: ListedJob, filter: JobListFilter) {
  return { pk: listPartition(job.organizationId, filter), sk: listPosition(job.createdAt, job.jobId) };
}

function entryPut(job: ListedJob, filter: JobListFilter): TransactionItem {
  return { Put: { TableName: tableName(), Item: entryKey(job, filter) } };
}

/** Names unique within a transaction, so a refusal reads by name rather than position. */
function named(
  prefix: string,
  job: ListedJob,
  filter: JobListFilter,
  write: TransactionItem,
): [string, TransactionItem] {
  return [`${prefix}:${entryKey(job, filter).pk}`, write];
}

/** The entries of a new job in `status`: one per filter combination it matches. */
export function newJobListEntries(job: ListedJob, status: JobStatus): Record<string, TransactionItem> {
  const filters = [...filtersOf(job, false), ...filtersOf(job, true).map((filter) => ({ ...filter, status }))];
  return Object.fromEntries(filters.map((filter) => named('list', job, filter, entryPut(job, filter))));
}

/** Moves the job's status-bearing entries from one status's partitions to the other's. */
export function jobListStatusChange(job: ListedJob, from: JobStatus, to: JobStatus): Record<string, TransactionItem> {
  const moves = filtersOf(job, true).flatMap((filter) => [
    named(
      'unlist',
      job,
      { ...filter, status: from },
      {
        Delete: { TableName: tableName(), Key: entryKey(job, { ...filter, status: from }) },
      },
    ),
    named('list', job, { ...filter, status: to }, entryPut(job, { ...filter, status: to })),
  ]);
  return Object.fromEntries(moves);
}

export interface ListPageQuery {
  organizationId: number;
  filter: JobListFilter;
  /** Only jobs created at or after this millisecond. */
  createdFromMs?: number;
  /** Only jobs created before this millisecond. */
  createdBeforeMs?: number;
  /** The position of the previous page's last job: the page starts after it. */
  after?: string;
  limit: number;
}

/**
 * The first and last millisecond `toISOString` writes with a four-digit year, as every position
 * begins. Beyond them it writes `+010000-…` and `-000001-…`, which sort before `2026-…`: a bound
 * there is no bound at all on one side, and leaves nothing on the other.
 */
const FIRST_POSITION_MS = Date.parse('0000-01-01T00:00:00.000Z');
const LAST_POSITION_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * The key range of the creation range `[fromMs, beforeMs)`: a bare instant sorts before every
 * position of a job created at that instant (`<instant>#<id>`), so it bounds `created_before`
 * exclusively and `created_after` inclusively. Undefined when no position can be in the range.
 */
function positionRange(fromMs = -Infinity, beforeMs = Infinity): { from?: string; before?: string } | undefined {
  if (fromMs >= beforeMs || fromMs > LAST_POSITION_MS || beforeMs <= FIRST_POSITION_MS) return undefined;
  return {
    from: fromMs > FIRST_POSITION_MS ? new Date(fromMs).toISOString() : undefined,
    before: beforeMs <= LAST_POSITION_MS ? new Date(beforeMs).toISOString() : undefined,
  };
}

/**
 * One page of job ids, newest first, and whether older ones follow: one Query for one more
 * entry than the page holds, so the last page is known to be the last; none for a creation
 * range that holds nothing.
 */
export async function queryJobPositions(query: ListPageQuery): Promise<{ positions: string[]; more: boolean }> {
  const partition = listPartition(query.organizationId, query.filter);
  const range = positionRange(query.createdFromMs, query.createdBeforeMs);
  if (!range) return { positions: [], more: false };
  const { from, before } = range;
  const sortCondition =
    from !== undefined && before !== undefined
      ? ' AND sk BETWEEN :from AND :before'
      : from !== undefined
        ? ' AND sk >= :from'
        : before !== undefined
          ? ' AND sk < :before'
          : '';
  const { Items = [] } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: `pk = :partition${sortCondition}`,
      ExpressionAttributeValues: {
        ':partition': partition,
        ...(from === undefined ? {} : { ':from': from }),
        ...(before === undefined ? {} : { ':before': before }),
      },
      ...(query.after === undefined ? {} : { ExclusiveStartKey: { pk: partition, sk: query.after } }),
      ProjectionExpression: 'sk',
      ScanIndexForward: false,
      ConsistentRead: true,
      Limit: query.limit + 1,
    }),
  );
  const positions = (Items as { sk: string }[]).map((entry) => entry.sk);
  return { positions: positions.slice(0, query.limit), more: positions.length > query.limit };
}

/** The job id a position names. */
export function jobIdAt(position: string): string {
  return position.slice(position.lastIndexOf('#') + 1);
}
