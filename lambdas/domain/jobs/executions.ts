import { ExecutionAlreadyExists, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { stepFunctions } from '#platform/clients/step-functions';
import { workflowOfJobType, type Workflow } from '#workflows';
import type { AnyJob, JobOf, JobType } from './job';
import { createJob, finishJob, type NewJob } from './lifecycle';

/** The state machine's ARN, which the CDK app gives exactly the functions granted to start it. */
function stateMachineArn(workflow: Workflow): string {
  const arn = process.env[workflow.arnEnvironmentVariable];
  if (!arn) throw new Error(`${workflow.arnEnvironmentVariable} is not set`);
  return arn;
}

/**
 * Hands the job to its type's state machine, in an execution named after the job so that a
 * second start cannot run it twice. If Step Functions refuses, the job ends failed at once
 * (refunded, slot released) rather than waiting in `queued` for ever.
 */
export async function startJobExecution(job: Pick<AnyJob, 'organizationId' | 'jobId' | 'type'>): Promise<void> {
  const workflow = workflowOfJobType(job.type);
  try {
    await stepFunctions.send(
      new StartExecutionCommand({
        stateMachineArn: stateMachineArn(workflow),
        name: job.jobId,
        input: JSON.stringify(workflow.executionInput(job)),
      }),
    );
  } catch (error) {
    if (error instanceof ExecutionAlreadyExists) return;
    await finishJob(job.organizationId, job.jobId, {
      status: 'failed',
      error: { code: 'START_FAILED', message: 'The job could not be started; its credits were refunded.' },
    });
    throw error;
  }
}

/** Creates the job (or finds the one its Idempotency-Key already created) and starts a new one. */
export async function submitJob<T extends JobType>(request: NewJob<T>): Promise<JobOf<T>> {
  const { job, replayed } = await createJob(request);
  if (!replayed) await startJobExecution(job);
  return job;
}
