import { apiHandler } from '../../http/api-handler';
import { getVideoJobResult } from '../../domain/video-jobs';

export const handler = apiHandler('getVideoJobResult', async ({ caller, pathParameters }) => ({
  status: 200,
  body: await getVideoJobResult(caller.organization.organizationId, pathParameters.id ?? ''),
}));
