import type { JobExecutionInput } from './job-execution';
import { JOB_ERRORS } from './job-errors';
import { finishJob } from './lifecycle';

/** The ways an execution can end without having finished its job on its own. */
export type UnfinishedExecutionStatus = 'FAILED' | 'TIMED_OUT' | 'ABORTED';

export interface EndedExecution {
  executionArn: string;
  status: UnfinishedExecutionStatus;
  /** The execution's input as started (JSON); Step Functions sends it with the status change. */
  input: string | null | undefined;
}

/**
 * Ends the job of an execution that failed, timed out or was stopped, through the job core's
 * finish: `expired` when it ran out of time, `failed` otherwise, refunded either way. A job the
 * execution did finish (its last step ran, then something failed) is left as it is.
 */
export async function endJobOfExecution(execution: EndedExecution): Promise<void> {
  if (!execution.input) throw new Error(`Execution ${execution.executionArn} ended without its input`);
  const { organization_id: organizationId, job_id: jobId } = JSON.parse(execution.input) as JobExecutionInput;
  await finishJob(
    organizationId,
    jobId,
    execution.status === 'TIMED_OUT'
      ? { status: 'expired', error: JOB_ERRORS.timedOut }
      : { status: 'failed', error: JOB_ERRORS.internal },
  );
}
