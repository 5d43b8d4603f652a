import { Duration } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { QueueName } from '#queues';
import { constructIdOf } from '../construct-ids';
import type { ServiceQueue, ServiceQueues } from '../queues';
import type { TaskFunctions } from '../tasks';
import { PERIOD, onAbove, onAny } from './alarm-options';

/**
 * Age of a queue's oldest message that means its consumer is not keeping up. Above SQS's longest
 * delivery delay (15 minutes), which a message sent with a delay may spend in the queue before it
 * can even be received.
 */
const OLDEST_MESSAGE_AGE_THRESHOLD = Duration.minutes(20);

/**
 * Age of the newest record a table-stream task has read that means it lags behind the table:
 * normally seconds; the stream keeps records 24 hours, and the sweeper relays what is overdue.
 */
const ITERATOR_AGE_THRESHOLD = Duration.minutes(5);

export interface QueueAndStreamAlarmsProps {
  readonly queues: ServiceQueues;
  readonly tasks: TaskFunctions;
}

/**
 * The alarms on the asynchronous paths, made in `scope`: the queues (dead letters, the oldest
 * message waiting), the table-stream tasks (batches given up on, lag behind the stream) and the
 * execution-ending tasks (endings that failed every retry).
 */
export class QueueAndStreamAlarms {
  public readonly queues: readonly [QueueName, ServiceQueue][];
  public readonly streamFailureQueues: readonly [string, sqs.IQueue][];
  public readonly endingDeadLetterQueues: readonly [string, sqs.IQueue][];
  public readonly streamTasks: readonly (readonly [string, lambda.IFunction])[];
  public readonly deadLetterAlarms: readonly cloudwatch.Alarm[];
  public readonly oldestMessageAgeAlarms: readonly cloudwatch.Alarm[];
  public readonly iteratorAgeAlarms: readonly cloudwatch.Alarm[];

  constructor(scope: Construct, props: QueueAndStreamAlarmsProps) {
    // A dead-letter queue's first message: a poison message or a batch given up on, for a person.
    const deadLetterAlarm = (id: string, queue: sqs.IQueue, description: string) =>
      queue
        .metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' })
        .createAlarm(scope, id, onAny(description));
    this.queues = [...props.queues.queues];
    this.streamFailureQueues = [...props.tasks.streamFailureQueues];
    this.endingDeadLetterQueues = [...props.tasks.endingDeadLetterQueues];
    this.deadLetterAlarms = [
      ...this.queues.map(([name, { deadLetterQueue }]) =>
        deadLetterAlarm(
          `${constructIdOf(name)}DeadLetterAlarm`,
          deadLetterQueue,
          `Messages of the ${name} queue failed every receive and moved to its dead-letter queue: look at them, then redrive or delete them.`,
        ),
      ),
      ...this.streamFailureQueues.map(([name, failures]) =>
        deadLetterAlarm(
          `${constructIdOf(name)}StreamFailuresAlarm`,
          failures,
          `The ${name} task gave up on batches of the table's stream (their descriptions are in its failures queue); the sweeper relays their events late.`,
        ),
      ),
      ...this.endingDeadLetterQueues.map(([name, deadLetters]) =>
        deadLetterAlarm(
          `${constructIdOf(name)}DeadLetterAlarm`,
          deadLetters,
          `The ${name} task could not end the jobs of executions that ended unfinished, after every retry (the events are in its dead-letter queue): the jobs hold their slots and credits until the reconciler's bound. Fix the cause, then run the events again (docs/operations.md, Failed execution endings).`,
        ),
      ),
    ];

    this.oldestMessageAgeAlarms = this.queues.map(([name, { queue }]) =>
      queue
        .metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' })
        .createAlarm(
          scope,
          `${constructIdOf(name)}OldestMessageAgeAlarm`,
          onAbove(
            OLDEST_MESSAGE_AGE_THRESHOLD.toSeconds(),
            `The oldest message of the ${name} queue has waited more than ${OLDEST_MESSAGE_AGE_THRESHOLD.toMinutes()} minutes: its consumer is not keeping up (throttled, failing or disabled).`,
          ),
        ),
    );

    this.streamTasks = this.streamFailureQueues.map(([name]) => [name, props.tasks.functions.get(name)!] as const);
    this.iteratorAgeAlarms = this.streamTasks.map(([name, fn]) =>
      this.iteratorAge(fn).createAlarm(
        scope,
        `${constructIdOf(name)}IteratorAgeAlarm`,
        onAbove(
          ITERATOR_AGE_THRESHOLD.toMilliseconds(),
          `The ${name} task lags more than ${ITERATOR_AGE_THRESHOLD.toMinutes()} minutes behind the table's stream.`,
        ),
      ),
    );
  }

  /**
   * A table-stream task's iterator age. The alarm's metric has no label: with one, the alarm would
   * be written as metric math.
   */
  iteratorAge(fn: lambda.IFunction, label?: string): cloudwatch.Metric {
    return fn.metric('IteratorAge', { period: PERIOD, statistic: 'Maximum', label });
  }
}
