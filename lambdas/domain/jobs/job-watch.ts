import { log } from '#platform/log';
import { whileWanted } from '#platform/while-wanted';
import { isActive } from './job';
import { findJob } from './job-store';

/**
 * Watching a job while long work runs for it, so that a cancel or a passed deadline stops the work
 * within seconds instead of letting it run to its end for no one: an analysis or a render in
 * Lambda (paid for by the second), the local stack's ffmpeg and recognizer (the machine's cores).
 */

/** How often a running step reads its job: one consistent read, so a stop is seen within this long. */
export const JOB_WATCH_INTERVAL_MS = 3000;

/** Thrown into the work of a job that ended while it ran (the abort signal's reason). */
export class JobEnded extends Error {
  constructor(jobId: string) {
    super(`Job ${jobId} ended while its work ran; the work was stopped`);
    this.name = 'JobEnded';
  }
}

/**
 * Whether the job is still active: false once it ended or is gone. A read that fails answers true:
 * the work goes on rather than stop on a passing fault.
 */
export async function isJobStillActive(organizationId: number, jobId: string): Promise<boolean> {
  try {
    const job = await findJob(organizationId, jobId);
    return job !== undefined && isActive(job);
  } catch (error) {
    log('warn', 'A running step could not read its job; it goes on', { job_id: jobId, error });
    return true;
  }
}

/**
 * Runs `work` with a signal that is aborted (its reason a JobEnded) as soon as the job is seen to
 * have ended; the job is read every `intervalMs` while the work runs, and not after.
 */
export function whileJobActive<T>(
  organizationId: number,
  jobId: string,
  work: (signal: AbortSignal) => Promise<T>,
  intervalMs = JOB_WATCH_INTERVAL_MS,
): Promise<T> {
  return whileWanted(
    () => isJobStillActive(organizationId, jobId),
    () => new JobEnded(jobId),
    work,
    intervalMs,
  );
}
