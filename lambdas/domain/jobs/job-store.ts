import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { JobCredits } from '#contract/types';
import { batchGetConsistent } from '#platform/batch-get';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { metadataAttributes, metadataFromItem, type StoredMetadata } from '#platform/metadata';
import { entriesBefore, shardOf, type ShardedIndex } from '#platform/sharded-index';
import { organizationPartition, TABLE_DESIGN } from '#platform/table-design';
import type { TransactionItem } from '#platform/transactions';
import {
  isActive,
  type AnyJob,
  type Job,
  type JobError,
  type JobInputs,
  type JobMetadata,
  type JobOf,
  type JobStatus,
  type JobType,
  type WorkStage,
  FIRST_WORK_STAGES,
} from './job';

/** The job item: the one module that knows its keys, attributes and update expressions. */

interface JobItemFields extends StoredMetadata<JobMetadata> {
  job_id: string;
  organization_id: number;
  status: JobStatus;
  progress: number;
  work_stage?: WorkStage;
  created_at: string;
  updated_at: string;
  credits: JobCredits;
  external_id?: string;
  output_asset_id?: string | null;
  error?: JobError | null;
  provider_job_id?: string | null;
  /** A completed split job's completed clips. */
  clips_count?: number;
  created_by_key?: string;
  /** The job's list entries and usage counts exist; the migration tracks jobs written before them. */
  tracked?: boolean;
}

type JobItemOf<T extends JobType> = JobItemFields & { type: T; input: JobInputs[T] };
/** Split jobs written before `framing` and `burn_captions` existed were framed to fit, with no captions drawn in. */
const SPLIT_INPUT_BEFORE_FRAMING = { framing: 'fit', burn_captions: false } as const;
type SplitJobItem = JobItemFields & {
  type: 'split';
  input: Omit<JobInputs['split'], keyof typeof SPLIT_INPUT_BEFORE_FRAMING> &
    Partial<Pick<JobInputs['split'], keyof typeof SPLIT_INPUT_BEFORE_FRAMING>>;
};
type JobItem = JobItemOf<'video'> | SplitJobItem;

export function jobKey(organizationId: number, jobId: string) {
  return { pk: organizationPartition(organizationId), sk: `JOB#${jobId}` };
}

/**
 * Active jobs spread over this many partitions of the active-jobs index: each job is written to it
 * twice (created, ended), and a single partition would cap the whole service's job rate.
 */
export const ACTIVE_JOB_SHARDS = 8;

const ACTIVE_JOBS_INDEX: ShardedIndex = {
  design: TABLE_DESIGN.activeJobs,
  prefix: 'ACTIVE',
  shards: ACTIVE_JOB_SHARDS,
};

const activeJobShard = (jobId: string) => shardOf(ACTIVE_JOBS_INDEX, jobId);

/** The active-jobs index keys; the transaction that ends the job removes them. */
function activeJobKeys(createdAt: string, jobId: string) {
  const { partitionKey, sortKey } = TABLE_DESIGN.activeJobs;
  return { [partitionKey]: activeJobShard(jobId), [sortKey]: `${createdAt}#${jobId}` };
}

const LEAVE_ACTIVE_JOBS = `REMOVE ${TABLE_DESIGN.activeJobs.partitionKey}, ${TABLE_DESIGN.activeJobs.sortKey}`;

function fromItem(item: JobItem): Job {
  const fields = {
    jobId: item.job_id,
    organizationId: item.organization_id,
    status: item.status,
    // Split jobs advance progress by fractions of a point as parts of the work finish.
    progress: Math.floor(item.progress),
    workStage: item.work_stage ?? null,
    createdAt: item.created_at,
    updatedAt: item.updated_at,
    credits: item.credits,
    metadata: metadataFromItem(item),
    outputAssetId: item.output_asset_id ?? null,
    error: item.error ?? null,
    providerJobId: item.provider_job_id ?? null,
    clipsCount: item.clips_count ?? null,
    createdByKey: item.created_by_key ?? null,
    tracked: item.tracked === true,
  };
  // One branch per type keeps each type paired with its own input.
  switch (item.type) {
    case 'video':
      return { ...fields, type: item.type, input: item.input };
    case 'split':
      return { ...fields, type: item.type, input: { ...SPLIT_INPUT_BEFORE_FRAMING, ...item.input } };
  }
}

