import { refusedCharge, slotReleaseUpdate, slotTakeUpdate, type Limits } from '#domain/access/organizations';
import { eventPut, newEvent, type EventBody } from '#domain/events/events';
import { ApiError } from '#platform/errors';
import { findIdempotencyRecord, idempotencyRecordPut, type IdempotencyClaim } from '#platform/idempotency';
import { sortableId } from '#platform/ids';
import { putMetric } from '#platform/metrics';
import { TransactionRefused, writeTransaction, type TransactionItem } from '#platform/transactions';
import {
  isActive,
  type AnyJob,
  jobOfType,
  type Job,
  type JobError,
  type JobInputs,
  type JobMetadata,
  type JobOf,
  type JobStatus,
  type JobType,
} from './job';
import { jobListStatusChange, listedJob, newJobListEntries } from './job-list-entries';
import { findJob, JobAlreadyFinished, jobEndingUpdate, jobProcessingUpdate, newJobPut } from './job-store';
import { JOB_TYPES } from './job-types';
import { NOTHING_DELIVERED, unfinishedJobRefund, type DeliveredClips } from './refunds';
import { jobUsageUpdates, type UsageChange } from '#domain/usage/usage-store';

/**
 * The transactions every job type goes through: the create (charge, concurrency slot, job,
 * idempotency record), the start of its work (queued → processing) and its end (terminal
 * status, slot released, refund, event, outputs), whether its work finishes it or a cancel or
 * deadline stops it. Each also writes the job's list entries and usage counts. Each is all or
 * nothing, so credits, slots, jobs, the job list and usage always agree.
 */

/** The list entries and usage counts that move with a tracked job's status. */
function statusChangeWrites(job: AnyJob, to: JobStatus, change: Omit<UsageChange, 'from' | 'to'> = {}) {
  if (!job.tracked) return {};
  return {
    ...jobListStatusChange(listedJob(job), job.status, to),
    ...jobUsageUpdates(job, { ...change, from: job.status, to }),
  };
}

export interface NewJob<T extends JobType> {
  organizationId: number;
  type: T;
  price: number;
  /** The organization's effective limits; its cap on active jobs of the type applies. */
  limits: Limits;
  /** The public prefix of the API key creating it. */
  createdByKey: string;
  input: JobInputs[T];
  metadata: JobMetadata | null;
  idempotency?: IdempotencyClaim;
}

/**
 * Creates a job in one transaction that charges its price, takes a concurrency slot, writes the
 * job and remembers the idempotency key: all of it happens or none of it.
 * Returns `replayed: true` with the original job when the key was already used for the same body.
 */
export async function createJob<T extends JobType>(
  request: NewJob<T>,
  now = new Date(),
): Promise<{ job: JobOf<T>; replayed: boolean }> {
  const traits = JOB_TYPES[request.type];
  const concurrencyCap = request.limits[traits.concurrencyLimit];
  const createdAt = now.toISOString();
  const job: JobOf<T> = {
    jobId: sortableId(traits.idPrefix, now.getTime()),
    organizationId: request.organizationId,
    type: request.type,
    status: 'queued',
    progress: 0,
    workStage: null,
    createdAt,
    updatedAt: createdAt,
    credits: { estimated: request.price, charged: request.price, refunded: 0 },
    input: request.input,
    metadata: request.metadata,
    outputAssetId: null,
    error: null,
    providerJobId: null,
    clipsCount: null,
    createdByKey: request.createdByKey,
    tracked: true,
  };
  const items: Record<string, TransactionItem> = {
    organization: slotTakeUpdate(request.organizationId, request.type, concurrencyCap, request.price),
    job: newJobPut(job),
    ...newJobListEntries(listedJob(job), job.status),
    ...jobUsageUpdates(job, { created: true, charged: request.price, to: job.status }),
  };
  if (request.idempotency) {
    items.idempotency = idempotencyRecordPut(request.organizationId, request.idempotency, job.jobId, now);
  }

  try {
    await writeTransaction(items);
    putMetric('creditsCharged', request.price, { JobType: request.type });
    return { job, replayed: false };
  } catch (error) {
    if (!(error instanceof TransactionRefused)) throw error;
    if (request.idempotency && error.failed('idempotency')) {
      return { job: await replay(request, request.idempotency, now), replayed: true };
    }
    if (error.failed('organization')) {
      const refusal = refusedCharge(error.reasons.organization?.item, request.price);
      if (refusal.limit === 'credits') {
        throw new ApiError(
          'INSUFFICIENT_CREDITS',
          `This ${request.type} job costs ${request.price} credits; the balance is ${refusal.balance}.`,
        );
      }
      throw new ApiError(
        'CONCURRENT_JOB_LIMIT_EXCEEDED',
        `The organization already has ${concurrencyCap} active ${request.type} jobs; wait for one to finish.`,
        { 'Retry-After': String(traits.retryAtCapSeconds) },
      );
    }
    throw error;
  }
}

