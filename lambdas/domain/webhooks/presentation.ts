import type { WebhookDelivery, WebhookEndpoint } from '#contract/types';
import type { Delivery } from './delivery-store';
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

/** A delivery of the log as the API shows it: never its body, which GET /events/{id} shows. */
export function presentWebhookDelivery(delivery: Delivery & { deliveryId: string }): WebhookDelivery {
  return {
    id: delivery.deliveryId,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    status: delivery.status,
    next_attempt_at: delivery.status === 'pending' ? delivery.nextAttemptAt : null,
    failure_reason: delivery.failureReason,
    resend_of: delivery.resendOf,
    created_at: delivery.createdAt,
    attempts: delivery.attemptLog.map((attempt) => ({
      at: attempt.at,
      status_code: attempt.status_code ?? null,
      error: attempt.error ?? null,
      duration_ms: attempt.duration_ms,
      response_body: attempt.response_body ?? null,
    })),
  };
}
