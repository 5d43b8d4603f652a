import { operation } from '#contract/operations/getAsset';
import { getAsset } from '#domain/assets/assets';
import { presentAsset } from '#domain/assets/presentation';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: presentAsset(await getAsset(caller.organization.organizationId, pathParameters.id)),
}));
