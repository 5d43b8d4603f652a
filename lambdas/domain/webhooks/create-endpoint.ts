import type { CreatedWebhookEndpoint, CreateWebhookRequest } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import { slotTakeUpdate } from '#domain/access/organizations';
import { ApiError } from '#platform/errors';
import { sortableId } from '#platform/ids';
import { TransactionRefused, writeTransaction } from '#platform/transactions';
import { endpointPut, newEndpoint, WEBHOOK_ID_PREFIX } from './endpoint-store';
import { checkedUrl } from './endpoints';
import { presentWebhookEndpoint } from './presentation';
import { sealSecret } from './secret-sealing';
import { newSigningSecret } from './signature';

/**
 * POST /webhooks: the endpoint and its sealed secret, and one of the organization's endpoint
 * slots, in one transaction; the secret is returned this once.
 */
export async function createWebhookEndpoint(
  caller: Caller,
  request: CreateWebhookRequest,
  now = new Date(),
): Promise<CreatedWebhookEndpoint> {
  const organizationId = caller.organization.organizationId;
  const url = checkedUrl(request.url);
  const webhookId = sortableId(WEBHOOK_ID_PREFIX, now.getTime());
  const secret = newSigningSecret();
  const endpoint = newEndpoint({
    webhookId,
    organizationId,
    url,
    description: request.description ?? null,
    events: request.events,
    secretSealed: await sealSecret(secret, { organizationId, webhookId }),
    createdAt: now.toISOString(),
  });
  const limit = caller.limits.webhook_endpoints;
  try {
    await writeTransaction({
      endpoint: endpointPut(endpoint),
      organization: slotTakeUpdate(organizationId, 'webhook-endpoint', limit),
    });
  } catch (error) {
    if (error instanceof TransactionRefused && error.failed('organization')) {
      throw new ApiError(
        'VALIDATION_FAILED',
        `The organization already has ${limit} webhook endpoints, its limit (webhook_endpoints); delete one first.`,
      );
    }
    throw error;
  }
  return { ...presentWebhookEndpoint(endpoint), secret };
}
