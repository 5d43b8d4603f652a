import type { UnifiedJobDetail, UnifiedJobListItem } from '#contract/types';
import { stageOf, type Job } from './job';
import { JOB_TYPES } from './job-types';

/** Whether the job's result routes can answer, and the asset it produced: what every job shape says of its result. */
export function resultAvailability(job: Pick<Job, 'status' | 'outputAssetId' | 'clipsCount'>) {
  const available = job.status === 'completed';
  return { available, asset_id: available ? job.outputAssetId : null, clips_count: available ? job.clipsCount : null };
}

/** What the typed job shapes (VideoJob, SplitJob) say alike of any job. */
export function presentJobFields(job: Job) {
  return {
    id: job.jobId,
    status: job.status,
    stage: stageOf(job),
    progress: job.progress,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    credits: job.credits,
    error: job.error,
    metadata: job.metadata,
  };
}

/**
 * A job of either type in the unified shape of /jobs: availability flags and API paths of the
 * type's own routes, never a signed URL (those come only from the result routes).
 */
export function presentUnifiedJob(job: Job): UnifiedJobListItem {
  const traits = JOB_TYPES[job.type];
  return {
    id: job.jobId,
    type: job.type,
    status: job.status,
    stage: stageOf(job),
    progress: job.progress,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    credits: job.credits,
    result: {
      ...resultAvailability(job),
      result_url: traits.resultPath(job.jobId),
      clips_url: traits.clipsPath(job.jobId),
    },
    error: job.error,
    metadata: job.metadata,
  };
}

export function presentUnifiedJobDetail(job: Job): UnifiedJobDetail {
  return { ...presentUnifiedJob(job), input: job.input };
}
