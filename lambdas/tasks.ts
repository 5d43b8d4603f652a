import { EVENT_STREAM_FILTER } from '#domain/events/event-stream';
import { LIFECYCLE_WATCH_SCHEDULE } from '#domain/models/model-registry';
import type { UnfinishedExecutionStatus } from '#domain/jobs/execution-endings';
import { RECONCILE_SCHEDULE } from '#domain/jobs/reconcile-schedule';
import { SWEEP_SCHEDULE } from '#domain/webhooks/sweep-schedule';
import type { Grant, TableAccess } from '#grants';
import type { NamedIn, SettingSourceNames } from '#platform/settings';
import { queueNamed, VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT, type Queue, type QueueName } from '#queues';
import { WORKFLOWS } from '#workflows';

/**
 * The task table: functions no request or workflow calls, each run by an event source that AWS
 * runs (a schedule, a rule on Step Functions executions, the table's stream, a queue). The CDK app builds each function and its
 * trigger from here; the local stack runs the same modules from pollers of its own. Only types and
 * constants come from the domain, so that reading the table (the CDK app, the local stack before
 * it sets its emulator endpoints) creates no SDK client.
 */

export type TaskTrigger =
  | { readonly kind: 'schedule'; readonly everyMinutes: number }
  /** A status change of an execution of any workflow of lambdas/workflows.ts to one of `statuses`. */
  | { readonly kind: 'execution-ended'; readonly statuses: readonly UnfinishedExecutionStatus[] }
  /**
   * The table's stream (new images), the records matching `filter` (a Lambda event filter
   * pattern), in batches of at most `batchSize`; the handler answers a partial batch response.
   */
  | { readonly kind: 'table-stream'; readonly filter: object; readonly batchSize: number }
  /** A queue of lambdas/queues.ts, in batches of at most `batchSize`; the handler answers a partial batch response. */
  | {
      readonly kind: 'queue';
      readonly queue: QueueName;
      readonly batchSize: number;
      /** Concurrent invocations at most: the pace at which the queue is drained. */
      readonly maxConcurrency: number;
    };

/**
 * Groups of settings a task reads (their variables are the entries of lambdas/platform/settings.ts
 * whose source names the group); the CDK app and the local stack each fill them in.
 */
export type TaskSetting = 'webhook-delivery';

/** The groups lambdas/platform/settings.ts names as set by tasks: each one a TaskSetting. */
export type SettingTaskSettings = NamedIn<SettingSourceNames['task-setting'], TaskSetting>;

/** `table` is what the task does with the table, `grants` what it may touch in AWS beyond it. */
export interface Task extends TableAccess {
  readonly name: string;
  /** Module under lambdas/tasks that exports `handler`. */
  readonly handler: string;
  readonly trigger: TaskTrigger;
  readonly grants: readonly Grant[];
  readonly settings?: readonly TaskSetting[];
  readonly memoryMb: number;
  readonly timeoutSeconds: number;
}

const webhookDeliveries = queueNamed('webhook-deliveries');

export const TASKS: readonly Task[] = [
  {
    name: 'reconcile-jobs',
    handler: 'reconcile-jobs',
    trigger: { kind: 'schedule', everyMinutes: RECONCILE_SCHEDULE.everyMinutes },
    // Reads each active job for its deadline, and the clips of a split job it expires or ends.
    table: ['GetItem', 'Query', 'UpdateItem', 'PutItem', 'DeleteItem'],
    tableIndexes: ['active-jobs'],
    // Starts the execution of any job type again; stops the execution of a job past its deadline.
    grants: WORKFLOWS.flatMap((workflow) => [workflow.startGrant, workflow.stopGrant]),
    // Queries of a few index pages and one call per active job: small and short.
    memoryMb: 256,
    timeoutSeconds: 120,
  },
  {
    name: 'execution-ended',
    handler: 'execution-ended',
    trigger: { kind: 'execution-ended', statuses: ['FAILED', 'TIMED_OUT', 'ABORTED'] },
    // Reads the job, and the clips of a split job, which it fails before it ends the job.
    table: ['GetItem', 'Query', 'UpdateItem', 'PutItem', 'DeleteItem'],
    grants: [],
    // One read, a query of at most ten clips, their updates and one transaction.
    memoryMb: 256,
    timeoutSeconds: 30,
  },
  {
    name: 'relay-events',
    handler: 'relay-events',
    trigger: { kind: 'table-stream', filter: EVENT_STREAM_FILTER, batchSize: 25 },
    table: ['Query', 'UpdateItem', 'PutItem'],
    // Records each event's deliveries and queues them.
    grants: [webhookDeliveries.sendGrant],
    // A Query of the organization's endpoints and a transaction per delivery, for each event.
    memoryMb: 256,
    timeoutSeconds: 60,
  },
  {
    name: 'deliver-webhooks',
    handler: 'deliver-webhooks',
    trigger: { kind: 'queue', queue: 'webhook-deliveries', batchSize: 10, maxConcurrency: 20 },
    table: ['GetItem', 'UpdateItem'],
    // Unwraps endpoints' signing secrets; queues the next attempt of a failed delivery.
    grants: ['kms.webhook-secrets:decrypt', webhookDeliveries.sendGrant],
    settings: ['webhook-delivery'],
    // The attempts of a batch run side by side, each bounded by the response time-out.
    memoryMb: 256,
    timeoutSeconds: 30,
  },
  {
    name: 'sweep-webhooks',
    handler: 'sweep-webhooks',
    trigger: { kind: 'schedule', everyMinutes: SWEEP_SCHEDULE.everyMinutes },
    // The outbox index finds what is overdue; relaying an event queries its organization's endpoints.
    table: ['GetItem', 'Query', 'UpdateItem', 'PutItem'],
    tableIndexes: ['outbox'],
    // Relays events the stream missed and queues deliveries whose attempt is overdue.
    grants: [webhookDeliveries.sendGrant],
    settings: ['webhook-delivery'],
    memoryMb: 256,
    timeoutSeconds: 120,
  },
  {
    name: 'watch-model-lifecycle',
    handler: 'watch-model-lifecycle',
    trigger: { kind: 'schedule', everyMinutes: LIFECYCLE_WATCH_SCHEDULE.everyMinutes },
    table: [],
    // GetFoundationModel of the configured video model and text model, whose ids the grant sets.
    grants: ['bedrock-control.models:describe'],
    // One Bedrock call per configured model.
    memoryMb: 256,
    timeoutSeconds: 30,
  },
];

/** The task whose trigger is this queue; a queue needs exactly one, or the CDK app and the local stack refuse to start. */
export function consumerOf(queue: Pick<Queue, 'name'>, tasks: readonly Task[] = TASKS): Task {
  const consumers = tasks.filter((task) => task.trigger.kind === 'queue' && task.trigger.queue === queue.name);
  if (consumers.length !== 1) {
    throw new Error(
      `The queue ${queue.name} needs exactly one task of lambdas/tasks.ts triggered by it ({ kind: 'queue', queue: '${queue.name}' }), found ${consumers.length}.`,
    );
  }
  return consumers[0]!;
}

/** The queue's visibility timeout: six times its consumer's timeout. */
export function visibilityTimeoutSecondsOf(queue: Pick<Queue, 'name'>, tasks: readonly Task[] = TASKS): number {
  return VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT * consumerOf(queue, tasks).timeoutSeconds;
}
