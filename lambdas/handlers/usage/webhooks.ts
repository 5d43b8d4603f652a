import { operation } from '#contract/operations/getUsageWebhooks';
import { usageWebhooks } from '#domain/usage/usage-reports';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, query }) => ({
  status: 200,
  body: await usageWebhooks(caller, query),
}));
