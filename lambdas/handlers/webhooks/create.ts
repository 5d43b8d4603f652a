import { operation } from '#contract/operations/createWebhook';
import { createWebhookEndpoint } from '#domain/webhooks/create-endpoint';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, body }) => ({
  status: 201,
  body: await createWebhookEndpoint(caller, body),
}));
