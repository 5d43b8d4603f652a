import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { dynamo, tableName } from '../store/dynamo';
import { ApiError } from './errors';
import { eventKey, newEvent } from './events';
import { IDEMPOTENCY_RETENTION_SECONDS, idempotencyKey } from './idempotency';
import { organizationKey } from './organizations';
import { API_PREFIX } from '../routes';

export type JobType = 'video' | 'split';
export type JobStatus = 'queued' | 'processing' | 'completed' | 'failed' | 'cancelled' | 'expired';
export const ACTIVE_STATUSES: readonly JobStatus[] = ['queued', 'processing'];

export interface JobError {
  code: string;
  message: string;
}

export interface Job {
  jobId: string;
  organizationId: number;
  type: JobType;
  status: JobStatus;
  progress: number;
  createdAt: string;
  updatedAt: string;
  credits: { estimated: number; charged: number; refunded: number };
  input: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  outputAssetId: string | null;
  error: JobError | null;
  /** Internal: the provider's id of the render; never exposed. */
  providerJobId: string | null;
}

interface JobItem {
  job_id: string;
  organization_id: number;
  type: JobType;
  status: JobStatus;
  progress: number;
  created_at: string;
  updated_at: string;
  credits: { estimated: number; charged: number; refunded: number };
  input: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  external_id?: string;
  output_asset_id?: string | null;
  error?: JobError | null;
  provider_job_id?: string | null;
}

export function jobKey(organizationId: number, jobId: string) {
  return { pk: `ORG#${organizationId}`, sk: `JOB#${jobId}` };
}

/** The unified job list reads this index: newest first within an organization. */
function jobListKeys(organizationId: number, createdAt: string, jobId: string) {
  return { gsi1pk: `ORG#${organizationId}#JOBS`, gsi1sk: `${createdAt}#${jobId}` };
}

const ACTIVE_COUNTER: Record<JobType, string> = { video: 'active_video_jobs', split: 'active_split_jobs' };

function fromItem(item: JobItem): Job {
  return {
    jobId: item.job_id,
    organizationId: item.organization_id,
    type: item.type,
    status: item.status,
    progress: item.progress,
    createdAt: item.created_at,
    updatedAt: item.updated_at,
    credits: item.credits,
    input: item.input,
    metadata: item.metadata,
    outputAssetId: item.output_asset_id ?? null,
    error: item.error ?? null,
    providerJobId: item.provider_job_id ?? null,
  };
}

export async function findJob(organizationId: number, jobId: string): Promise<Job | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: jobKey(organizationId, jobId), ConsistentRead: true }),
  );
  return Item ? fromItem(Item as JobItem) : undefined;
}

export async function getJob(organizationId: number, jobId: string, type: JobType): Promise<Job> {
  const job = jobId.startsWith(`${type}_job_`) ? await findJob(organizationId, jobId) : undefined;
  if (!job || job.type !== type) throw new ApiError('JOB_NOT_FOUND', `No ${type} job ${jobId} exists.`);
  return job;
}

export function resultPath(job: Pick<Job, 'type' | 'jobId'>): string {
  return `${API_PREFIX}/${job.type}-jobs/${job.jobId}/result`;
}

export interface NewJob {
  organizationId: number;
  type: JobType;
  jobId: string;
  price: number;
  concurrencyCap: number;
  input: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  idempotency?: { operation: string; key: string; fingerprint: string };
}

/** DynamoDB cancels concurrent transactions on the same item; they are retried, not failed. */
const MAX_TRANSACTION_ATTEMPTS = 12;
const backoff = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(500, 15 * 2 ** attempt)));

interface OrganizationSnapshot {
  credits_balance?: number;
  active_video_jobs?: number;
  active_split_jobs?: number;
}

/**
 * Creates a job in one transaction that charges its price, takes a concurrency slot, writes the
 * job and remembers the idempotency key: all of it happens or none of it.
 * Returns `replayed: true` with the original job when the key was already used for the same body.
 */
