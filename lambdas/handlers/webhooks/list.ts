import { operation } from '#contract/operations/listWebhooks';
import { listWebhookEndpoints } from '#domain/webhooks/endpoints';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller }) => ({
  status: 200,
  body: { data: await listWebhookEndpoints(caller) },
}));
