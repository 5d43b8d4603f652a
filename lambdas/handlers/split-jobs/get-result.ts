import { operation } from '#contract/operations/getSplitJobResult';
import { getSplitJobResult } from '#domain/split-jobs/split-job-clips';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: await getSplitJobResult(caller.organization.organizationId, pathParameters.id),
}));
