import { ApiError } from '#platform/errors';
import { findAsset, type Asset } from './asset-store';

/** Another organization's asset and a missing one look the same: both are simply not found. */
export async function getAsset(organizationId: number, assetId: string): Promise<Asset> {
  const asset = await findAsset(organizationId, assetId);
  if (!asset) throw new ApiError('ASSET_NOT_FOUND', `No asset ${assetId} exists.`);
  return asset;
}
