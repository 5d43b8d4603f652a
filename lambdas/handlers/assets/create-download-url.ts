import { operation } from '#contract/operations/getAssetDownloadUrl';
import { getAsset } from '#domain/assets/assets';
import { presignDownload } from '#domain/assets/media';
import { presentDownloadUrl } from '#domain/assets/presentation';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => {
  const asset = await getAsset(caller.organization.organizationId, pathParameters.id);
  return { status: 200, body: presentDownloadUrl(asset, await presignDownload(asset)) };
});
