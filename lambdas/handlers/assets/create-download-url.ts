import { apiHandler } from '../../http/api-handler';
import { getAsset, presignDownload } from '../../domain/assets';

export const handler = apiHandler('getAssetDownloadUrl', async ({ caller, pathParameters }) => {
  const asset = await getAsset(caller.organization.organizationId, pathParameters.id ?? '');
  const { url, expiresAt } = await presignDownload(asset);
  return { status: 200, body: { asset_id: asset.assetId, download_url: url, expires_at: expiresAt } };
});
