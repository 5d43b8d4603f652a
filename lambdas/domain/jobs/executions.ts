import {
  ExecutionAlreadyExists,
  ExecutionDoesNotExist,
  SFNClient,
  StartExecutionCommand,
  StopExecutionCommand,
} from '@aws-sdk/client-sfn';
import { requiredSetting } from '#platform/settings';
import type { AnyJob } from './job';
import { JOB_STATE_MACHINES, jobExecutionInput } from './job-execution';

/**
 * Starting and stopping a job's execution, and nothing else: the create path (submit-job.ts) and
 * the reconciler start it and decide themselves what becomes of a job whose start is refused; a
 * cancel or a passed deadline stops it once the job has ended (stopping.ts).
 */

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
  try {
    await stepFunctions().send(
      new StartExecutionCommand({
        // The CDK app gives the ARN exactly to the functions granted to start the machine.
        stateMachineArn: requiredSetting(JOB_STATE_MACHINES[job.type].arnSetting),
        name: job.jobId,
        input: JSON.stringify(jobExecutionInput(job)),
      }),
    );
  } catch (error) {
    if (!(error instanceof ExecutionAlreadyExists)) throw error;
  }
}

/** The ARN of the job's execution: its state machine's, with the job id as the execution's name. */
function executionArnOf(job: Pick<AnyJob, 'jobId' | 'type'>): string {
  const stateMachineArn = requiredSetting(JOB_STATE_MACHINES[job.type].arnSetting);
  return `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${job.jobId}`;
}

/**
 * Stops the job's execution (it ends ABORTED). Without `error` and `cause`, which Step Functions
 * would encrypt with the execution's key. An execution that never started (its create died
 * before the start) has nothing to stop.
 */
export async function stopJobExecution(job: Pick<AnyJob, 'jobId' | 'type'>): Promise<void> {
  try {
    await stepFunctions().send(new StopExecutionCommand({ executionArn: executionArnOf(job) }));
  } catch (error) {
    if (!(error instanceof ExecutionDoesNotExist)) throw error;
  }
}
