import { operation } from '#contract/operations/listWebhookDeliveries';
import { listWebhookDeliveries } from '#domain/webhooks/delivery-log';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters, query }) => {
  const page = await listWebhookDeliveries(caller, pathParameters.id, query);
  return { status: 200, body: { data: page.deliveries, pagination: { next_cursor: page.nextCursor } } };
});
