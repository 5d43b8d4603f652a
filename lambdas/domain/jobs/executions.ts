import { ExecutionAlreadyExists, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { log } from '#platform/log';
import { requiredSetting } from '#platform/settings';
import { workflowOfJobType } from '#workflows';
import type { AnyJob, JobOf, JobType } from './job';
import { JOB_ERRORS } from './job-errors';
import { createJob, finishJob, type NewJob } from './lifecycle';

let client: SFNClient | undefined;

/** One client per container, made on first use. */
export function stepFunctions(): SFNClient {
  client ??= new SFNClient({});
  return client;
}

/**
 * Hands the job to its type's state machine, in an execution named after the job with the same
 * input every time. So starting it again is harmless: Step Functions answers a second start of a
 * running execution like the first, and refuses one of an execution that has ended.
 */
export async function startJobExecution(job: Pick<AnyJob, 'organizationId' | 'jobId' | 'type'>): Promise<void> {
  const workflow = workflowOfJobType(job.type);
  try {
    await stepFunctions().send(
      new StartExecutionCommand({
        // The CDK app gives the ARN exactly to the functions granted to start the machine.
        stateMachineArn: requiredSetting(workflow.arnSetting),
        name: job.jobId,
        input: JSON.stringify(workflow.executionInput(job)),
      }),
    );
  } catch (error) {
    if (!(error instanceof ExecutionAlreadyExists)) throw error;
  }
}

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
