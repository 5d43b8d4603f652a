import { operation } from '#contract/operations/resendWebhookDelivery';
import { resendWebhookDelivery } from '#domain/webhooks/delivery-replay';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters }) => ({
  status: 202,
  body: await resendWebhookDelivery(caller, pathParameters.id, pathParameters.delivery_id),
}));
