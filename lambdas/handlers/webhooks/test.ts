import { operation } from '#contract/operations/testWebhook';
import { testWebhookEndpoint } from '#domain/webhooks/endpoints';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 200,
  body: await testWebhookEndpoint(caller, pathParameters.id),
}));
