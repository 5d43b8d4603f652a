import { log } from '#platform/log';
import { putMetric } from '#platform/metrics';
import { expireJobPastDeadline } from './deadlines';
import { endUnfinishedJob, type UnfinishedOutcome } from './execution-endings';
import { startJobExecution } from './executions';
import type { JobType } from './job';
import type { JobClips } from './job-clips';
import { JOB_STATE_MACHINES } from './job-execution';
import { JOB_ERRORS } from './job-errors';
import { activeJobsCreatedBefore, type ActiveJobEntry } from './job-store';
import { JOB_TYPE_NAMES } from './job-types';
import { RECONCILE_SCHEDULE } from './reconcile-schedule';

/**
 * The last line against jobs left active for ever (holding a charge and a concurrency slot): a
 * create that died between its commit and its start, an execution lost or ended without finishing
 * its job. It also expires jobs past the `deadline_seconds` they were created with (deadlines.ts).
 * Reads the active-jobs index and each entry's job, so its cost follows the jobs under way, not
 * the table.
 */

export interface ReconcileReport {
  /** Jobs whose execution was started again; a no-op for the ones already running. */
  started: number;
  /** Jobs past their bound, ended and refunded. */
  ended: number;
  /** Jobs past their own deadline, expired and refunded. */
  expired: number;
  /** Jobs the run could not handle; the next run tries them again. */
  errors: number;
}

export interface ReconcileOptions {
  now?: Date;
  /** Jobs younger than this are left alone; the local stack passes 0 when it starts. */
  restartAfterSeconds?: number;
}

function overdueOutcome(entry: ActiveJobEntry): UnfinishedOutcome {
  return entry.status === 'queued'
    ? { status: 'failed', error: JOB_ERRORS.startFailed }
    : { status: 'expired', error: JOB_ERRORS.timedOut };
}

/**
 * How old an active job of the type may get before the reconciler ends it: its workflow's execution
 * time-out (the ASL file's TimeoutSeconds), after which its execution has ended whatever happened,
 * and the grace for that ending to reach the execution-ended task. Counted from the job's creation,
 * which its execution's start follows at once unless the create died before starting it.
 */
export function boundSecondsOf(jobType: JobType): number {
  return JOB_STATE_MACHINES[jobType].executionTimeoutSeconds + RECONCILE_SCHEDULE.graceSeconds;
}

function isPastBound(entry: ActiveJobEntry, now: Date): boolean {
  return (now.getTime() - Date.parse(entry.createdAt)) / 1000 > boundSecondsOf(entry.type);
}

/**
 * Every run publishes its counts, zeros included, for every job type: a gap in the metrics means
 * the reconciler did not run, not that it found nothing.
 */
function publishRun(pastBound: Readonly<Record<JobType, number>>, errors: number): void {
  for (const type of JOB_TYPE_NAMES) putMetric('activeJobsPastBound', pastBound[type], { JobType: type });
  putMetric('reconcileErrors', errors, {});
}

/**
 * Every active job old enough: past its bound (its workflow's execution timeout and a grace) it
 * ends, refunded for what it did not deliver, through endUnfinishedJob, whose finish is
 * conditional, so that happens once whoever else finishes it; past its own deadline it expires
 * the same way; otherwise its execution is started again, which revives one that never started
 * or was lost. A split job's clips are read and failed through `jobClips`.
 */
export async function reconcileJobs(
  jobClips: JobClips,
  { now = new Date(), restartAfterSeconds = RECONCILE_SCHEDULE.restartAfterSeconds }: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const report: ReconcileReport = { started: 0, ended: 0, expired: 0, errors: 0 };
  const pastBound = Object.fromEntries(JOB_TYPE_NAMES.map((type) => [type, 0])) as Record<JobType, number>;
  for await (const entry of activeJobsCreatedBefore(new Date(now.getTime() - restartAfterSeconds * 1000))) {
    try {
      if (isPastBound(entry, now)) {
        pastBound[entry.type] += 1;
        await endUnfinishedJob(jobClips, entry.organizationId, entry.jobId, overdueOutcome(entry), now);
        report.ended += 1;
      } else if (await expireJobPastDeadline(jobClips, entry.organizationId, entry.jobId, now)) {
        report.expired += 1;
      } else {
        await startJobExecution(entry);
        report.started += 1;
      }
    } catch (error) {
      report.errors += 1;
      log('error', 'The reconciler could not handle an active job', { job_id: entry.jobId, error });
    }
  }
  publishRun(pastBound, report.errors);
  return report;
}
