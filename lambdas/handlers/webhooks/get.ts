import { operation } from '#contract/operations/getWebhook';
import { getWebhookEndpoint } from '#domain/webhooks/endpoints';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: await getWebhookEndpoint(caller, pathParameters.id),
}));