async function replay<T extends JobType>(request: NewJob<T>, claim: IdempotencyClaim, now: Date): Promise<JobOf<T>> {
  const record = await findIdempotencyRecord(request.organizationId, claim, now);
  if (!record || record.fingerprint !== claim.fingerprint) {
    throw new ApiError(
      'IDEMPOTENCY_CONFLICT',
      'This Idempotency-Key was already used with a different request body; use a new key for a new request.',
    );
  }
  const job = jobOfType(await findJob(request.organizationId, record.jobId), request.type);
  if (!job) throw new Error(`Idempotency record ${claim.key} points at no ${request.type} job ${record.jobId}`);
  return job;
}

/** An item the finish transaction writes besides the job: what the job produced (an asset, a clip). */
export interface JobOutput {
  /** Unique within one finish: names the item in a refused transaction's reasons. */
  readonly name: string;
  readonly write: TransactionItem;
}

export type JobOutcome =
  | {
      status: 'completed';
      outputAssetId: string | null;
      outputs: readonly JobOutput[];
      /** A split job's completed clips. */
      clipsCount?: number;
      /** Credits given back although the job completed: a split job's share for its failed clips. */
      refund?: number;
    }
  | {
      status: 'failed' | 'expired' | 'cancelled';
      error: JobError;
      /**
       * What a split job delivered before it ended: it keeps the price of those clips and gets the
       * rest back (refunds.ts). Absent: nothing, so all of the charge comes back.
       */
      delivered?: DeliveredClips;
    };

function endingEvent(job: Job, outcome: JobOutcome): EventBody {
  const traits = JOB_TYPES[job.type];
  if (outcome.status === 'cancelled') {
    return {
      type: 'job.cancelled',
      data: { job: { id: job.jobId, type: job.type, status: outcome.status, error: outcome.error } },
    };
  }
  if (outcome.status !== 'completed') {
    return {
      type: 'job.failed',
      data: { job: { id: job.jobId, type: job.type, status: outcome.status, error: outcome.error } },
    };
  }
  const clipsUrl = traits.clipsPath(job.jobId);
  return {
    type: 'job.completed',
    data: {
      job: {
        id: job.jobId,
        type: job.type,
        status: 'completed',
        result_url: traits.resultPath(job.jobId),
        ...(clipsUrl ? { clips_url: clipsUrl } : {}),
        ...(outcome.outputAssetId ? { asset_id: outcome.outputAssetId } : {}),
      },
    },
  };
}

/** What a status change decides from the job as read: a transaction and its answer, or just an answer. */
export type StatusStep<T> = { write: Record<string, TransactionItem>; answer: T } | { answer: T };

/**
 * A transaction refused on the job means its status moved since it was read (or it ended);
 * reading it again and deciding again is bounded by the statuses it can still pass through.
 */
const MAX_STATUS_ATTEMPTS = 4;

/**
 * Reads the job consistently, lets `decide` choose what to write for the status it is in, and
 * writes it in one transaction whose job item is conditional on that status; when that
 * condition fails, reads and decides again. Every change of a job's status goes through here.
 * A caller that has just read the job passes it as `read`, for the first decision: the
 * condition makes an older read as safe as a new one, and saves a round trip.
 */
export async function changeJobStatus<T>(
  organizationId: number,
  jobId: string,
  decide: (job: Job | undefined) => StatusStep<T>,
  read?: Job,
): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const step = decide(attempt === 1 && read ? read : await findJob(organizationId, jobId));
    if (!('write' in step)) return step.answer;
    try {
      await writeTransaction(step.write);
      return step.answer;
    } catch (error) {
      if (!(error instanceof TransactionRefused && error.failed('job')) || attempt >= MAX_STATUS_ATTEMPTS) throw error;
    }
  }
}

function existing(job: Job | undefined, organizationId: number, jobId: string): Job {
  if (!job) throw new Error(`Job ${jobId} of organization ${organizationId} does not exist`);
  return job;
}

/** queued → processing, once; a repeated call (a retried step) answers the processing job. */
export function markProcessing(organizationId: number, jobId: string, now = new Date()): Promise<Job> {
  return changeJobStatus(organizationId, jobId, (read): StatusStep<Job> => {
    const job = existing(read, organizationId, jobId);
    if (job.status === 'processing') return { answer: job };
    if (job.status !== 'queued') throw new JobAlreadyFinished(jobId);
    return {
      write: { job: jobProcessingUpdate(job, now), ...statusChangeWrites(job, 'processing') },
      answer: { ...job, status: 'processing', updatedAt: now.toISOString() },
    };
  });
}

/**
 * The first step of every workflow: queued → processing for a job of the type, or undefined when
 * the job has already ended (the execution then has nothing to do).
 */
