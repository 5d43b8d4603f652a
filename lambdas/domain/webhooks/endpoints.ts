import type { UpdateWebhookRequest, WebhookEndpoint, WebhookTestResponse } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import { slotReleaseUpdate } from '#domain/access/organizations';
import { eventPut, newEvent } from '#domain/events/events';
import { ApiError } from '#platform/errors';
import { flagSetting, WEBHOOK_LOOPBACK_ALLOWED } from '#platform/settings';
import { TransactionRefused, writeTransaction } from '#platform/transactions';
import { webhookUrlProblem } from './address-policy';
import { deliveryRecording } from './delivery-store';
import {
  endpointDeletion,
  endpointsOf,
  findEndpoint,
  isWebhookId,
  updateEndpoint,
  type Endpoint,
} from './endpoint-store';
import { presentWebhookEndpoint } from './presentation';

/**
 * The webhook routes' domain: endpoints of the caller's organization, and their test events.
 * Creation, which seals a new secret with KMS, is in create-endpoint.ts, so that the other routes
 * bundle no KMS client.
 */

/** The URL when the endpoint rules allow it; else 400 naming the rule. */
export function checkedUrl(url: string): string {
  const problem = webhookUrlProblem(url, { loopbackAllowed: flagSetting(WEBHOOK_LOOPBACK_ALLOWED) });
  if (problem) throw new ApiError('VALIDATION_FAILED', `url: ${problem}`);
  return url;
}

export const webhookNotFound = (webhookId: string) =>
  new ApiError('WEBHOOK_NOT_FOUND', `No webhook endpoint ${webhookId} exists.`);

/** The endpoint unless it is deleted; a deleted one, or none, is 404 like any id not of ours. */
export async function liveEndpoint(organizationId: number, webhookId: string): Promise<Endpoint> {
  const endpoint = await findEndpoint(organizationId, webhookId);
  if (!endpoint || endpoint.status === 'deleted') throw webhookNotFound(webhookId);
  return endpoint;
}

export async function listWebhookEndpoints(caller: Caller): Promise<WebhookEndpoint[]> {
  const endpoints = await endpointsOf(caller.organization.organizationId);
  return endpoints.filter((endpoint) => endpoint.status !== 'deleted').map(presentWebhookEndpoint);
}

export async function getWebhookEndpoint(caller: Caller, webhookId: string): Promise<WebhookEndpoint> {
  return presentWebhookEndpoint(await liveEndpoint(caller.organization.organizationId, webhookId));
}

export async function updateWebhookEndpoint(
  caller: Caller,
  webhookId: string,
  request: UpdateWebhookRequest,
  now = new Date(),
): Promise<WebhookEndpoint> {
  // An update that changes nothing writes nothing: the endpoint as it is, like a GET.
  if (Object.keys(request).length === 0) return getWebhookEndpoint(caller, webhookId);
  const updated = await updateEndpoint(
    caller.organization.organizationId,
    webhookId,
    {
      url: request.url === undefined ? undefined : checkedUrl(request.url),
      description: request.description,
      events: request.events,
      status: request.status,
    },
    now,
  );
  if (!updated) throw webhookNotFound(webhookId);
  return presentWebhookEndpoint(updated);
}

export async function deleteWebhookEndpoint(caller: Caller, webhookId: string, now = new Date()): Promise<void> {
  const organizationId = caller.organization.organizationId;
  if (!isWebhookId(webhookId)) throw webhookNotFound(webhookId);
  try {
    await writeTransaction({
      endpoint: endpointDeletion(organizationId, webhookId, now),
      organization: slotReleaseUpdate(organizationId, 'webhook-endpoint'),
    });
  } catch (error) {
    if (error instanceof TransactionRefused && error.failed('endpoint')) throw webhookNotFound(webhookId);
    throw error;
  }
}

/**
 * Writes a `webhook.test` event for the endpoint and, in the same transaction, its delivery, so
 * that the answer names the delivery the log lists and resend takes. The relay then finds the
 * delivery recorded and queues it like any event's: the test goes out by the very path job events
 * take. An endpoint deleted between the read and the write still gets its delivery, which the
 * worker ends failed (`endpoint_deleted`), as for a delete that comes after.
 */
export async function testWebhookEndpoint(
  caller: Caller,
  webhookId: string,
  now = new Date(),
): Promise<WebhookTestResponse> {
  const organizationId = caller.organization.organizationId;
  await liveEndpoint(organizationId, webhookId);
  const event = newEvent(organizationId, { type: 'webhook.test', data: { webhook_id: webhookId } }, now, webhookId);
  const { deliveryId, items } = deliveryRecording(
    { organizationId, eventId: event.eventId, webhookId },
    { type: event.type, body: JSON.stringify(event.payload) },
    now,
  );
  await writeTransaction({ event: eventPut(event), ...items });
  return { delivery: { id: deliveryId, event_id: event.eventId, event_type: 'webhook.test', status: 'pending' } };
}
