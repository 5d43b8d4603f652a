import { ApiError } from '#platform/errors';
import { findAsset, type Asset, type AssetPurpose } from './asset-store';

/** Another organization's asset and a missing one look the same: both are simply not found. */
export async function getAsset(organizationId: number, assetId: string): Promise<Asset> {
  const asset = await findAsset(organizationId, assetId);
  if (!asset) throw new ApiError('ASSET_NOT_FOUND', `No asset ${assetId} exists.`);
  return asset;
}

/** The kind of media a job reads, by the first part of the asset's type, and what messages call one. */
type MediaKind = 'image' | 'video';
const WITH_ARTICLE: Record<MediaKind, string> = { image: 'an image', video: 'a video' };

/** What a job takes as its source asset: the create route checks the one `source_asset_id` names against it. */
export interface JobSourceNeeds {
  /** The purposes the asset may have; the messages name the first, the intended one. */
  purposes: readonly [AssetPurpose, ...AssetPurpose[]];
  /**
   * The kind of media the job reads, when its purposes alone do not ensure it (`general` allows
   * every type): the asset's type is checked too, and a refusal names it.
   */
  kind?: MediaKind;
  /**
   * The largest source the job reads. The size checked is the declared one, which confirmation
   * holds the bytes to, so a pending asset too large is refused before it is confirmed.
   */
  maxBytes?: number;
}

/**
 * The asset a job's `source_asset_id` names, when the job can take it: this organization's
 * (another's is not found, like a missing one), of a purpose and kind the job takes, no larger
 * than it reads, and confirmed. Otherwise the error that says why, in that order.
 */
export async function jobSourceAsset(organizationId: number, assetId: string, needs: JobSourceNeeds): Promise<Asset> {
  const asset = await findAsset(organizationId, assetId);
  if (!asset) throw new ApiError('ASSET_NOT_FOUND', `source_asset_id ${assetId} does not exist.`);
  const { purposes, kind, maxBytes } = needs;
  if (!purposes.includes(asset.purpose) || (kind && !asset.contentType.startsWith(`${kind}/`))) {
    const wanted = `${kind ? `${WITH_ARTICLE[kind]} asset` : 'an asset'} with purpose ${purposes[0]}`;
    const found = kind ? `is ${asset.contentType} with purpose ${asset.purpose}` : `has purpose ${asset.purpose}`;
    throw new ApiError('ASSET_NOT_READY', `source_asset_id must be ${wanted}; ${assetId} ${found}.`);
  }
  if (maxBytes !== undefined && asset.sizeBytes > maxBytes) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `source_asset_id ${assetId} is ${kind ? WITH_ARTICLE[kind] : 'an asset'} of ${asset.sizeBytes} bytes; ` +
        `a source ${kind ?? 'asset'} may have at most ${maxBytes} bytes (${maxBytes / 1_000_000} MB).`,
    );
  }
  if (asset.status === 'failed') {
    // Confirming a failed asset again answers its 422 again: only a new upload gives a source.
    throw new ApiError(
      'ASSET_NOT_READY',
      `source_asset_id ${assetId} is failed: ${asset.failure?.message ?? 'its upload failed verification.'} ` +
        'Upload the file again as a new asset (POST /assets/upload-url) and use that one.',
    );
  }
  if (asset.status !== 'uploaded') {
    throw new ApiError('ASSET_NOT_READY', `source_asset_id ${assetId} is ${asset.status}; confirm its upload first.`);
  }
  return asset;
}
