import type { VideoJob } from '#contract/types';
import type { JobOf } from '#domain/jobs/job';
import { presentJobFields, resultAvailability } from '#domain/jobs/presentation';

/** The VideoJob object of the API: flags for the result, never a download URL. */
export function presentVideoJob(job: JobOf<'video'>): VideoJob {
  const result = resultAvailability(job);
  return {
    ...presentJobFields(job),
    type: 'video',
    input: job.input,
    result: { ...result, download_url_available: result.available },
  };
}
