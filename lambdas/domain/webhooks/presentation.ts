import type { WebhookEndpoint } from '#contract/types';
import type { Endpoint } from './endpoint-store';

/** An endpoint as the API shows it: never its secret, sealed or not. */
export function presentWebhookEndpoint(endpoint: Endpoint): WebhookEndpoint {
  return {
    id: endpoint.webhookId,
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events,
    status: endpoint.status,
    failure_count: endpoint.failureCount,
    last_success_at: endpoint.lastSuccessAt,
    last_failure_at: endpoint.lastFailureAt,
    created_at: endpoint.createdAt,
  };
}
