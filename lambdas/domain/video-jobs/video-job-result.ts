import type { VideoJobResult } from '#contract/types';
import { getAsset } from '#domain/assets/assets';
import { presignDownload } from '#domain/assets/media';
import { getCompletedJobOfType } from '#domain/jobs/jobs';

/** The finished video with a short-lived download URL; 409 while the job runs or when it has none. */
export async function getVideoJobResult(organizationId: number, jobId: string): Promise<VideoJobResult> {
  const job = await getCompletedJobOfType(organizationId, jobId, 'video');
  if (!job.outputAssetId) throw new Error(`Completed video job ${jobId} has no output asset`);
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
