import type { Caller } from '#domain/access/authentication';
import { ApiError } from '#platform/errors';
import { jobOfType, type AnyJob, type Job, type JobOf, type JobType } from './job';
import type { JobClips } from './job-clips';
import { JOB_ERRORS } from './job-errors';
import { JOB_TYPES } from './job-types';
import { getAnyJob, getJobOfType } from './jobs';
import { endJobFromOutside } from './stopping';

/**
 * Cancelling a job: a queued or processing one becomes `cancelled` (stopping.ts); one already
 * cancelled is answered as it is, so a repeated cancel refunds nothing twice; one that ended
 * otherwise cannot be cancelled.
 */

async function cancel(jobClips: JobClips, job: AnyJob, now: Date): Promise<Job> {
  const { job: ended } = await endJobFromOutside(jobClips, job, 'cancelled', JOB_ERRORS.cancelled, now);
  if (ended.status !== 'cancelled') {
    throw new ApiError(
      'JOB_ALREADY_ENDED',
      `Job ${job.jobId} already ended ${ended.status}; only queued or processing jobs can be cancelled.`,
    );
  }
  return ended;
}

/** The typed routes: a job of another type is not found, as by their GET. */
export async function cancelJobOfType<T extends JobType>(
  jobClips: JobClips,
  organizationId: number,
  jobId: string,
  type: T,
  now = new Date(),
): Promise<JobOf<T>> {
  const cancelled = jobOfType(await cancel(jobClips, await getJobOfType(organizationId, jobId, type), now), type);
  if (!cancelled) throw new Error(`Job ${jobId} changed type while it was cancelled`);
  return cancelled;
}

/**
 * The unified route: the key needs the scope that creates jobs of the job's type. The job is
 * looked up first, so another organization's job is not found whatever the key may do.
 */
export async function cancelAnyJob(jobClips: JobClips, caller: Caller, jobId: string, now = new Date()): Promise<Job> {
  const job = await getAnyJob(caller.organization.organizationId, jobId);
  const scope = JOB_TYPES[job.type].createScope;
  if (!caller.apiKey.scopes.includes(scope)) {
    throw new ApiError(
      'INSUFFICIENT_SCOPE',
      `This API key lacks the scope '${scope}' that cancelling a ${job.type} job requires.`,
    );
  }
  return cancel(jobClips, job, now);
}
