import { operation } from '#contract/operations/createAssetUploadUrl';
import { createUpload } from '#domain/assets/uploads';
import { apiHandler } from '#http/api-handler';
import { checkMetadataSize } from '#platform/metadata';

export const handler = apiHandler(operation, async ({ caller, body }) => {
  checkMetadataSize(body.metadata);
  return {
    status: 201,
    body: await createUpload(caller.organization.organizationId, caller.limits.max_asset_upload_size_bytes, body),
  };
});
