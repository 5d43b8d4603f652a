import { isActive, type JobError } from './job';
import type { JobClips } from './job-clips';
import type { JobExecutionInput } from './job-execution';
import { JOB_ERRORS } from './job-errors';
import { findJob } from './job-store';
import { finishJob } from './lifecycle';

/** The ways an execution can end without having finished its job on its own. */
export type UnfinishedExecutionStatus = 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface EndedExecution {
  executionArn: string;
  status: UnfinishedExecutionStatus;
  /** The execution's input as started (JSON); Step Functions sends it with the status change. */
  input: string | null | undefined;
}

/** How a job whose execution ended, or was lost, without finishing it ends. */
export interface UnfinishedOutcome {
  status: 'failed' | 'expired';
  error: JobError;
}

/**
 * Ends the job of an execution that failed, timed out or was stopped: `expired` when it ran out
 * of time, `failed` otherwise (endUnfinishedJob).
 */
export async function endJobOfExecution(jobClips: JobClips, execution: EndedExecution): Promise<void> {
  if (!execution.input) throw new Error(`Execution ${execution.executionArn} ended without its input`);
  const { organization_id: organizationId, job_id: jobId } = JSON.parse(execution.input) as JobExecutionInput;
  await endUnfinishedJob(
    jobClips,
    organizationId,
    jobId,
    execution.status === 'TIMED_OUT'
      ? { status: 'expired', error: JOB_ERRORS.timedOut }
      : { status: 'failed', error: JOB_ERRORS.internal },
  );
}

/**
 * Ends a job whose execution ended or was lost without finishing it (the execution-ended task, the
 * reconciler), through the job core's finish, refunded for what it did not deliver: a split job
 * keeps the price of its completed clips (refunds.ts; its clips read through `jobClips`). Its
 * clips still pending or rendering are failed first, so that a render finishing late cannot complete a clip that was refunded; were
 * that to fail, the job would stay active for the next attempt to end. A job that has already
 * ended (its last step ran, then something failed; a cancel came first) is left as it is.
 */
export async function endUnfinishedJob(
  jobClips: JobClips,
  organizationId: number,
  jobId: string,
  outcome: UnfinishedOutcome,
  now = new Date(),
): Promise<void> {
  const job = await findJob(organizationId, jobId);
  if (!job) throw new Error(`Job ${jobId} of organization ${organizationId} does not exist`);
  if (!isActive(job)) return;
  const clips = await jobClips.read(job);
  await clips.failUnfinished(outcome.error, now);
  await finishJob(organizationId, jobId, { ...outcome, delivered: clips.delivered }, now, job);
}
