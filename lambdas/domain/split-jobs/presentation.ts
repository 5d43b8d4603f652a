import type { SplitJob } from '#contract/types';
import type { JobOf } from '#domain/jobs/job';
import { presentJobFields, resultAvailability } from '#domain/jobs/presentation';

/** The SplitJob object of the API: flags for the result, never a download URL. */
export function presentSplitJob(job: JobOf<'split'>): SplitJob {
  const result = resultAvailability(job);
  return {
    ...presentJobFields(job),
    type: 'split',
    input: job.input,
    result: { ...result, clips_available: result.available },
  };
}
