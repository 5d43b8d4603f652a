import { apiHandler } from '../../http/api-handler';
import { getAsset, presentAsset } from '../../domain/assets';

export const handler = apiHandler('getAsset', async ({ caller, pathParameters }) => ({
  status: 200,
  body: presentAsset(await getAsset(caller.organization.organizationId, pathParameters.id ?? '')),
}));
