import { apiHandler } from '../../http/api-handler';
import { createUpload, type UploadRequest } from '../../domain/assets';

export const handler = apiHandler('createAssetUploadUrl', async ({ caller, body }) => ({
  status: 201,
  body: await createUpload(
    caller.organization.organizationId,
    caller.limits.max_asset_upload_size_bytes,
    body as UploadRequest,
  ),
}));
