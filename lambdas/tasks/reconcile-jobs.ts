import { reconcileJobs } from '#domain/jobs/reconciler';
import { log } from '#platform/log';

export const handler = async () => {
  const report = await reconcileJobs();
  log(report.errors > 0 ? 'error' : 'info', 'Active jobs reconciled', { ...report });
  return report;
};
