import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { QUEUES, type Queue, type QueueName } from '#queues';
import { TASKS, type Task } from '#tasks';
import { constructIdOf } from './construct-ids';

/**
 * AWS's guidance for a queue that a Lambda event source mapping consumes: a visibility timeout of
 * at least six times the function's timeout (plus the batching window, which none uses), so that
 * a message is not received again while throttled retries of its batch may still be running.
 */
export const VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT = 6;

/** How long a dead-letter queue keeps a message: SQS's maximum, time enough to look at it and redrive. */
export const DEAD_LETTER_RETENTION = Duration.days(14);

/** The task whose trigger is this queue; a queue needs exactly one (lambdas/tasks.ts), or the synthesis fails. */
export function consumerOf(queue: Pick<Queue, 'name'>, tasks: readonly Task[] = TASKS): Task {
  const consumers = tasks.filter((task) => task.trigger.kind === 'queue' && task.trigger.queue === queue.name);
  if (consumers.length !== 1) {
    throw new Error(
      `The queue ${queue.name} needs exactly one task of lambdas/tasks.ts triggered by it ({ kind: 'queue', queue: '${queue.name}' }), found ${consumers.length}.`,
    );
  }
  return consumers[0]!;
}

/**
 * A queue that is encrypted (SSE-SQS: SQS-owned keys, no key to administer or pay for, and no
 * kms:* grants for senders and consumers) and refuses requests without TLS.
 */
export function secureQueue(scope: Construct, id: string, props: sqs.QueueProps = {}): sqs.Queue {
  return new sqs.Queue(scope, id, {
    ...props,
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
  });
}

/** One queue of lambdas/queues.ts with its dead-letter queue. */
export interface ServiceQueue {
  readonly definition: Queue;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
}

/** Every queue by its name in lambdas/queues.ts, as grants (lib/constructs/grants.ts) look them up. */
export type QueuesByName = Readonly<Partial<Record<QueueName, sqs.IQueue>>>;

export interface ServiceQueuesProps {
  /** lambdas/queues.ts unless told. */
  readonly queues?: readonly Queue[];
  /** The task table the consumers come from; lambdas/tasks.ts unless told. */
  readonly tasks?: readonly Task[];
}

/**
 * The queues of lambdas/queues.ts: each a standard queue whose messages move to a dead-letter
 * queue of its own after `maxReceiveCount` receives (a poison message, not a retry schedule: the
 * consumer answers a partial batch response and retries are the domain's), with a visibility
 * timeout of six times its consumer's timeout.
 */
export class ServiceQueues extends Construct {
  /** By name (`webhook-deliveries`). */
  public readonly queues: ReadonlyMap<QueueName, ServiceQueue>;

  constructor(scope: Construct, id: string, props: ServiceQueuesProps = {}) {
    super(scope, id);
    const queues = new Map<QueueName, ServiceQueue>();
    for (const definition of props.queues ?? QUEUES) {
      const constructId = constructIdOf(definition.name);
      const consumer = consumerOf(definition, props.tasks ?? TASKS);
      const deadLetterQueue = secureQueue(this, `${constructId}DeadLetterQueue`, {
        retentionPeriod: DEAD_LETTER_RETENTION,
      });
      // No AwsSolutions-SQS3 finding: cdk-nag recognizes a queue that another queue's redrive
      // policy names as a dead-letter queue.
      const queue = secureQueue(this, `${constructId}Queue`, {
        visibilityTimeout: Duration.seconds(VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT * consumer.timeoutSeconds),
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
      });
      queues.set(definition.name as QueueName, { definition, queue, deadLetterQueue });
    }
    this.queues = queues;
  }

  /** The queues for grants (GrantTarget's `queues`). */
  get byName(): QueuesByName {
    return Object.fromEntries([...this.queues].map(([name, { queue }]) => [name, queue]));
  }
}
