import { operation } from '#contract/operations/recoverWebhookDeliveries';
import { recoverWebhookDeliveries } from '#domain/webhooks/delivery-replay';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters, body }) => ({
  status: 202,
  body: await recoverWebhookDeliveries(caller, pathParameters.id, body.since),
}));
