import { operation } from '#contract/operations/getSplitJob';
import { getJobOfType } from '#domain/jobs/jobs';
import { presentSplitJob } from '#domain/split-jobs/presentation';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: presentSplitJob(await getJobOfType(caller.organization.organizationId, pathParameters.id, 'split')),
}));
