import { reconcileJobs } from '#domain/jobs/reconciler';
import { JOB_CLIPS } from '#domain/split-jobs/clip-store';
import { taskHandler } from '#platform/invocation';
import { log } from '#platform/log';

export const handler = taskHandler('reconcile-jobs', async () => {
  const report = await reconcileJobs(JOB_CLIPS);
  // Each job it could not handle has its own error line; this one sums the run up.
  log('info', 'Active jobs reconciled', { ...report });
  return report;
});
