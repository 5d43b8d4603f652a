import { ApiError } from '#platform/errors';
import { isSortableId, timeOfSortableId } from '#platform/ids';
import { jobOfType, type Job, type JobOf, type JobType } from './job';
import { findJob } from './job-store';
import { JOB_TYPE_NAMES, JOB_TYPES } from './job-types';

/**
 * The job, if `jobId` has the shape of an id of one of `types` (anything else names nothing of
 * ours and is not looked up).
 */
async function findJobOfTypes(organizationId: number, jobId: string, types: readonly JobType[]) {
  const ours = types.some((type) => isSortableId(JOB_TYPES[type].idPrefix, jobId));
  return ours ? findJob(organizationId, jobId) : undefined;
}

/** The millisecond a job was created in, read from its id; undefined for an id that is not a job's. */
export function jobCreationTime(jobId: string): number | undefined {
  const type = JOB_TYPE_NAMES.find((candidate) => isSortableId(JOB_TYPES[candidate].idPrefix, jobId));
  return type === undefined ? undefined : timeOfSortableId(JOB_TYPES[type].idPrefix, jobId);
}

/** Another organization's job, one of another type and a missing one all look the same: not found. */
export async function getJobOfType<T extends JobType>(
  organizationId: number,
  jobId: string,
  type: T,
): Promise<JobOf<T>> {
  const job = jobOfType(await findJobOfTypes(organizationId, jobId, [type]), type);
  if (!job) throw new ApiError('JOB_NOT_FOUND', `No ${type} job ${jobId} exists.`);
  return job;
}

/** A job of either type by id; another organization's, or any id not of ours, is not found. */
export async function getAnyJob(organizationId: number, jobId: string): Promise<Job> {
  const job = await findJobOfTypes(organizationId, jobId, JOB_TYPE_NAMES);
  if (!job) throw new ApiError('JOB_NOT_FOUND', `No job ${jobId} exists.`);
  return job;
}

const TYPE_LABELS: Readonly<Record<JobType, string>> = { video: 'Video job', split: 'Split job' };

/** A job of the type whose result routes can answer: 409 JOB_NOT_READY while it runs, JOB_FAILED when it did not complete. */
export async function getCompletedJobOfType<T extends JobType>(
  organizationId: number,
  jobId: string,
  type: T,
): Promise<JobOf<T>> {
  const job = await getJobOfType(organizationId, jobId, type);
  if (job.status === 'queued' || job.status === 'processing') {
    throw new ApiError(
      'JOB_NOT_READY',
      `${TYPE_LABELS[type]} ${jobId} is ${job.status} (${job.progress}% done); poll it and try again when completed.`,
    );
  }
  if (job.status !== 'completed') {
    throw new ApiError(
      'JOB_FAILED',
      `${TYPE_LABELS[type]} ${jobId} ended ${job.status} and has no result${job.error ? `: ${job.error.message}` : '.'}`,
    );
  }
  return job;
}
