import { StopExecutionCommand, type SFNClient } from '@aws-sdk/client-sfn';
import type { JobType } from '#contract/types';
import { requiredSetting } from '#platform/settings';
import { workflowOfJobType } from '#workflows';

/**
 * Stops the execution of a job the bench created to measure its create: a `[fault:stall]` render
 * would otherwise poll until its deadline, and a split job would analyse and render its source,
 * under every later measurement. An execution is named after its job (startJobExecution).
 */
export async function stopExecutionOfJob(client: SFNClient, type: JobType, jobId: string): Promise<void> {
  const stateMachineArn = requiredSetting(workflowOfJobType(type).arnSetting);
  await client.send(
    new StopExecutionCommand({ executionArn: `${stateMachineArn.replace(':stateMachine:', ':execution:')}:${jobId}` }),
  );
}
