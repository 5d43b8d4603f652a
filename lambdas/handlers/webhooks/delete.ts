import { operation } from '#contract/operations/deleteWebhook';
import { deleteWebhookEndpoint } from '#domain/webhooks/endpoints';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => {
  await deleteWebhookEndpoint(caller, pathParameters.id);
  return { status: 204 };
});
