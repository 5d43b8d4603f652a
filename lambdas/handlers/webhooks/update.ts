import { operation } from '#contract/operations/updateWebhook';
import { updateWebhookEndpoint } from '#domain/webhooks/endpoints';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters, body }) => ({
  status: 200,
  body: await updateWebhookEndpoint(caller, pathParameters.id, body),
}));