function toItem<T extends JobType>(job: JobOf<T>): JobItemOf<T> {
  return {
    job_id: job.jobId,
    organization_id: job.organizationId,
    type: job.type,
    status: job.status,
    progress: job.progress,
    ...(job.workStage ? { work_stage: job.workStage } : {}),
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    credits: job.credits,
    input: job.input,
    ...metadataAttributes(job.metadata),
    external_id: job.metadata?.external_id,
    output_asset_id: job.outputAssetId,
    error: job.error,
    provider_job_id: job.providerJobId,
    ...(job.clipsCount === null ? {} : { clips_count: job.clipsCount }),
    ...(job.createdByKey ? { created_by_key: job.createdByKey } : {}),
    // Written only as true: the migration finds untracked jobs by the attribute's absence.
    ...(job.tracked ? { tracked: true } : {}),
  };
}

export async function findJob(organizationId: number, jobId: string): Promise<Job | undefined> {
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: jobKey(organizationId, jobId), ConsistentRead: true }),
  );
  // The table holds what toItem wrote; this is where the stored shape meets its type.
  return Item ? fromItem(Item as JobItem) : undefined;
}

/** Jobs of the organization by id (at most 100), read consistently; missing ones are left out, the order kept. */
export async function findJobs(organizationId: number, jobIds: readonly string[]): Promise<Job[]> {
  if (jobIds.length === 0) return [];
  const items = (await batchGetConsistent(jobIds.map((jobId) => jobKey(organizationId, jobId)))) as JobItem[];
  const byId = new Map(items.map((item) => [item.job_id, item]));
  return jobIds.flatMap((jobId) => {
    const item = byId.get(jobId);
    return item ? [fromItem(item)] : [];
  });
}

