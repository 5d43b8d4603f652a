import type {
  JobCredits,
  JobError,
  JobMetadata,
  JobStage,
  JobStatus,
  JobType,
  SplitJobInput,
  VideoJobInput,
} from '#contract/types';

export type { JobError, JobMetadata, JobStatus, JobType };

/** The stages of a processing job; `queued` and the end (null) follow from its status alone. */
export type WorkStage = Exclude<JobStage, 'queued' | null>;

/** The stage a job of each type enters as it starts processing. */
export const FIRST_WORK_STAGES: Readonly<Record<JobType, WorkStage>> = { video: 'rendering', split: 'preparing' };

/** Every job status, in the order of the contract's enum. */
export const JOB_STATUSES: readonly JobStatus[] = [
  'queued',
  'processing',
  'completed',
  'failed',
  'cancelled',
  'expired',
];

/** Jobs in these states hold a concurrency slot and their charge. */
export const ACTIVE_STATUSES: readonly JobStatus[] = ['queued', 'processing'];

/** What a job of each type was asked to do: the accepted request without metadata, defaults applied. */
export interface JobInputs {
  video: VideoJobInput;
  split: SplitJobInput;
}

interface JobFields {
  jobId: string;
  organizationId: number;
  status: JobStatus;
  progress: number;
  /** The stage a processing job last entered; null until it starts, and for jobs from before stages were recorded. */
  workStage: WorkStage | null;
  createdAt: string;
  updatedAt: string;
  credits: JobCredits;
  metadata: JobMetadata | null;
  /** The asset the job produced (a video job's render), once known. */
  outputAssetId: string | null;
  error: JobError | null;
  /** Internal: the id of the work at the provider that does it; never exposed. */
  providerJobId: string | null;
  /** A completed split job's completed clips; null for every other job. */
  clipsCount: number | null;
  /** The public prefix of the API key that created the job; null for jobs from before keys were recorded. */
  createdByKey: string | null;
  /**
   * The job has its entries in the job list and its counts in the usage aggregates, moved in
   * every transaction that changes its status. Jobs written before those existed get them from
   * the migration (scripts/admin.ts `migrate`); until then their changes leave both alone.
   */
  tracked: boolean;
}

/** A job of one type, its input typed by that type. */
export type JobOf<T extends JobType> = JobFields & { type: T; input: JobInputs[T] };
/** A job of any one type: `type` tells which, and narrows `input`. */
export type Job = JobOf<'video'> | JobOf<'split'>;
/** Any job, its type and input not tied together: what code generic over the job type handles. */
export type AnyJob = JobOf<JobType>;

/** Any job as the union `type` narrows, which it always is: its type and input were stored together. */
export const asJob = (job: AnyJob): Job => job as Job;

function isOfType<T extends JobType>(job: AnyJob, type: T): job is JobOf<T> {
  return job.type === type;
}

/** The job if it is of the given type. */
export function jobOfType<T extends JobType>(job: Job | undefined, type: T): JobOf<T> | undefined {
  return job && isOfType(job, type) ? job : undefined;
}

export function isActive(job: Pick<Job, 'status'>): boolean {
  return ACTIVE_STATUSES.includes(job.status);
}

/** The stage the API shows: `queued` while queued, the work's stage while processing, null once ended. */
export function stageOf(job: Pick<Job, 'status' | 'type' | 'workStage'>): JobStage {
  if (job.status === 'queued') return 'queued';
  if (job.status === 'processing') return job.workStage ?? FIRST_WORK_STAGES[job.type];
  return null;
}
