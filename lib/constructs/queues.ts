import { Duration } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEAD_LETTER_RETENTION_DAYS, QUEUES, type Queue, type QueueName } from '#queues';
import { TASKS, visibilityTimeoutSecondsOf, type Task } from '#tasks';
import { constructIdOf } from './construct-ids';

/** How long a dead-letter queue keeps a message. */
export const DEAD_LETTER_RETENTION = Duration.days(DEAD_LETTER_RETENTION_DAYS);

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

/**
 * A queue that holds what another one, or an event source mapping, gave up on: kept as long as
 * every dead-letter queue, and marked as a dead-letter queue by its redrive permission, so that it
 * needs none of its own (CT.SQS.PR.1). The permission is SQS's default (any queue of the account may
 * name it), stated: naming the source queue instead would make the two queues refer to each other,
 * a cycle CloudFormation cannot create.
 */
export function deadLetterQueue(scope: Construct, id: string): sqs.Queue {
  return secureQueue(scope, id, {
    retentionPeriod: DEAD_LETTER_RETENTION,
    redriveAllowPolicy: { redrivePermission: sqs.RedrivePermission.ALLOW_ALL },
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
      const deadLetters = deadLetterQueue(this, `${constructId}DeadLetterQueue`);
      // No AwsSolutions-SQS3 finding: cdk-nag recognizes a queue that another queue's redrive
      // policy names as a dead-letter queue.
      const queue = secureQueue(this, `${constructId}Queue`, {
        visibilityTimeout: Duration.seconds(visibilityTimeoutSecondsOf(definition, props.tasks ?? TASKS)),
        deadLetterQueue: { queue: deadLetters, maxReceiveCount: definition.maxReceiveCount },
      });
      queues.set(definition.name as QueueName, { definition, queue, deadLetterQueue: deadLetters });
    }
    this.queues = queues;
  }

  /** The queues for grants (GrantTarget's `queues`). */
  get byName(): QueuesByName {
    return Object.fromEntries([...this.queues].map(([name, { queue }]) => [name, queue]));
  }
}
