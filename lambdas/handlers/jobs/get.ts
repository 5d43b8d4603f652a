import { operation } from '#contract/operations/getJob';
import { getAnyJob } from '#domain/jobs/jobs';
import { presentUnifiedJobDetail } from '#domain/jobs/presentation';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: presentUnifiedJobDetail(await getAnyJob(caller.organization.organizationId, pathParameters.id)),
}));
