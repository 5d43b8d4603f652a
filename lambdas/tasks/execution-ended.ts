import type { EventBridgeEvent } from 'aws-lambda';
import { endJobOfExecution, type EndedExecution } from '#domain/jobs/execution-endings';
import { JOB_CLIPS } from '#domain/split-jobs/clip-store';
import { taskHandler } from '#platform/invocation';

/** What the Step Functions status change event carries that the job's ending needs. */
export type ExecutionStatusChange = EventBridgeEvent<'Step Functions Execution Status Change', EndedExecution>;

export const handler = taskHandler(
  'execution-ended',
  (event: ExecutionStatusChange) => endJobOfExecution(JOB_CLIPS, event.detail),
  // Every job execution is named after its job (lambdas/domain/jobs/executions.ts); the name ends its ARN.
  (event) => event.detail?.executionArn?.split(':').at(-1),
);
