import type { UnfinishedExecutionStatus } from '#domain/jobs/execution-endings';
import { RECONCILE_SCHEDULE } from '#domain/jobs/reconcile-schedule';
import type { Grant } from '#grants';
import { WORKFLOWS } from '#workflows';

/**
 * The task table: functions no request or workflow calls, each run by an event source that AWS
 * runs (a schedule, a rule on Step Functions executions). The CDK app builds each function and its
 * trigger from here; the local stack runs the same modules from pollers of its own. Only types and
 * constants come from the domain, so that reading the table (the CDK app, the local stack before
 * it sets its emulator endpoints) creates no SDK client.
 */

export type TaskTrigger =
  | { readonly kind: 'schedule'; readonly everyMinutes: number }
  /** A status change of an execution of any workflow of lambdas/workflows.ts to one of `statuses`. */
  | { readonly kind: 'execution-ended'; readonly statuses: readonly UnfinishedExecutionStatus[] };

export interface Task {
  readonly name: string;
  /** Module under lambdas/tasks that exports `handler`. */
  readonly handler: string;
  readonly trigger: TaskTrigger;
  readonly grants: readonly Grant[];
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
}

export const TASKS: readonly Task[] = [
  {
    name: 'reconcile-jobs',
    handler: 'reconcile-jobs',
    trigger: { kind: 'schedule', everyMinutes: RECONCILE_SCHEDULE.everyMinutes },
    // Starts the execution of any job type again.
    grants: WORKFLOWS.map((workflow) => workflow.startGrant),
    // Queries of a few index pages and one call per active job: small and short.
    memoryMb: 256,
    timeoutSeconds: 120,
  },
  {
    name: 'execution-ended',
    handler: 'execution-ended',
    trigger: { kind: 'execution-ended', statuses: ['FAILED', 'TIMED_OUT', 'ABORTED'] },
    grants: [],
    // One read and one transaction.
    memoryMb: 256,
    timeoutSeconds: 30,
  },
];
