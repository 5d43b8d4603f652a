import type { AnyJob, JobError } from './job';
import type { DeliveredClips } from './refunds';

/**
 * The port through which the job core meets a job's clips as it ends the job without its work
 * having finished it (stopping.ts: a cancel, a passed deadline; execution-endings.ts: its
 * execution's end, the reconciler): what they delivered, for the refund, and failing the ones not
 * finished. The clip item is the split job type's (split-jobs/clip-store.ts), which implements
 * this port (JOB_CLIPS there); the entry points that end jobs hand it down.
 */
export interface JobClips {
  /** The job's clips as they are now, read before it ends: none for a job type that makes none. */
  read(job: Pick<AnyJob, 'organizationId' | 'jobId' | 'type'>): Promise<ClipsRead>;
}

/** A job's clips as read before it ends. */
export interface ClipsRead {
  /** What they delivered (refunds.ts). */
  readonly delivered: DeliveredClips;
  /**
   * Fails each of them that had not ended when read: a render finishing later then cannot
   * complete a clip whose price was refunded.
   */
  failUnfinished(error: JobError, now?: Date): Promise<void>;
}
