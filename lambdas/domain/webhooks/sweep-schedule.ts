/**
 * How the webhook sweeper (lambdas/domain/webhooks/outbox.ts) is paced. The CDK app schedules it;
 * the local stack runs it on a timer, and once at every start with no wait at all.
 */
export const SWEEP_SCHEDULE = {
  /** How often it runs. */
  everyMinutes: 5,
  /**
   * How long past its due time an outbox entry is left to the stream and the queue before the
   * sweeper takes it: an event not relayed, a delivery not attempted when it was due.
   */
  overdueSeconds: 300,
} as const;
