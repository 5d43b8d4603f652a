/**
 * How the job reconciler (lambdas/domain/jobs/reconciler.ts) is paced, and the longest a job can
 * stay active that follows from it. The CDK app schedules it; the local stack runs it on a timer.
 */
export const RECONCILE_SCHEDULE = {
  /** How often it runs. */
  everyMinutes: 5,
  /**
   * A job younger than this is left alone: its create request may still be starting it. Older,
   * its execution is started again, which does nothing when one already exists under its name.
   */
  restartAfterSeconds: 60,
  /**
   * How long past its workflow's execution timeout an active job waits for the execution's ending
   * before the reconciler ends it: the status change reaches the execution-ended task within
   * seconds, and Lambda retries a failed ending twice, a minute and then two minutes later. So a
   * job the reconciler ends past its bound is one whose ending failed (kept in that task's
   * dead-letter queue in AWS) or never came.
   */
  graceSeconds: 300,
} as const;

/**
 * The longest a job of a workflow with this execution timeout stays queued or processing, with
 * the table writable: the timeout, the grace after it, and one schedule period to notice.
 */
export function longestActiveSeconds(executionTimeoutSeconds: number): number {
  return executionTimeoutSeconds + RECONCILE_SCHEDULE.graceSeconds + RECONCILE_SCHEDULE.everyMinutes * 60;
}
