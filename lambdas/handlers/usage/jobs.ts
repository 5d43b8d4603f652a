import { operation } from '#contract/operations/getUsageJobs';
import { usageJobs } from '#domain/usage/usage-reports';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, query }) => ({
  status: 200,
  body: await usageJobs(caller, query),
}));