export async function createJob(input: NewJob, now = new Date()): Promise<{ job: Job; replayed: boolean }> {
  const createdAt = now.toISOString();
  const item: JobItem = {
    job_id: input.jobId,
    organization_id: input.organizationId,
    type: input.type,
    status: 'queued',
    progress: 0,
    created_at: createdAt,
    updated_at: createdAt,
    credits: { estimated: input.price, charged: input.price, refunded: 0 },
    input: input.input,
    metadata: input.metadata,
    external_id: typeof input.metadata?.external_id === 'string' ? input.metadata.external_id : undefined,
    output_asset_id: null,
    error: null,
    provider_job_id: null,
  };
  const counter = ACTIVE_COUNTER[input.type];
  const transactItems: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']> = [
    {
      Update: {
        TableName: tableName(),
        Key: organizationKey(input.organizationId),
        UpdateExpression: `SET credits_balance = credits_balance - :price, ${counter} = if_not_exists(${counter}, :zero) + :one`,
        ConditionExpression: `credits_balance >= :price AND (attribute_not_exists(${counter}) OR ${counter} < :cap)`,
        ExpressionAttributeValues: { ':price': input.price, ':zero': 0, ':one': 1, ':cap': input.concurrencyCap },
        ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
      },
    },
    {
      Put: {
        TableName: tableName(),
        Item: {
          ...jobKey(input.organizationId, input.jobId),
          ...jobListKeys(input.organizationId, createdAt, input.jobId),
          ...item,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  if (input.idempotency) {
    transactItems.push({
      Put: {
        TableName: tableName(),
        Item: {
          ...idempotencyKey(input.organizationId, input.idempotency.operation, input.idempotency.key),
          fingerprint: input.idempotency.fingerprint,
          job_id: input.jobId,
          created_at: createdAt,
          expires_at: Math.floor(now.getTime() / 1000) + IDEMPOTENCY_RETENTION_SECONDS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    });
  }

  for (let attempt = 1; ; attempt += 1) {
    try {
      await dynamo.send(new TransactWriteCommand({ TransactItems: transactItems }));
      return { job: fromItem(item), replayed: false };
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      const reasons = error.CancellationReasons ?? [];
      if (input.idempotency && reasons[2]?.Code === 'ConditionalCheckFailed') {
        return { job: await replay(input), replayed: true };
      }
      if (reasons[0]?.Code === 'ConditionalCheckFailed') {
        const snapshot = (reasons[0].Item ? unmarshall(reasons[0].Item) : {}) as OrganizationSnapshot;
        if ((snapshot.credits_balance ?? 0) < input.price) {
          throw new ApiError(
            'INSUFFICIENT_CREDITS',
            `This ${input.type} job costs ${input.price} credits; the balance is ${snapshot.credits_balance ?? 0}.`,
          );
        }
        throw new ApiError(
          'CONCURRENT_JOB_LIMIT_EXCEEDED',
          `The organization already has ${input.concurrencyCap} active ${input.type} jobs; wait for one to finish.`,
        );
      }
      const conflicted = reasons.some((reason) => reason.Code === 'TransactionConflict');
      if (!conflicted || attempt >= MAX_TRANSACTION_ATTEMPTS) throw error;
      await backoff(attempt);
    }
  }
}

async function replay(input: NewJob): Promise<Job> {
  const idempotency = input.idempotency as NonNullable<NewJob['idempotency']>;
  const { Item } = await dynamo.send(
    new GetCommand({
      TableName: tableName(),
      Key: idempotencyKey(input.organizationId, idempotency.operation, idempotency.key),
      ConsistentRead: true,
    }),
  );
  if (!Item || Item.fingerprint !== idempotency.fingerprint) {
    throw new ApiError(
      'IDEMPOTENCY_CONFLICT',
      'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
    );
  }
  const job = await findJob(input.organizationId, Item.job_id as string);
  if (!job) throw new Error(`Idempotency record points at missing job ${Item.job_id}`);
  return job;
}

/** queued → processing; repeated calls (a retried step) are harmless. */
export async function markProcessing(organizationId: number, jobId: string, now = new Date()): Promise<Job> {
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: jobKey(organizationId, jobId),
        UpdateExpression: 'SET #status = :processing, updated_at = :now',
        ConditionExpression: '#status IN (:queued, :processing)',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':processing': 'processing', ':queued': 'queued', ':now': now.toISOString() },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return fromItem(Attributes as JobItem);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) throw new JobAlreadyFinished(jobId);
    throw error;
  }
}

export class JobAlreadyFinished extends Error {
  constructor(jobId: string) {
    super(`Job ${jobId} has already reached a terminal state`);
    this.name = 'JobAlreadyFinished';
  }
}

export async function recordProviderJob(
  organizationId: number,
  jobId: string,
  providerJobId: string,
  outputAssetId: string,
) {
  await dynamo.send(
    new UpdateCommand({
      TableName: tableName(),
      Key: jobKey(organizationId, jobId),
      UpdateExpression: 'SET provider_job_id = :provider, output_asset_id = :asset',
      ConditionExpression: '#status = :processing',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':provider': providerJobId, ':asset': outputAssetId, ':processing': 'processing' },
    }),
  );
}

/** Progress only moves forward, and only while the job is processing. */
export async function recordProgress(organizationId: number, jobId: string, progress: number, now = new Date()) {
  try {
    await dynamo.send(
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

export type Outcome =
  | {
      status: 'completed';
      outputAsset: { item: Record<string, unknown>; key: { pk: string; sk: string }; assetId: string };
    }
  | { status: 'failed' | 'expired'; error: JobError };

/**
 * The one way a job ends: in one transaction the job takes its terminal state, the
 * concurrency slot is released, a failed or expired job's charge is refunded, and the event
 * for webhooks is written. The condition on the job's status makes it happen at most once.
 */
export async function finishJob(
  organizationId: number,
  jobId: string,
  outcome: Outcome,
  now = new Date(),
): Promise<void> {
  const job = await findJob(organizationId, jobId);
  if (!job) throw new Error(`Job ${jobId} of organization ${organizationId} does not exist`);
  if (!ACTIVE_STATUSES.includes(job.status)) return;
  const refund = outcome.status === 'completed' ? 0 : job.credits.charged;
  const counter = ACTIVE_COUNTER[job.type];
  const updatedAt = now.toISOString();
  const completed = outcome.status === 'completed';
  const event = completed
    ? newEvent(
        organizationId,
        'job.completed',
        {
          job: {
            id: jobId,
            type: job.type,
            status: 'completed',
            result_url: resultPath(job),
            asset_id: outcome.outputAsset.assetId,
          },
        },
        now,
      )
    : newEvent(
        organizationId,
        'job.failed',
        { job: { id: jobId, type: job.type, status: outcome.status, error: outcome.error } },
        now,
      );

  const jobUpdate = completed
    ? {
        expression:
          'SET #status = :status, progress = :hundred, updated_at = :now, output_asset_id = :asset, #error = :none',
        values: { ':hundred': 100, ':asset': outcome.outputAsset.assetId, ':none': null },
      }
    : {
        expression: 'SET #status = :status, updated_at = :now, #error = :error, credits.refunded = :refund',
        values: { ':error': outcome.error, ':refund': refund },
      };
  const organizationUpdate =
    refund > 0
      ? {
          expression: `SET ${counter} = ${counter} - :one, credits_balance = credits_balance + :refund`,
          values: { ':one': 1, ':refund': refund },
        }
      : { expression: `SET ${counter} = ${counter} - :one`, values: { ':one': 1 } };

  try {
    await dynamo.send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: tableName(),
              Key: jobKey(organizationId, jobId),
              UpdateExpression: jobUpdate.expression,
              ConditionExpression: '#status IN (:queued, :processing)',
              ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
              ExpressionAttributeValues: {
                ':status': outcome.status,
                ':now': updatedAt,
                ':queued': 'queued',
                ':processing': 'processing',
                ...jobUpdate.values,
              },
            },
          },
          {
            Update: {
              TableName: tableName(),
              Key: organizationKey(organizationId),
              UpdateExpression: organizationUpdate.expression,
              ExpressionAttributeValues: organizationUpdate.values,
            },
          },
          { Put: { TableName: tableName(), Item: { ...eventKey(organizationId, event.event_id), ...event } } },
          ...(completed
            ? [
                {
                  Put: {
                    TableName: tableName(),
                    Item: { ...outcome.outputAsset.key, ...outcome.outputAsset.item },
                    ConditionExpression: 'attribute_not_exists(pk)',
                  },
                },
              ]
            : []),
        ],
      }),
    );
  } catch (error) {
    if (error instanceof TransactionCanceledException) {
      const current = await findJob(organizationId, jobId);
      if (current && !ACTIVE_STATUSES.includes(current.status)) return;
    }
    throw error;
  }
}
