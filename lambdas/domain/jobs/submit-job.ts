import { log } from '#platform/log';
import { startJobExecution } from './executions';
import type { AnyJob, JobOf, JobType } from './job';
import { JOB_ERRORS } from './job-errors';
import { createJob, finishJob, type NewJob } from './lifecycle';

/**
 * How a create route hands a job to the job core: the create transaction (lifecycle.ts), then the
 * start of its execution (executions.ts), and the finish when that start is refused. This module
 * uses both; neither of them calls the other.
 */

/**
 * Starts the job, or, if Step Functions refuses, ends it failed at once (refunded, slot released)
 * rather than leaving it queued. If that fails too, the job stays queued for the reconciler.
 */
async function startOrEnd(job: Pick<AnyJob, 'organizationId' | 'jobId' | 'type'>): Promise<void> {
  try {
    await startJobExecution(job);
  } catch (startError) {
    await finishJob(job.organizationId, job.jobId, {
      status: 'failed',
      error: JOB_ERRORS.startFailed,
    }).catch((finishError: unknown) =>
      log('warn', 'A job that could not be started could not be ended either; the reconciler will', {
        job_id: job.jobId,
        error: finishError,
      }),
    );
    throw startError;
  }
}

/**
 * Creates the job (or finds the one its Idempotency-Key already created) and starts it. A replay
 * whose job is still queued starts it again: the first request may have ended between its commit
 * and its start.
 */
export async function submitJob<T extends JobType>(request: NewJob<T>): Promise<JobOf<T>> {
  const { job, replayed } = await createJob(request);
  if (!replayed || job.status === 'queued') await startOrEnd(job);
  return job;
}
