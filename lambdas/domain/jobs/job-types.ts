import type { LimitName } from '#domain/access/organizations';
import type { Scope } from '#domain/access/scopes';
import { API_PREFIX } from '#platform/api-prefix';
import type { JobType } from './job';

/** What differs between job types, for the parts of the job core they share. */
export interface JobTypeTraits {
  /** Every id of the type starts with it, so a path id of another type is not even looked up. */
  readonly idPrefix: string;
  /** The scope that creates jobs of the type, and cancels them. */
  readonly createScope: Scope;
  /** The organization's limit on its active jobs of the type. */
  readonly concurrencyLimit: Extract<LimitName, `concurrent_${string}`>;
  /**
   * `Retry-After` of a create refused at that limit: no one knows when a slot frees, so this is
   * about the time a job of the type takes to finish once it has been running a while.
   */
  readonly retryAtCapSeconds: number;
  /** API path of the job's result: what events and the job list give instead of signed URLs. */
  resultPath(jobId: string): string;
  /** API path of the job's clips, for job types that make clips. */
  clipsPath(jobId: string): string | null;
}

export const JOB_TYPES: Readonly<Record<JobType, JobTypeTraits>> = {
  video: {
    idPrefix: 'video_job_',
    createScope: 'video:create',
    concurrencyLimit: 'concurrent_video_jobs',
    // A job holds its slot for minutes (a Ray2 render takes 2 to 8); a retry every 30 s finds a freed one soon.
    retryAtCapSeconds: 30,
    resultPath: (jobId) => `${API_PREFIX}/video-jobs/${jobId}/result`,
    clipsPath: () => null,
  },
  split: {
    idPrefix: 'split_job_',
    createScope: 'split:create',
    concurrencyLimit: 'concurrent_split_jobs',
    retryAtCapSeconds: 30,
    resultPath: (jobId) => `${API_PREFIX}/split-jobs/${jobId}/result`,
    clipsPath: (jobId) => `${API_PREFIX}/split-jobs/${jobId}/clips`,
  },
};

/** Every job type, in the order reports list them. */
export const JOB_TYPE_NAMES = Object.keys(JOB_TYPES) as JobType[];
