import * as path from 'node:path';
import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { TextModelEntry, VideoModelEntry } from '#domain/models/model-registry';
import { DEVELOPER_WEBHOOK_DELIVERY_ENABLED } from '#platform/settings';
import { TASKS, type Task, type TaskSetting } from '#tasks';
import { constructIdOf } from './construct-ids';
import { applyGrants, type ApiStateMachines } from './grants';
import type { DataTable } from './data-table';
import type { Governance } from './governance';
import type { MediaBucket } from './media-bucket';
import { NodeFunction, PROJECT_ROOT } from './node-function';
import { deadLetterQueue, type QueuesByName } from './queues';
import type { WebhookSecretsKey } from './webhook-secrets-key';

/** Where task modules live; a task's `handler` names a module below it. */
export const TASKS_DIR = path.join(PROJECT_ROOT, 'lambdas', 'tasks');

/**
 * How often Lambda retries a stream batch that fails (after bisecting it) before it gives the
 * batch up to the task's failures queue and moves on: enough to ride out a throttled table or a
 * deployment, few enough that one bad record does not hold its shard back for long.
 */
export const STREAM_RETRY_ATTEMPTS = 10;

/** DynamoDB Streams keep a record 24 hours; no retry is worth making past that. */
export const STREAM_MAX_RECORD_AGE = Duration.hours(24);

export interface TaskFunctionsProps {
  readonly table: DataTable;
  readonly media: MediaBucket;
  /** Every workflow's state machine: tasks may start them, and the execution-ended rule watches them. */
  readonly stateMachines: ApiStateMachines;
  /** The queues of lambdas/queues.ts: tasks send to them and are triggered by them. */
  readonly queues?: QueuesByName;
  /** The key that wraps webhook signing secrets, for the tasks granted to use it. */
  readonly webhookSecretsKey?: WebhookSecretsKey;
  /** The configured video model, for the tasks that watch it. */
  readonly videoModel?: VideoModelEntry;
  /** The configured text model, when the deployment has a language model: watched alike. */
  readonly textModel?: TextModelEntry;
  /** The `webhook-delivery` setting: whether deliveries are attempted (the spec's feature flag). */
  readonly webhookDelivery?: { readonly enabled: boolean };
  readonly tasks?: readonly Task[];
  readonly logLevel?: string;
  /** Of every task's log group; a month unless told. */
  readonly logRetention?: logs.RetentionDays;
  /** The governed profile: every task in its network, every log group encrypted with its key. */
  readonly governance?: Governance;
}

/**
 * The tasks of lambdas/tasks.ts: a function each, granted its declared table actions and grants, and
 * what runs it. Schedules and execution endings are EventBridge rules, whose target retries a
 * failed invocation (EventBridge's default policy: for 24 hours, up to 185 times); an ending that
 * still fails is kept in its task's dead-letter queue, and the reconciler ends its job at its
 * bound. The table's stream and the queues are Lambda event source mappings, whose handlers answer
 * partial batch responses.
 */
export class TaskFunctions extends Construct {
  /** By task name (`reconcile-jobs`). */
  public readonly functions: ReadonlyMap<string, NodeFunction>;
  /** The rule of each task run by one (a schedule or an execution ending), by task name. */
  public readonly rules: ReadonlyMap<string, events.Rule>;
  /** The event source mapping of each task run by the table's stream or a queue, by task name. */
  public readonly eventSourceMappings: ReadonlyMap<string, DynamoEventSource | SqsEventSource>;
  /**
   * Of each task run by the table's stream, by task name: where Lambda sends the description of a
   * batch it gave up on (shard and sequence numbers, not the records).
   */
  public readonly streamFailureQueues: ReadonlyMap<string, sqs.Queue>;
  /**
   * Of each task run by an execution ending, by task name: the status change events that neither
   * EventBridge nor Lambda got handled, as they were sent, for an operator to run again.
   */
  public readonly endingDeadLetterQueues: ReadonlyMap<string, sqs.Queue>;

  private readonly props: TaskFunctionsProps;

