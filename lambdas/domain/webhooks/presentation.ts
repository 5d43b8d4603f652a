import type { WebhookEndpoint } from '#contract/types';
import type { EndpointItem } from './endpoint-store';

/** An endpoint as the API shows it: never its secret, sealed or not. */
export function presentWebhookEndpoint(endpoint: EndpointItem): WebhookEndpoint {
  return {
    id: endpoint.webhook_id,
    url: endpoint.url,
    description: endpoint.description ?? null,
    events: endpoint.events,
    status: endpoint.status,
    failure_count: endpoint.failure_count,
    last_success_at: endpoint.last_success_at ?? null,
    last_failure_at: endpoint.last_failure_at ?? null,
    created_at: endpoint.created_at,
  };
}
