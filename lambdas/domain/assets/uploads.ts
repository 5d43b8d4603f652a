import type { Operations, UploadUrlResponse } from '#contract/types';
import { ApiError } from '#platform/errors';
import { checkMetadataSize } from '#platform/metadata';
import { sortableId } from '#platform/ids';
import { getAsset } from './assets';
import { markAssetFailed, markAssetUploaded, putPendingAsset, type Asset, type AssetFailure } from './asset-store';
import {
  copyInspectedObject,
  deleteObject,
  isRefusalOfMissingKey,
  ObjectChangedError,
  presignUpload,
  readUpload,
  UPLOAD_URL_TTL_SECONDS,
  type UploadedObject,
} from './media';
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
  checkMetadataSize(request.metadata);
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
    videoProbe: null,
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
 * How many times a confirmation starts over because the upload was replaced under it (the upload
 * URL stays valid for an hour) before it answers that the upload is still changing.
 */
export const CONFIRM_ATTEMPTS = 3;

/** A confirmed asset as it is, a failed one as its 422; undefined while the asset is pending. */
function settledAnswer(asset: Asset): Asset | undefined {
  if (asset.status === 'uploaded') return asset;
  if (asset.status === 'failed') {
    throw new ApiError('ASSET_CONTENT_MISMATCH', asset.failure?.message ?? 'The upload failed verification.');
  }
  return undefined;
}

/**
 * Checks the uploaded object against the declaration (size, type, and the format its first
 * bytes reveal), then copies that very version out of `incoming/`, where its upload URL could
 * still replace it and the lifecycle rule would delete it.
 *
 * Idempotent, and consistent under concurrency: whichever confirmation settles the asset first
 * decides, and every other one answers what it decided (the same asset, or the same 422).
 */
export async function confirmUpload(organizationId: number, assetId: string): Promise<Asset> {
  const uploadKey = incomingObjectKey(organizationId, assetId);
  for (let attempt = 1; ; attempt += 1) {
    // The upload is read beside the asset rather than after it: one round trip less, for a read
    // wasted only when the asset turns out to be settled already, or not to exist.
    const [assetRead, uploadRead] = await Promise.allSettled([
      getAsset(organizationId, assetId),
      readUpload(uploadKey),
    ]);
    if (assetRead.status === 'rejected') throw assetRead.reason;
    const asset = assetRead.value;
    const settled = settledAnswer(asset);
    if (settled) return settled;
    if (attempt > CONFIRM_ATTEMPTS) {
      throw new ApiError(
        'ASSET_NOT_UPLOADED',
        `The bytes of asset ${assetId} were replaced while they were being confirmed: finish the upload, then confirm again.`,
      );
    }

    const outcome = await verifyAndStore(asset, await uploadOf(uploadRead, uploadKey));
    if (outcome.state === 'confirmed') return outcome.asset;
    if (outcome.state === 'missing') {
      // A concurrent confirmation deletes the upload only once the asset is recorded as uploaded.
      const now = settledAnswer(await getAsset(organizationId, assetId));
      if (now) return now;
      throw new ApiError(
        'ASSET_NOT_UPLOADED',
        `Asset ${assetId} has no uploaded bytes yet: PUT the file to its upload_url, then confirm again.`,
      );
    }
    // `replaced`: verify the new version from the start; `overtaken`: answer what the concurrent confirmation decided.
  }
}

/**
 * The upload as read, or undefined when nothing is there. A 403 is told apart from a real denial
 * only here, once the asset is known to be pending: an unknown or settled asset costs no listing.
 */
async function uploadOf(
  read: PromiseSettledResult<UploadedObject | undefined>,
  uploadKey: string,
): Promise<UploadedObject | undefined> {
  if (read.status === 'fulfilled') return read.value;
  if (await isRefusalOfMissingKey(read.reason, uploadKey)) return undefined;
  throw read.reason;
}

type StoreOutcome = { state: 'confirmed'; asset: Asset } | { state: 'missing' | 'replaced' | 'overtaken' };

/** One verification of the version of the upload read, and its copy under assets/. */
async function verifyAndStore(asset: Asset, upload: UploadedObject | undefined): Promise<StoreOutcome> {
  if (!upload) return { state: 'missing' };
  if (upload.sizeBytes !== asset.sizeBytes) {
    await refuse(asset, {
      code: 'SIZE_MISMATCH',
      message: `The uploaded file has ${upload.sizeBytes} bytes, not the declared size_bytes ${asset.sizeBytes}.`,
    });
  }
  if (upload.contentType !== asset.contentType) {
    await refuse(asset, {
      code: 'CONTENT_TYPE_MISMATCH',
      message: `The file was uploaded as ${upload.contentType ?? 'no type'}, not the declared ${asset.contentType}.`,
    });
  }
  if (!matchesDeclaredType(asset.contentType, upload.head)) {
    await refuse(asset, {
      code: 'CONTENT_MISMATCH',
      message: `The uploaded bytes are not a ${asset.contentType} file.`,
    });
  }

  const storedKey = storedObjectKey(asset.organizationId, asset.assetId);
  try {
    await copyInspectedObject(upload, storedKey, asset.contentType);
  } catch (error) {
    if (error instanceof ObjectChangedError) return { state: error.change };
    throw error;
  }

  const confirmed = await markAssetUploaded(asset, storedKey);
  if (!confirmed) return { state: 'overtaken' };
  await deleteObject(upload.key);
  return { state: 'confirmed', asset: confirmed };
}
