import { SPLIT_JOB_STATE_MACHINE_ARN, VIDEO_JOB_STATE_MACHINE_ARN, type Setting } from '#platform/settings';
// Only the time-out of each ASL file: esbuild bundles no more of it into the functions that import this module.
import { TimeoutSeconds as SPLIT_JOB_TIMEOUT_SECONDS } from '../../../state-machines/split-job.asl.json';
import { TimeoutSeconds as VIDEO_JOB_TIMEOUT_SECONDS } from '../../../state-machines/video-job.asl.json';
import type { JobType } from './job';

/**
 * A job's execution: the state machine of its type that runs it, and what it carries from its start
 * to its last step, whichever workflow runs it: the start (executions.ts) builds the input, each
 * step's state carries it on, and the execution-ended task reads the job back out of it.
 */

/**
 * What the job core needs of the state machine that runs a job type's jobs: the workflow table
 * (lambdas/workflows.ts) builds each state machine with it, and the core starts, stops and bounds
 * executions with it.
 */
export interface JobStateMachine {
  /** The setting through which the functions granted to start or stop it find the state machine's ARN. */
  readonly arnSetting: Setting;
  /**
   * The ASL file's top-level TimeoutSeconds, imported from that file (the workflow table refuses a
   * definition with another): an execution still running then ends TIMED_OUT, and its job expires
   * through the execution-ended task. The reconciler's bound follows from it.
   */
  readonly executionTimeoutSeconds: number;
}

export const JOB_STATE_MACHINES: Readonly<Record<JobType, JobStateMachine>> = {
  video: { arnSetting: VIDEO_JOB_STATE_MACHINE_ARN, executionTimeoutSeconds: VIDEO_JOB_TIMEOUT_SECONDS },
  split: { arnSetting: SPLIT_JOB_STATE_MACHINE_ARN, executionTimeoutSeconds: SPLIT_JOB_TIMEOUT_SECONDS },
};

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
