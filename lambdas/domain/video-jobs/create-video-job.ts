import type { Operations } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import { jobSourceAsset, type JobSourceNeeds } from '#domain/assets/assets';
import { submitJob } from '#domain/jobs/submit-job';
import type { JobOf } from '#domain/jobs/job';
import { idempotencyClaim } from '#platform/idempotency';
import { checkMetadataSize } from '#platform/metadata';

export type CreateVideoJobRequest = Operations['createVideoJob']['body'];

/** Credits per second of output: animating a supplied image costs more than text alone. */
export const VIDEO_CREDITS_PER_SECOND = { text_to_video: 2, image_to_video: 3 } as const;

export function videoJobPrice(request: Pick<CreateVideoJobRequest, 'duration_seconds' | 'source_asset_id'>): number {
  const mode = request.source_asset_id ? 'image_to_video' : 'text_to_video';
  return request.duration_seconds * VIDEO_CREDITS_PER_SECOND[mode];
}

/**
 * The largest source image a video job takes: Amazon Nova Reel reads an input image of at most
 * 25 MB, and the start-render worker holds the whole image and its base64 text in memory, while an
 * `image_source` asset may be as large as any upload. The 1280x720 PNG or JPEG the model renders
 * from is a few megabytes at most.
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
