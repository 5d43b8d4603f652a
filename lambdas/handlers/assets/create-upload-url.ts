import { operation } from '#contract/operations/createAssetUploadUrl';
import { createUpload } from '#domain/assets/uploads';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, body }) => ({
  status: 201,
  body: await createUpload(caller.organization.organizationId, caller.limits.max_asset_upload_size_bytes, body),
}));