export async function startJobWork<T extends JobType>(
  organizationId: number,
  jobId: string,
  type: T,
  now = new Date(),
): Promise<JobOf<T> | undefined> {
  let job: Job;
  try {
    job = await markProcessing(organizationId, jobId, now);
  } catch (error) {
    if (error instanceof JobAlreadyFinished) return undefined;
    throw error;
  }
  const typed = jobOfType(job, type);
  if (!typed) throw new Error(`Job ${jobId} is a ${job.type} job, not a ${type} job`);
  return typed;
}

/** What the call that ended a job reports of it. */
interface EndedJob {
  type: JobType;
  status: JobOutcome['status'];
  refund: number;
}

/**
 * The transaction that ends an active job with the outcome: the job takes its terminal state,
 * the concurrency slot is released, the refund is given back, the event for webhooks is written
 * and so is every output, and the job's list entries and usage counts move to the terminal
 * status. The job item is conditional on the status it was read in, so whichever of the job's
 * finishers (its own steps, the execution-ended task, the reconciler, a cancel) writes first is
 * the only one that does.
 */
function jobEnding(
  job: Job,
  outcome: JobOutcome,
  now: Date,
): { write: Record<string, TransactionItem>; answer: EndedJob } {
  const refund =
    outcome.status === 'completed'
      ? Math.min(job.credits.charged, outcome.refund ?? 0)
      : unfinishedJobRefund(job.credits.charged, outcome.delivered ?? NOTHING_DELIVERED);
  const items: Record<string, TransactionItem> = {
    job: jobEndingUpdate(job, outcome, refund, now),
    organization: slotReleaseUpdate(job.organizationId, job.type, refund),
    event: eventPut(newEvent(job.organizationId, endingEvent(job, outcome), now)),
    ...statusChangeWrites(job, outcome.status, { refunded: refund }),
  };
  for (const output of outcome.status === 'completed' ? outcome.outputs : []) {
    const name = `output:${output.name}`;
    if (name in items) throw new Error(`Job ${job.jobId} has two outputs named ${output.name}`);
    items[name] = output.write;
  }
  return { write: items, answer: { type: job.type, status: outcome.status, refund } };
}

/** Counts a job's end and its refund, once the transaction that ended it is written. */
function publishEnding(ended: EndedJob): void {
  putMetric('jobsEnded', 1, { JobType: ended.type, Outcome: ended.status });
  putMetric('creditsRefunded', ended.refund, { JobType: ended.type });
}

/**
 * The way a job's own work ends it (its steps, the execution-ended task, the reconciler): in one
 * transaction (jobEnding), a failed or expired job refunded for what it did not deliver
 * (refunds.ts). A job that has already ended, a cancelled one included, is left as it is. Answers
 * whether this call ended the job: the call that does, and only that one, counts the job's end and
 * its refund in the metrics. A caller that has just read the job passes it as `read`.
 */
export async function finishJob(
  organizationId: number,
  jobId: string,
  outcome: JobOutcome,
  now = new Date(),
  read?: Job,
): Promise<boolean> {
  const ended = await changeJobStatus(
    organizationId,
    jobId,
    (job): StatusStep<EndedJob | undefined> => {
      const found = existing(job, organizationId, jobId);
      return isActive(found) ? jobEnding(found, outcome, now) : { answer: undefined };
    },
    read,
  );
  if (!ended) return false;
  publishEnding(ended);
  return true;
}

/** How a job stopped from outside its work ends, and what it delivered before (refunds.ts). */
export interface StoppedOutcome {
  status: 'cancelled' | 'expired';
  error: JobError;
  delivered: DeliveredClips;
}

/** What stopping a job answers: the job as it is after the call, and whether this call stopped it. */
export interface StoppedJob {
  job: Job;
  stoppedNow: boolean;
}

/**
 * Ends a job from outside its work (a cancel, a passed deadline) with `outcome`. Unlike finishJob
 * it answers the job: as this call ended it, or as it already was when something else (its own
 * end, an earlier stop) came first.
 */
export async function stopJob(
  organizationId: number,
  jobId: string,
  outcome: StoppedOutcome,
  now = new Date(),
  read?: Job,
): Promise<StoppedJob | undefined> {
  const stopped = await changeJobStatus(
    organizationId,
    jobId,
    (job): StatusStep<{ ended?: EndedJob; job: Job } | undefined> => {
      if (!job) return { answer: undefined };
      if (!isActive(job)) return { answer: { job } };
      const { write, answer: ended } = jobEnding(job, outcome, now);
      const credits = { ...job.credits, refunded: ended.refund };
      return {
        write,
        answer: {
          ended,
          job: { ...job, status: outcome.status, updatedAt: now.toISOString(), error: outcome.error, credits },
        },
      };
    },
    read,
  );
  if (!stopped) return undefined;
  if (stopped.ended) publishEnding(stopped.ended);
  return { job: stopped.job, stoppedNow: stopped.ended !== undefined };
}
