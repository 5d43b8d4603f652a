import type { Asset as AssetResource, AssetDownloadUrl } from '#contract/types';
import type { Asset } from './asset-store';

/** The Asset object of the API. */
export function presentAsset(asset: Asset): AssetResource {
  return {
    id: asset.assetId,
    filename: asset.filename,
    content_type: asset.contentType,
    size_bytes: asset.sizeBytes,
    purpose: asset.purpose,
    status: asset.status,
    created_at: asset.createdAt,
    metadata: asset.metadata,
  };
}

export function presentDownloadUrl(asset: Asset, download: { url: string; expiresAt: string }): AssetDownloadUrl {
  return { asset_id: asset.assetId, download_url: download.url, expires_at: download.expiresAt };
}
