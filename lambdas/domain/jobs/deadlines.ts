import { isActive, type AnyJob } from './job';
import type { JobClips } from './job-clips';
import { JOB_ERRORS } from './job-errors';
import { findJob } from './job-store';
import { endJobFromOutside } from './stopping';

/**
 * A job's optional `deadline_seconds`: still active that long after its creation, it becomes
 * `expired`, refunded like a cancelled job (refunds.ts), with a `job.failed` event like any other
 * expiry. The reconciler (reconciler.ts) applies it on its schedule, so a job expires at most one
 * schedule period after its deadline, in AWS and locally alike.
 */

/** When the job expires if it is still active then; undefined without a deadline. */
export function deadlineOf(job: Pick<AnyJob, 'createdAt' | 'input'>): Date | undefined {
  const seconds = job.input.deadline_seconds;
  return seconds === undefined ? undefined : new Date(Date.parse(job.createdAt) + seconds * 1000);
}

/** Expires the job if it is still active at `now` and its deadline has passed; answers whether this call did. */
export async function expireJobPastDeadline(
  jobClips: JobClips,
  organizationId: number,
  jobId: string,
  now = new Date(),
): Promise<boolean> {
  const job = await findJob(organizationId, jobId);
  const deadline = job && isActive(job) ? deadlineOf(job) : undefined;
  if (!job || !deadline || deadline > now) return false;
  return (await endJobFromOutside(jobClips, job, 'expired', JOB_ERRORS.deadlineExceeded, now)).stoppedNow;
}
