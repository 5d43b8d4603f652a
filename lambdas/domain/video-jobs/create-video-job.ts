import type { Operations } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import { findAsset, type Asset } from '#domain/assets/asset-store';
import { submitJob } from '#domain/jobs/submit-job';
import type { JobOf } from '#domain/jobs/job';
import { ApiError } from '#platform/errors';
import { idempotencyClaim } from '#platform/idempotency';
import { checkMetadataSize } from '#platform/metadata';

export type CreateVideoJobRequest = Operations['createVideoJob']['body'];

/** Credits per second of output: animating a supplied image costs more than text alone. */
export const VIDEO_CREDITS_PER_SECOND = { text_to_video: 2, image_to_video: 3 } as const;

export function videoJobPrice(request: Pick<CreateVideoJobRequest, 'duration_seconds' | 'source_asset_id'>): number {
  const mode = request.source_asset_id ? 'image_to_video' : 'text_to_video';
  return request.duration_seconds * VIDEO_CREDITS_PER_SECOND[mode];
}

const IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/webp'];

/**
 * The largest source image a video job takes: Amazon Nova Reel reads an input image of at most
 * 25 MB, and the start-render worker holds the whole image and its base64 text in memory, while an
 * `image_source` asset may be as large as any upload. The 1280x720 PNG or JPEG the model renders
 * from is a few megabytes at most.
 */
export const MAX_SOURCE_IMAGE_BYTES = 25_000_000;

/**
 * An image-to-video source must be this organization's, confirmed, an image, and no larger than
 * the video model reads. Purpose `image_source` is the intended one; `general` images are accepted
 * too, since `general` explicitly allows every type. The size is the declared one, which
 * confirmation holds the bytes to, so a pending asset too large is refused before it is confirmed.
 */
async function checkSourceImage(organizationId: number, assetId: string): Promise<Asset> {
  const asset = await findAsset(organizationId, assetId);
  if (!asset) throw new ApiError('ASSET_NOT_FOUND', `source_asset_id ${assetId} does not exist.`);
  if (!IMAGE_TYPES.includes(asset.contentType) || !['image_source', 'general'].includes(asset.purpose)) {
    throw new ApiError(
      'ASSET_NOT_READY',
      `source_asset_id must be an image asset with purpose image_source; ${assetId} is ${asset.contentType} with purpose ${asset.purpose}.`,
    );
  }
  if (asset.sizeBytes > MAX_SOURCE_IMAGE_BYTES) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `source_asset_id ${assetId} is an image of ${asset.sizeBytes} bytes; a source image may have at most ${MAX_SOURCE_IMAGE_BYTES} bytes (25 MB).`,
    );
  }
  if (asset.status !== 'uploaded') {
    throw new ApiError('ASSET_NOT_READY', `source_asset_id ${assetId} is ${asset.status}; confirm its upload first.`);
  }
  return asset;
}

export const CREATE_VIDEO_JOB_OPERATION = 'createVideoJob';

export async function createVideoJob(
  caller: Caller,
  request: CreateVideoJobRequest,
  idempotencyKey: string | undefined,
): Promise<JobOf<'video'>> {
  checkMetadataSize(request.metadata);
  const organizationId = caller.organization.organizationId;
  if (request.source_asset_id) await checkSourceImage(organizationId, request.source_asset_id);
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
