import { operation } from '#contract/operations/getSplitJobClips';
import { getSplitJobClips } from '#domain/split-jobs/split-job-clips';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters, query }) => ({
  status: 200,
  body: await getSplitJobClips(caller.organization.organizationId, pathParameters.id, query),
}));
