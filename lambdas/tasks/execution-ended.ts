import type { EventBridgeEvent } from 'aws-lambda';
import { endJobOfExecution, type EndedExecution } from '#domain/jobs/execution-endings';

/** What the Step Functions status change event carries that the job's ending needs. */
export type ExecutionStatusChange = EventBridgeEvent<'Step Functions Execution Status Change', EndedExecution>;

export const handler = (event: ExecutionStatusChange) => endJobOfExecution(event.detail);
