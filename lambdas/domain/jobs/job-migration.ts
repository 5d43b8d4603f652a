import { paginateScan } from '@aws-sdk/lib-dynamodb';
import { jobUsageUpdates } from '#domain/usage/usage-store';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { listedJob, newJobListEntries } from './job-list-entries';
import { jobTrackingUpdate } from './job-store';
import { changeJobStatus, type StatusStep } from './lifecycle';

/**
 * The migration of jobs written before the job list entries and the usage aggregates existed
 * (docs/data-model.md, "Migrations"): each untracked job gets, in one transaction, its entries
 * for the status it is in, its counts on its creation day (created, charged, refunded, status),
 * its active-jobs keys when it is active, and the mark that it is tracked. From then on every
 * status change moves them like any new job's. Running it again finds nothing left to do; a job
 * whose status moves while it runs is read again and tracked in its new status.
 */

export interface MigrationReport {
  /** Untracked jobs the scan found. */
  examined: number;
  /** Jobs this run tracked. */
  tracked: number;
}

function trackJob(organizationId: number, jobId: string): Promise<boolean> {
  return changeJobStatus(organizationId, jobId, (job): StatusStep<boolean> => {
    if (!job || job.tracked) return { answer: false };
    return {
      write: {
        job: jobTrackingUpdate(job),
        ...newJobListEntries(listedJob(job), job.status),
        ...jobUsageUpdates(job, {
          created: true,
          charged: job.credits.charged,
          refunded: job.credits.refunded,
          to: job.status,
        }),
      },
      answer: true,
    };
  });
}

/**
 * Scans the table once (an operator's batch, never a request path) for jobs without the
 * tracked mark, and tracks each. Safe to run while the service takes traffic, and to run again.
 */
export async function trackUntrackedJobs(): Promise<MigrationReport> {
  const report: MigrationReport = { examined: 0, tracked: 0 };
  const pages = paginateScan(
    { client: dynamo() },
    {
      TableName: tableName(),
      FilterExpression: 'begins_with(sk, :job) AND attribute_not_exists(tracked)',
      ExpressionAttributeValues: { ':job': 'JOB#' },
      ProjectionExpression: 'organization_id, job_id',
    },
  );
  for await (const page of pages) {
    for (const item of (page.Items ?? []) as { organization_id: number; job_id: string }[]) {
      report.examined += 1;
      if (await trackJob(item.organization_id, item.job_id)) report.tracked += 1;
    }
  }
  return report;
}
