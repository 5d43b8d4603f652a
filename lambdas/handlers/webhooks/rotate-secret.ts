import { operation } from '#contract/operations/rotateWebhookSecret';
import { rotateWebhookSecret } from '#domain/webhooks/rotate-secret';
import { apiHandler } from '#http/api-handler';

export const handler = apiHandler(operation, async ({ caller, pathParameters, body }) => ({
  status: 200,
  body: await rotateWebhookSecret(caller, pathParameters.id, body),
}));
