import type { Context } from 'aws-lambda';
import { withLogContext, type LogFields } from './log';
import { optionalSetting, _X_AMZN_TRACE_ID } from './settings';

/**
 * The log context of one Lambda invocation: what joins its lines to each other, to Lambda's own
 * report lines (lambda_request_id) and to its X-Ray trace (trace_id). Workers and tasks get it
 * from the wrappers below; API requests from the request pipeline (lambdas/http/api-handler.ts).
 */

/**
 * The X-Ray trace id of the running invocation: the Root of _X_AMZN_TRACE_ID, which Lambda sets
 * for each invocation when tracing is active. Absent in the local stack.
 */
export function currentTraceId(): string | undefined {
  return /(?:^|;)Root=([^;]+)/.exec(optionalSetting(_X_AMZN_TRACE_ID) ?? '')?.[1];
}

/** The fields every line of an invocation carries. The local stack passes no context to workers and tasks. */
export function invocationFields(context: Pick<Context, 'awsRequestId'> | undefined): LogFields {
  return { lambda_request_id: context?.awsRequestId, trace_id: currentTraceId() };
}

/** What a workflow step's input says of its job: every worker's input starts with the execution's. */
function jobFieldsOf(input: unknown): LogFields {
  if (typeof input !== 'object' || input === null) return {};
  const { job_id: jobId, organization_id: organizationId } = input as Record<string, unknown>;
  return { job_id: jobId, organization_id: organizationId };
}

/**
 * A workflow worker's handler (`worker`: its module under lambdas/workers, as in the workflow
 * table): every line it logs names the worker, the invocation and the job.
 */
export function workerHandler<Input, Output>(worker: string, run: (input: Input) => Promise<Output>) {
  return (input: Input, context?: Context): Promise<Output> =>
    withLogContext({ worker, ...invocationFields(context), ...jobFieldsOf(input) }, () => run(input));
}

/**
 * A task's handler (`task`: its name in the task table): every line it logs names the task and
 * the invocation, and the job when the event is about one (`jobIdOf`).
 */
export function taskHandler<Event, Output>(
  task: string,
  run: (event: Event) => Promise<Output>,
  jobIdOf: (event: Event) => string | undefined = () => undefined,
) {
  return (event: Event, context?: Context): Promise<Output> =>
    withLogContext({ task, ...invocationFields(context), job_id: jobIdOf(event) }, () => run(event));
}
