import { apiHandler } from '../../http/api-handler';
import { confirmUpload, presentAsset } from '../../domain/assets';

export const handler = apiHandler('confirmAssetUpload', async ({ caller, body }) => {
  const { asset_id: assetId } = body as { asset_id: string };
  return { status: 200, body: presentAsset(await confirmUpload(caller.organization.organizationId, assetId)) };
});