  constructor(scope: Construct, id: string, props: TaskFunctionsProps) {
    super(scope, id);
    this.props = props;
    const functions = new Map<string, NodeFunction>();
    const rules = new Map<string, events.Rule>();
    const eventSourceMappings = new Map<string, DynamoEventSource | SqsEventSource>();
    const streamFailureQueues = new Map<string, sqs.Queue>();
    const endingDeadLetterQueues = new Map<string, sqs.Queue>();
    for (const task of props.tasks ?? TASKS) {
      const constructId = constructIdOf(task.name);
      // A failed ending is kept rather than dropped: its job would hold its concurrency slot and
      // credits until the reconciler's bound, hours for a long workflow. An ending fails two ways,
      // and this queue is the dead-letter queue of both: of the rule's target, for an event
      // EventBridge could not hand to Lambda within its retries (the invocation refused or
      // throttled); and of the function, for one Lambda accepted but the function failed on every
      // attempt (the first and two asynchronous retries) or never ran before the event's maximum
      // age, which EventBridge, its invocation accepted, never learns of. Both send the event itself
      // as the message (a Lambda on-failure destination would wrap it in a record), so every
      // message is run again alike. No AwsSolutions-SQS3 finding: cdk-nag recognizes a queue that
      // a function names as its dead-letter queue.
      const endingDeadLetters =
        task.trigger.kind === 'execution-ended' ? deadLetterQueue(this, `${constructId}DeadLetterQueue`) : undefined;
      const fn = new NodeFunction(this, `${constructId}Function`, {
        entry: path.join(TASKS_DIR, `${task.handler}.ts`),
        description: `Task ${task.name} (lambdas/tasks/${task.handler}.ts)`,
        purpose: `task ${task.name}`,
        memorySize: task.memoryMb,
        timeout: Duration.seconds(task.timeoutSeconds),
        tableName: props.table.tableName,
        mediaBucketName: props.media.bucketName,
        logLevel: props.logLevel,
        logRetention: props.logRetention,
        governance: props.governance,
        environment: Object.assign(
          {},
          ...(task.settings ?? []).map((setting) => this.settingEnvironment(task, setting)),
        ),
        // The stream mapping's grant (table.grantStreamRead) adds dynamodb:ListStreams on "*".
        readsTableStream: task.trigger.kind === 'table-stream',
        deadLetterQueue: endingDeadLetters,
      });
      props.table.grantTo(fn, task);
      applyGrants(task.grants, {
        fn,
        who: `Task ${task.name}`,
        media: props.media,
        stateMachines: props.stateMachines,
        queues: props.queues,
        webhookSecretsKey: props.webhookSecretsKey,
        videoModel: props.videoModel,
        textModel: props.textModel,
      });
      functions.set(task.name, fn);

      const trigger = task.trigger;
      switch (trigger.kind) {
        case 'schedule':
        case 'execution-ended':
          rules.set(
            task.name,
            new events.Rule(this, `${constructId}Rule`, {
              description: `Runs the ${task.name} task`,
              ...ruleTriggerOf(trigger, props.stateMachines),
              targets: [new targets.LambdaFunction(fn, { deadLetterQueue: endingDeadLetters })],
            }),
          );
          if (endingDeadLetters) endingDeadLetterQueues.set(task.name, endingDeadLetters);
          break;
        case 'table-stream': {
          // Records still failing after the retries go to this queue, so a bad record stops
          // blocking its shard. Nothing reads it but an operator (an alarm fires on its first
          // message): each event item stays in the outbox index until relayed, and the sweeper
          // (sweep-webhooks) relays what the stream gave up on.
          const failures = deadLetterQueue(this, `${constructId}FailuresQueue`);
          NagSuppressions.addResourceSuppressions(failures, [
            {
              id: 'AwsSolutions-SQS3',
              reason: `This queue is itself the on-failure destination of the ${task.name} task's stream mapping: it holds descriptions of the batches Lambda gave up on, for an operator (an alarm fires on its first message); nothing consumes it, so no message can fail to be processed into a dead-letter queue of its own.`,
            },
          ]);
          const source = new DynamoEventSource(props.table.table, {
            startingPosition: lambda.StartingPosition.TRIM_HORIZON,
            batchSize: trigger.batchSize,
            filters: [lambda.FilterCriteria.filter(trigger.filter as Record<string, unknown>)],
            reportBatchItemFailures: true,
            bisectBatchOnError: true,
            retryAttempts: STREAM_RETRY_ATTEMPTS,
            maxRecordAge: STREAM_MAX_RECORD_AGE,
            onFailure: new SqsDlq(failures),
          });
          fn.addEventSource(source);
          eventSourceMappings.set(task.name, source);
          streamFailureQueues.set(task.name, failures);
          break;
        }
        case 'queue': {
          const queue = props.queues?.[trigger.queue];
          if (!queue) {
            throw new Error(
              `Task ${task.name} is triggered by the queue ${trigger.queue}, but the queues given have no ${trigger.queue}.`,
            );
          }
          // The queue's own redrive policy moves a message that keeps failing to its dead-letter queue.
          const source = new SqsEventSource(queue, {
            batchSize: trigger.batchSize,
            reportBatchItemFailures: true,
            maxConcurrency: trigger.maxConcurrency,
          });
          fn.addEventSource(source);
          eventSourceMappings.set(task.name, source);
          break;
        }
      }
    }
    this.functions = functions;
    this.rules = rules;
    this.eventSourceMappings = eventSourceMappings;
    this.streamFailureQueues = streamFailureQueues;
    this.endingDeadLetterQueues = endingDeadLetterQueues;
  }

  /**
   * The environment of each task setting (lambdas/tasks.ts) in AWS. Only the feature flag: the
   * retry scale and loopback endpoints are the local stack's (their defaults are AWS's).
   */
  private settingEnvironment(task: Task, setting: TaskSetting): Record<string, string> {
    switch (setting) {
      case 'webhook-delivery': {
        const { webhookDelivery } = this.props;
        if (!webhookDelivery) {
          throw new Error(`Task ${task.name} needs the setting webhook-delivery, but no webhookDelivery was given.`);
        }
        return { [DEVELOPER_WEBHOOK_DELIVERY_ENABLED.variable]: String(webhookDelivery.enabled) };
      }
    }
  }
}

type RuleTrigger = Extract<Task['trigger'], { kind: 'schedule' | 'execution-ended' }>;

function ruleTriggerOf(
  trigger: RuleTrigger,
  stateMachines: ApiStateMachines,
): Pick<events.RuleProps, 'schedule' | 'eventPattern'> {
  switch (trigger.kind) {
    case 'schedule':
      return { schedule: events.Schedule.rate(Duration.minutes(trigger.everyMinutes)) };
    case 'execution-ended':
      return {
        eventPattern: {
          source: ['aws.states'],
          detailType: ['Step Functions Execution Status Change'],
          detail: {
            status: [...trigger.statuses],
            stateMachineArn: Object.values(stateMachines).map((stateMachine) => stateMachine.stateMachineArn),
          },
        },
      };
  }
}