/** A new job's item, for the transaction that creates it; it fails if the id was ever used. */
export function newJobPut(job: AnyJob): TransactionItem {
  return {
    Put: {
      TableName: tableName(),
      Item: {
        ...jobKey(job.organizationId, job.jobId),
        ...activeJobKeys(job.createdAt, job.jobId),
        ...toItem(job),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** How a job ends, as its item records it. */
export type JobEnding =
  | { status: 'completed'; outputAssetId: string | null; clipsCount?: number }
  | { status: 'failed' | 'expired' | 'cancelled'; error: JobError };

/**
 * The part of a status change's condition that keeps a job read untracked untracked: the
 * migration may track it between the read and the write, and a change written without moving
 * the entries and counts the migration just wrote would leave them in the old status.
 */
function stillUntracked(job: Pick<AnyJob, 'tracked'>): string {
  return job.tracked ? '' : ' AND attribute_not_exists(tracked)';
}

/**
 * For the transaction that ends a job: its terminal state (with `refund`, the credits it gets
 * back: all of a failed job's, a split job's share for the clips it did not deliver), conditional on its still being in the status it was read in (an
 * active one), so a job ends at most once however many finishers race, and the counts that
 * move with its status move from the right one.
 */
export function jobEndingUpdate(
  job: Pick<AnyJob, 'organizationId' | 'jobId' | 'status' | 'tracked'>,
  ending: JobEnding,
  refund: number,
  now: Date,
): TransactionItem {
  const update =
    ending.status === 'completed'
      ? {
          expression: `SET #status = :status, progress = :hundred, updated_at = :now, output_asset_id = :asset, #error = :none, credits.refunded = :refund${ending.clipsCount === undefined ? '' : ', clips_count = :clips'} ${LEAVE_ACTIVE_JOBS}`,
          values: {
            ':hundred': 100,
            ':asset': ending.outputAssetId,
            ':none': null,
            ':refund': refund,
            ...(ending.clipsCount === undefined ? {} : { ':clips': ending.clipsCount }),
          },
        }
      : {
          expression: `SET #status = :status, updated_at = :now, #error = :error, credits.refunded = :refund ${LEAVE_ACTIVE_JOBS}`,
          values: { ':error': ending.error, ':refund': refund },
        };
  return {
    Update: {
      TableName: tableName(),
      Key: jobKey(job.organizationId, job.jobId),
      UpdateExpression: update.expression,
      ConditionExpression: `#status = :seen${stillUntracked(job)}`,
      ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
      ExpressionAttributeValues: {
        ':status': ending.status,
        ':now': now.toISOString(),
        ':seen': job.status,
        ...update.values,
      },
    },
  };
}

export class JobAlreadyFinished extends Error {
  constructor(jobId: string) {
    super(`Job ${jobId} has already reached a terminal state`);
    this.name = 'JobAlreadyFinished';
  }
}

/**
 * For the migration's transaction that tracks a job written before list entries and usage
 * counts existed: marks it tracked, gives an active one its active-jobs keys (it predates those
 * too) and drops its old job-list keys of gsi1. Conditional on its being untracked and still in
 * the status it was read in, since the entries and counts written with it are that status's.
 */
export function jobTrackingUpdate(
  job: Pick<AnyJob, 'organizationId' | 'jobId' | 'status' | 'createdAt'>,
): TransactionItem {
  const activeKeys = isActive(job) ? activeJobKeys(job.createdAt, job.jobId) : {};
  const sets = ['tracked = :tracked', ...Object.keys(activeKeys).map((name) => `${name} = :${name}`)];
  return {
    Update: {
      TableName: tableName(),
      Key: jobKey(job.organizationId, job.jobId),
      UpdateExpression: `SET ${sets.join(', ')} REMOVE gsi1pk, gsi1sk`,
      ConditionExpression: 'attribute_not_exists(tracked) AND #status = :seen',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':tracked': true,
        ':seen': job.status,
        ...Object.fromEntries(Object.entries(activeKeys).map(([name, value]) => [`:${name}`, value])),
      },
    },
  };
}

/** For the transaction that starts a job's work: queued → processing in its first stage, if it is still queued. */
export function jobProcessingUpdate(
  job: Pick<AnyJob, 'organizationId' | 'jobId' | 'tracked' | 'type'>,
  now: Date,
): TransactionItem {
  return {
    Update: {
      TableName: tableName(),
      Key: jobKey(job.organizationId, job.jobId),
      UpdateExpression: 'SET #status = :processing, work_stage = :stage, updated_at = :now',
      ConditionExpression: `#status = :queued${stillUntracked(job)}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':processing': 'processing',
        ':queued': 'queued',
        ':stage': FIRST_WORK_STAGES[job.type],
        ':now': now.toISOString(),
      },
    },
  };
}

/**
 * Remembers the provider's id of the work and the asset it will become, while the job is
 * processing. Answers false when it no longer is: it was cancelled or expired meanwhile.
 */
export async function recordProviderJob(
  organizationId: number,
  jobId: string,
  providerJobId: string,
  outputAssetId: string,
): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(organizationId, jobId),
        UpdateExpression: 'SET provider_job_id = :provider, output_asset_id = :asset',
        ConditionExpression: '#status = :processing',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':provider': providerJobId, ':asset': outputAssetId, ':processing': 'processing' },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Adds `points` to the progress of a processing job, for work done in parallel parts that each
 * know only their own share; never past 99, which only the finish moves to 100.
 */
export async function advanceProgress(organizationId: number, jobId: string, points: number, now = new Date()) {
  if (points <= 0) return;
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(organizationId, jobId),
        UpdateExpression: 'SET progress = progress + :points, updated_at = :now',
        ConditionExpression: '#status = :processing AND progress <= :ceiling',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':points': points,
          ':ceiling': 99 - points,
          ':processing': 'processing',
          ':now': now.toISOString(),
        },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/**
 * A processing job enters its next stage, its progress set to where that stage begins. Each stage
 * begins further on than the one before, so stages move forward with progress only.
 */
export async function enterWorkStage(
  organizationId: number,
  jobId: string,
  stage: WorkStage,
  progress: number,
  now = new Date(),
) {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(organizationId, jobId),
        UpdateExpression: 'SET work_stage = :stage, progress = :progress, updated_at = :now',
        ConditionExpression: '#status = :processing AND progress <= :progress',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':stage': stage,
          ':progress': progress,
          ':processing': 'processing',
          ':now': now.toISOString(),
        },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** Progress only moves forward, and only while the job is processing. */
export async function recordProgress(organizationId: number, jobId: string, progress: number, now = new Date()) {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(organizationId, jobId),
        UpdateExpression: 'SET progress = :progress, updated_at = :now',
        ConditionExpression: '#status = :processing AND progress < :progress',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':progress': progress, ':processing': 'processing', ':now': now.toISOString() },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
}

/** What the active-jobs index holds of a job: enough to find it and its workflow. */
export type ActiveJobEntry = Pick<AnyJob, 'organizationId' | 'jobId' | 'type' | 'status' | 'createdAt'>;

/**
 * Every job still queued or processing that was created before `createdBefore`, oldest first
 * within each shard. The index is eventually consistent: an entry may belong to a job that has
 * just ended, so callers act through conditional writes.
 */
export async function* activeJobsCreatedBefore(createdBefore: Date): AsyncGenerator<ActiveJobEntry> {
  type Entry = Pick<JobItem, 'organization_id' | 'job_id' | 'type' | 'status' | 'created_at'>;
  for await (const item of entriesBefore<Entry>(ACTIVE_JOBS_INDEX, createdBefore.toISOString())) {
    yield {
      organizationId: item.organization_id,
      jobId: item.job_id,
      type: item.type,
      status: item.status,
      createdAt: item.created_at,
    };
  }
}
