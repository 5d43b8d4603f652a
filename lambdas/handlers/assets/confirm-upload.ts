import { operation } from '#contract/operations/confirmAssetUpload';
import { presentAsset } from '#domain/assets/presentation';
import { confirmUpload } from '#domain/assets/uploads';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, body }) => ({
  status: 200,
  body: presentAsset(await confirmUpload(caller.organization.organizationId, body.asset_id)),
}));
