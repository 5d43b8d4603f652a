import type { VideoJobResult } from '#contract/types';
import { getAsset } from '#domain/assets/assets';
import { presignDownload } from '#domain/assets/media';
import { ApiError } from '#platform/errors';
import { getJobOfType } from '#domain/jobs/jobs';

/** The finished video with a short-lived download URL; 409 while the job runs or when it has none. */
export async function getVideoJobResult(organizationId: number, jobId: string): Promise<VideoJobResult> {
  const job = await getJobOfType(organizationId, jobId, 'video');
  if (job.status === 'queued' || job.status === 'processing') {
    throw new ApiError(
      'JOB_NOT_READY',
      `Video job ${jobId} is ${job.status} (${job.progress}% done); poll it and try again when completed.`,
    );
  }
  if (job.status !== 'completed' || !job.outputAssetId) {
    throw new ApiError(
      'JOB_FAILED',
      `Video job ${jobId} ended ${job.status} and has no result${job.error ? `: ${job.error.message}` : '.'}`,
    );
  }
  const asset = await getAsset(organizationId, job.outputAssetId);
  const download = await presignDownload(asset);
  return {
    job_id: job.jobId,
    status: job.status,
    asset: {
      asset_id: asset.assetId,
      content_type: asset.contentType,
      download_url: download.url,
      expires_at: download.expiresAt,
    },
  };
}
