import { operation } from '#contract/operations/getVideoJobResult';
import { getVideoJobResult } from '#domain/video-jobs/video-job-result';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: await getVideoJobResult(caller.organization.organizationId, pathParameters.id),
}));
