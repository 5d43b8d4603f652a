import type { VideoJob } from '#contract/types';
import type { JobOf } from '#domain/jobs/job';
import { resultAvailability } from '#domain/jobs/presentation';

/** The VideoJob object of the API: flags for the result, never a download URL. */
export function presentVideoJob(job: JobOf<'video'>): VideoJob {
  const result = resultAvailability(job);
  return {
    id: job.jobId,
    type: 'video',
    status: job.status,
    progress: job.progress,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    credits: job.credits,
    input: job.input,
    result: { ...result, download_url_available: result.available },
    error: job.error,
    metadata: job.metadata,
  };
}
