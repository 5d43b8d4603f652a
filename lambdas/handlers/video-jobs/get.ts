import { operation } from '#contract/operations/getVideoJob';
import { getJobOfType } from '#domain/jobs/jobs';
import { presentVideoJob } from '#domain/video-jobs/presentation';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: presentVideoJob(await getJobOfType(caller.organization.organizationId, pathParameters.id, 'video')),
}));
