import { apiHandler } from '../../http/api-handler';
import { getVideoJob, presentVideoJob } from '../../domain/video-jobs';

export const handler = apiHandler('getVideoJob', async ({ caller, pathParameters }) => ({
  status: 200,
  body: presentVideoJob(await getVideoJob(caller.organization.organizationId, pathParameters.id ?? '')),
}));
