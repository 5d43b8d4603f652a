import type { Grant } from '#grants';
import { WEBHOOK_DELIVERIES_QUEUE_URL, type Setting } from '#platform/settings';

/**
 * The queue table: each SQS queue of the service, the task that consumes it (lambdas/tasks.ts)
 * and the grant that lets a function send to it. The CDK app builds each queue with its
 * dead-letter queue from here; the local stack creates the same queues on its SQS emulator.
 */
/**
 * AWS's guidance for a queue that a Lambda event source mapping consumes: a visibility timeout of
 * at least six times the function's timeout (plus the batching window, which none uses), so that
 * a message is not received again while throttled retries of its batch may still be running.
 */
export const VISIBILITY_TIMEOUT_PER_FUNCTION_TIMEOUT = 6;

/** How long a dead-letter queue keeps a message: SQS's maximum, time enough to look at it and redrive. */
export const DEAD_LETTER_RETENTION_DAYS = 14;

export interface Queue {
  readonly name: string;
  /** The setting through which senders find the queue's URL. */
  readonly urlSetting: Setting;
  /** The grant a function needs to send to it (SendMessage, and the URL in its environment). */
  readonly sendGrant: Grant;
  /** Receives of one message before it moves to the dead-letter queue: a poison message, not a retry schedule. */
  readonly maxReceiveCount: number;
}

export const QUEUES = [
  {
    name: 'webhook-deliveries',
    urlSetting: WEBHOOK_DELIVERIES_QUEUE_URL,
    sendGrant: 'queue.webhook-deliveries:send',
    maxReceiveCount: 5,
  },
] as const satisfies readonly Queue[];

export type QueueName = (typeof QUEUES)[number]['name'];

export function queueNamed(name: QueueName): Queue {
  const queue = QUEUES.find((candidate) => candidate.name === name);
  if (!queue) throw new Error(`No queue named ${name}`);
  return queue;
}
