import type { Operations, UploadUrlResponse } from '#contract/types';
import { mediaBucket } from '#platform/clients/s3';
import { ApiError } from '#platform/errors';
import { sortableId } from '#platform/ids';
import { getAsset } from './assets';
import { markAssetFailed, markAssetUploaded, putPendingAsset, type Asset, type AssetFailure } from './asset-store';
import { copyObject, deleteObject, headObject, presignUpload, readObjectHead, UPLOAD_URL_TTL_SECONDS } from './media';
import { incomingObjectKey, PENDING_ASSET_RETENTION_SECONDS, storedObjectKey } from './media-layout';
import { matchesDeclaredType } from './media-signatures';

export type UploadRequest = Operations['createAssetUploadUrl']['body'];

/** Creates a pending asset and the URL its bytes are PUT to. */
export async function createUpload(
  organizationId: number,
  maxUploadBytes: number,
  request: UploadRequest,
  now = new Date(),
): Promise<UploadUrlResponse> {
  if (request.size_bytes > maxUploadBytes) {
    throw new ApiError(
      'ASSET_UPLOAD_TOO_LARGE',
      `size_bytes ${request.size_bytes} exceeds this organization's max_asset_upload_size_bytes of ${maxUploadBytes}.`,
    );
  }
  const assetId = sortableId('asset_', now.getTime());
  const asset: Asset = {
    assetId,
    organizationId,
    filename: request.filename,
    contentType: request.content_type,
    sizeBytes: request.size_bytes,
    purpose: request.purpose,
    status: 'pending',
    metadata: request.metadata ?? null,
    createdAt: now.toISOString(),
    objectKey: incomingObjectKey(organizationId, assetId),
    failure: null,
  };
  const uploadUrl = await presignUpload(asset.objectKey, request.content_type, request.size_bytes);
  await putPendingAsset(asset, Math.floor(now.getTime() / 1000) + PENDING_ASSET_RETENTION_SECONDS);
  return {
    asset_id: assetId,
    upload_url: uploadUrl,
    upload_method: 'PUT',
    upload_headers: { 'Content-Type': request.content_type },
    expires_at: new Date(now.getTime() + UPLOAD_URL_TTL_SECONDS * 1000).toISOString(),
  };
}

async function refuse(asset: Asset, failure: AssetFailure): Promise<never> {
  await markAssetFailed(asset, failure);
  throw new ApiError('ASSET_CONTENT_MISMATCH', failure.message);
}

/**
 * Checks the uploaded object against the declaration (size, type, and the format its first
 * bytes reveal), then moves it out of `incoming/` so the lifecycle rule no longer applies.
 * Idempotent: an asset already confirmed is returned as it is.
 */
export async function confirmUpload(organizationId: number, assetId: string): Promise<Asset> {
  const asset = await getAsset(organizationId, assetId);
  if (asset.status === 'uploaded') return asset;
  if (asset.status === 'failed') {
    throw new ApiError('ASSET_CONTENT_MISMATCH', asset.failure?.message ?? 'The upload failed verification.');
  }

  const head = await headObject(asset.objectKey);
  if (!head) {
    throw new ApiError(
      'ASSET_NOT_UPLOADED',
      `Asset ${assetId} has no uploaded bytes yet: PUT the file to its upload_url, then confirm again.`,
    );
  }
  if (head.ContentLength !== asset.sizeBytes) {
    await refuse(asset, {
      code: 'SIZE_MISMATCH',
      message: `The uploaded file has ${head.ContentLength} bytes, not the declared size_bytes ${asset.sizeBytes}.`,
    });
  }
  if (head.ContentType !== asset.contentType) {
    await refuse(asset, {
      code: 'CONTENT_TYPE_MISMATCH',
      message: `The file was uploaded as ${head.ContentType ?? 'no type'}, not the declared ${asset.contentType}.`,
    });
  }
  if (!matchesDeclaredType(asset.contentType, await readObjectHead(asset.objectKey))) {
    await refuse(asset, {
      code: 'CONTENT_MISMATCH',
      message: `The uploaded bytes are not a ${asset.contentType} file.`,
    });
  }

  const storedKey = storedObjectKey(organizationId, assetId);
  await copyObject({ bucket: mediaBucket(), key: asset.objectKey }, storedKey, asset.contentType);
  const confirmed = await markAssetUploaded(asset, storedKey);
  if (!confirmed) return confirmUpload(organizationId, assetId);
  await deleteObject(asset.objectKey);
  return confirmed;
}
