/**
 * What a job's execution carries from its start to its last step, whichever workflow runs it: the
 * workflow table builds the input from it, each step's state carries it on, and the
 * execution-ended task reads the job back out of it.
 */

/** What every job execution starts with; each step's state carries it on. */
export interface JobExecutionInput {
  organization_id: number;
  job_id: string;
}

/** The input of the execution that runs the job. */
export function jobExecutionInput(job: { organizationId: number; jobId: string }): JobExecutionInput {
  return { organization_id: job.organizationId, job_id: job.jobId };
}

/** Just the execution's input out of a step's state: what a step's answer starts from. */
export function executionInputOf(state: JobExecutionInput): JobExecutionInput {
  return { organization_id: state.organization_id, job_id: state.job_id };
}
