import type { VideoJob } from '#contract/types';
import type { JobOf } from '#domain/jobs/job';

/** The VideoJob object of the API: flags for the result, never a download URL. */
export function presentVideoJob(job: JobOf<'video'>): VideoJob {
  const available = job.status === 'completed';
  return {
    id: job.jobId,
    type: 'video',
    status: job.status,
    progress: job.progress,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    credits: job.credits,
    input: job.input,
    result: {
      available,
      asset_id: available ? job.outputAssetId : null,
      clips_count: null,
      download_url_available: available,
    },
    error: job.error,
    metadata: job.metadata,
  };
}
