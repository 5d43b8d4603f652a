import type { Grant } from '#grants';

/**
 * The queue table: each SQS queue of the service, the task that consumes it (lambdas/tasks.ts)
 * and the grant that lets a function send to it. The CDK app builds each queue with its
 * dead-letter queue from here; the local stack creates the same queues on its SQS emulator.
 */
export interface Queue {
  readonly name: string;
  /** Environment variable through which senders find the queue's URL. */
  readonly urlEnvironmentVariable: string;
  /** The grant a function needs to send to it (SendMessage, and the URL in its environment). */
  readonly sendGrant: Grant;
  /** Receives of one message before it moves to the dead-letter queue: a poison message, not a retry schedule. */
  readonly maxReceiveCount: number;
}

export const QUEUES = [
  {
    name: 'webhook-deliveries',
    urlEnvironmentVariable: 'WEBHOOK_DELIVERIES_QUEUE_URL',
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
