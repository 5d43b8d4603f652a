import { log } from '#platform/log';
import { stopJobExecution } from './executions';
import { asJob, type AnyJob, type JobError } from './job';
import type { ClipsRead, JobClips } from './job-clips';
import { stopJob, type StoppedJob } from './lifecycle';

/**
 * Ending a job from outside its work, for a cancel (cancellation.ts) or a passed deadline
 * (deadlines.ts): the job ends in one conditional transaction, refunded for what it did not
 * deliver (refunds.ts; its clips read through `jobClips`); then its unfinished clips are failed and
 * its execution stopped.
 */

/**
 * Ends the active job `cancelled` or `expired` with `error`, and answers it as it is afterwards
 * (as something else ended it, if that came first). A clip that completes between the read of
 * the clips and the transaction is refunded all the same: the customer's favour.
 */
export async function endJobFromOutside(
  jobClips: JobClips,
  job: AnyJob,
  status: 'cancelled' | 'expired',
  error: JobError,
  now = new Date(),
): Promise<StoppedJob> {
  const clips = await jobClips.read(job);
  const stopped = await stopJob(
    job.organizationId,
    job.jobId,
    { status, error, delivered: clips.delivered },
    now,
    asJob(job),
  );
  if (!stopped) throw new Error(`Job ${job.jobId} of organization ${job.organizationId} disappeared`);
  if (stopped.stoppedNow) await stopWork(stopped.job, clips, error);
  return stopped;
}

/**
 * What still runs of a job just ended: clips not finished are failed, so that a render finishing
 * late cannot make one completed that was refunded, and the execution is stopped. Both can fail
 * without harm: every step of a workflow first checks that its job is still active, and the
 * execution-ended task leaves an ended job as it is, so the execution ends at its next step.
 */
async function stopWork(job: AnyJob, clips: ClipsRead, error: JobError): Promise<void> {
  try {
    await clips.failUnfinished(error);
    await stopJobExecution(job);
  } catch (cause) {
    log('warn', "A stopped job's work could not be stopped; it ends at its next step", {
      job_id: job.jobId,
      error: cause,
    });
  }
}
