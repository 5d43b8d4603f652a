import * as path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { Construct } from 'constructs';
import { TASKS, type Task } from '#tasks';
import { constructIdOf } from './construct-ids';
import { applyGrants, type ApiStateMachines } from './grants';
import type { DataTable } from './data-table';
import type { MediaBucket } from './media-bucket';
import { NodeFunction, PROJECT_ROOT } from './node-function';

/** Where task modules live; a task's `handler` names a module below it. */
export const TASKS_DIR = path.join(PROJECT_ROOT, 'lambdas', 'tasks');

export interface TaskFunctionsProps {
  readonly table: DataTable;
  readonly media: MediaBucket;
  /** Every workflow's state machine: tasks may start them, and the execution-ended rule watches them. */
  readonly stateMachines: ApiStateMachines;
  readonly tasks?: readonly Task[];
  readonly logLevel?: string;
}

/**
 * The tasks of lambdas/tasks.ts: a function each, granted the table and its declared access, and
 * the EventBridge rule that runs it. A rule's target retries a failed invocation (EventBridge's
 * default policy: for 24 hours, up to 185 times); what still escapes it, the reconciler finds.
 */
export class TaskFunctions extends Construct {
  /** By task name (`reconcile-jobs`). */
  public readonly functions: ReadonlyMap<string, NodeFunction>;
  public readonly rules: ReadonlyMap<string, events.Rule>;

  constructor(scope: Construct, id: string, props: TaskFunctionsProps) {
    super(scope, id);
    const functions = new Map<string, NodeFunction>();
    const rules = new Map<string, events.Rule>();
    for (const task of props.tasks ?? TASKS) {
      const constructId = constructIdOf(task.name);
      const fn = new NodeFunction(this, `${constructId}Function`, {
        entry: path.join(TASKS_DIR, `${task.handler}.ts`),
        description: `Task ${task.name} (lambdas/tasks/${task.handler}.ts)`,
        purpose: `task ${task.name}`,
        memorySize: task.memoryMb,
        timeout: Duration.seconds(task.timeoutSeconds),
        tableName: props.table.tableName,
        mediaBucketName: props.media.bucketName,
        logLevel: props.logLevel,
      });
      props.table.grantTo(fn, 'RW');
      applyGrants(task.grants, {
        fn,
        who: `Task ${task.name}`,
        media: props.media,
        stateMachines: props.stateMachines,
      });
      const rule = new events.Rule(this, `${constructId}Rule`, {
        description: `Runs the ${task.name} task`,
        ...triggerOf(task, props.stateMachines),
        targets: [new targets.LambdaFunction(fn)],
      });
      functions.set(task.name, fn);
      rules.set(task.name, rule);
    }
    this.functions = functions;
    this.rules = rules;
  }
}

function triggerOf(task: Task, stateMachines: ApiStateMachines): Pick<events.RuleProps, 'schedule' | 'eventPattern'> {
  switch (task.trigger.kind) {
    case 'schedule':
      return { schedule: events.Schedule.rate(Duration.minutes(task.trigger.everyMinutes)) };
    case 'execution-ended':
      return {
        eventPattern: {
          source: ['aws.states'],
          detailType: ['Step Functions Execution Status Change'],
          detail: {
            status: [...task.trigger.statuses],
            stateMachineArn: Object.values(stateMachines).map((stateMachine) => stateMachine.stateMachineArn),
          },
        },
      };
  }
}
