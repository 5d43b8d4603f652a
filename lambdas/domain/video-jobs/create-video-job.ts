import type { Operations } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import { jobSourceAsset, type JobSourceNeeds } from '#domain/assets/assets';
import { submitJob } from '#domain/jobs/submit-job';
import type { JobOf } from '#domain/jobs/job';
import { idempotencyClaim } from '#platform/idempotency';
import { checkMetadataSize } from '#platform/metadata';
import { videoJobPrice } from './video-pricing';

export type CreateVideoJobRequest = Operations['createVideoJob']['body'];

/**
 * The largest source image a video job takes, while an `image_source` asset may be as large as
 * any upload: the start-render worker's ffmpeg decodes it whole (keyframes.ts), and an image of
 * 8,000 px a side is far below 25 MB as a JPEG or PNG anyway.
 */
export const MAX_SOURCE_IMAGE_BYTES = 25_000_000;

/**
 * An image-to-video source: a confirmed image of this organization, no larger than the video model
 * reads. Purpose `image_source` is the intended one; `general` images are accepted too, since
 * `general` explicitly allows every type.
 */
export const SOURCE_IMAGE: JobSourceNeeds = {
  purposes: ['image_source', 'general'],
  kind: 'image',
  maxBytes: MAX_SOURCE_IMAGE_BYTES,
};

export const CREATE_VIDEO_JOB_OPERATION = 'createVideoJob';

export async function createVideoJob(
  caller: Caller,
  request: CreateVideoJobRequest,
  idempotencyKey: string | undefined,
): Promise<JobOf<'video'>> {
  checkMetadataSize(request.metadata);
  const organizationId = caller.organization.organizationId;
  if (request.source_asset_id) await jobSourceAsset(organizationId, request.source_asset_id, SOURCE_IMAGE);
  const { metadata, ...accepted } = request;
  return submitJob({
    organizationId,
    type: 'video',
    price: videoJobPrice(request),
    limits: caller.limits,
    createdByKey: caller.apiKey.keyPrefix,
    input: { ...accepted, mode: request.source_asset_id ? 'image_to_video' : 'text_to_video' },
    metadata: metadata ?? null,
    idempotency: idempotencyClaim(CREATE_VIDEO_JOB_OPERATION, idempotencyKey, request),
  });
}
