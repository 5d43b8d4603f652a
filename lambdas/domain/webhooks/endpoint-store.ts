import { GetCommand, paginateQuery, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { WebhookEventType } from '#contract/types';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { isSortableId } from '#platform/ids';
import type { TransactionItem } from '#platform/transactions';
import type { SealedSecret } from './secret-sealing';
import { organizationPartition } from '#platform/table-design';

/**
 * Webhook endpoint items: the one module that knows their keys and attributes. An endpoint sits
 * in its organization's partition (organizationPartition) under `WEBHOOK#<webhook id>`. A deleted
 * endpoint keeps its item, status `deleted` and its secret removed, until TTL takes it
 * (deliveries already recorded still find it and end as failed); the organization item counts
 * the endpoints that are not deleted.
 */

export type EndpointStatus = 'active' | 'disabled' | 'deleted';

/** Why an endpoint was disabled without being asked to. */
export type DisabledReason = 'receiver_gone' | 'persistent_failure';

export interface Endpoint {
  webhookId: string;
  organizationId: number;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  status: EndpointStatus;
  failureCount: number;
  lastSuccessAt: string | null;
  lastFailureAt: string | null;
  /** The first failed attempt since the last success: the start of the automatic disabling window. */
  failingSince: string | null;
  disabledReason: DisabledReason | null;
  /** Internal: the signing secret, sealed; a deleted endpoint has none. Never leaves the service. */
  secretSealed: SealedSecret | null;
  /** Internal: the secret a rotation replaced, sealed, which signs beside the new one until `previousSecretExpiresAt`. */
  previousSecretSealed: SealedSecret | null;
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

interface EndpointItem {
  webhook_id: string;
  organization_id: number;
  url: string;
  description?: string;
  events: WebhookEventType[];
  status: EndpointStatus;
  failure_count: number;
  last_success_at?: string;
  last_failure_at?: string;
  /** The first failed attempt since the last success: the start of the automatic disabling window. */
  failing_since?: string;
  disabled_reason?: DisabledReason;
  secret_sealed?: SealedSecret;
  previous_secret_sealed?: SealedSecret;
  previous_secret_expires_at?: string;
  created_at: string;
  updated_at: string;
  expires_at?: number;
}

function fromItem(item: EndpointItem): Endpoint {
  return {
    webhookId: item.webhook_id,
    organizationId: item.organization_id,
    url: item.url,
    description: item.description ?? null,
    events: item.events,
    status: item.status,
    failureCount: item.failure_count,
    lastSuccessAt: item.last_success_at ?? null,
    lastFailureAt: item.last_failure_at ?? null,
    failingSince: item.failing_since ?? null,
    disabledReason: item.disabled_reason ?? null,
    secretSealed: item.secret_sealed ?? null,
    previousSecretSealed: item.previous_secret_sealed ?? null,
    previousSecretExpiresAt: item.previous_secret_expires_at ?? null,
    createdAt: item.created_at,
    updatedAt: item.updated_at,
  };
}

/** The endpoint's item; what it has not got (a description, a success, a failure, a reason to be disabled) is left out. */
function toItem(endpoint: Endpoint): EndpointItem {
  const optional = {
    description: endpoint.description,
    last_success_at: endpoint.lastSuccessAt,
    last_failure_at: endpoint.lastFailureAt,
    failing_since: endpoint.failingSince,
    disabled_reason: endpoint.disabledReason,
    secret_sealed: endpoint.secretSealed,
    previous_secret_sealed: endpoint.previousSecretSealed,
    previous_secret_expires_at: endpoint.previousSecretExpiresAt,
  };
  return {
    webhook_id: endpoint.webhookId,
    organization_id: endpoint.organizationId,
    url: endpoint.url,
    events: endpoint.events,
    status: endpoint.status,
    failure_count: endpoint.failureCount,
    created_at: endpoint.createdAt,
    updated_at: endpoint.updatedAt,
    ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== null)),
  };
}

const ENDPOINT_PREFIX = 'WEBHOOK#';

export const WEBHOOK_ID_PREFIX = 'webhook_';

/** Whether the text could name an endpoint: anything else is looked up nowhere (nor fits in a key). */
export function isWebhookId(text: string): boolean {
  return isSortableId(WEBHOOK_ID_PREFIX, text);
}

export function endpointKey(organizationId: number, webhookId: string) {
  return { pk: organizationPartition(organizationId), sk: `${ENDPOINT_PREFIX}${webhookId}` };
}

export async function findEndpoint(organizationId: number, webhookId: string): Promise<Endpoint | undefined> {
  if (!isWebhookId(webhookId)) return undefined;
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: endpointKey(organizationId, webhookId), ConsistentRead: true }),
  );
  // The table holds what this module wrote; this is where the stored shape meets its type.
  return Item ? fromItem(Item as EndpointItem) : undefined;
}

/** Every endpoint of the organization, deleted ones included, oldest first (ids sort by creation). */
export async function endpointsOf(organizationId: number): Promise<Endpoint[]> {
  const endpoints: Endpoint[] = [];
  const pages = paginateQuery(
    { client: dynamo() },
    {
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :endpoint)',
      ExpressionAttributeValues: { ':pk': organizationPartition(organizationId), ':endpoint': ENDPOINT_PREFIX },
      ConsistentRead: true,
    },
  );
  for await (const page of pages) endpoints.push(...((page.Items ?? []) as EndpointItem[]).map(fromItem));
  return endpoints;
}

export interface EndpointCounts {
  total: number;
  active: number;
  disabled: number;
}

/** How many endpoints the organization has, by status; deleted ones count in neither. */
export async function endpointCounts(organizationId: number): Promise<EndpointCounts> {
  const endpoints = await endpointsOf(organizationId);
  const active = endpoints.filter((endpoint) => endpoint.status === 'active').length;
  const disabled = endpoints.filter((endpoint) => endpoint.status === 'disabled').length;
  return { total: active + disabled, active, disabled };
}

/** A new endpoint: active, nothing sent to it yet, its secret sealed. */
export function newEndpoint(
  fields: Pick<Endpoint, 'webhookId' | 'organizationId' | 'url' | 'description' | 'events' | 'createdAt'> & {
    secretSealed: SealedSecret;
  },
): Endpoint {
  return {
    ...fields,
    status: 'active',
    failureCount: 0,
    lastSuccessAt: null,
    lastFailureAt: null,
    failingSince: null,
    disabledReason: null,
    previousSecretSealed: null,
    previousSecretExpiresAt: null,
    updatedAt: fields.createdAt,
  };
}

export function endpointPut(endpoint: Endpoint): TransactionItem {
  return {
    Put: {
      TableName: tableName(),
      Item: { ...endpointKey(endpoint.organizationId, endpoint.webhookId), ...toItem(endpoint) },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export interface EndpointChanges {
  url?: string;
  /** null removes it. */
  description?: string | null;
  events?: WebhookEventType[];
  status?: 'active' | 'disabled';
}

/**
 * Applies the changes to an endpoint that is not deleted; undefined when there is none. Turning
 * an endpoint on again restarts its automatic disabling window.
 */
export async function updateEndpoint(
  organizationId: number,
  webhookId: string,
  changes: EndpointChanges,
  now: Date,
): Promise<Endpoint | undefined> {
  if (!isWebhookId(webhookId)) return undefined;
  const sets = ['updated_at = :now'];
  const removes: string[] = [];
  const values: Record<string, unknown> = { ':now': now.toISOString(), ':deleted': 'deleted' };
  const names: Record<string, string> = { '#status': 'status' };
  if (changes.url !== undefined) {
    sets.push('#url = :url');
    names['#url'] = 'url';
    values[':url'] = changes.url;
  }
  if (changes.description === null) removes.push('description');
  else if (changes.description !== undefined) {
    sets.push('description = :description');
    values[':description'] = changes.description;
  }
  if (changes.events !== undefined) {
    sets.push('events = :events');
    values[':events'] = changes.events;
  }
  if (changes.status !== undefined) {
    sets.push('#status = :status');
    values[':status'] = changes.status;
    if (changes.status === 'active') removes.push('failing_since', 'disabled_reason');
  }
  return updateLiveEndpoint(organizationId, webhookId, {
    UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
}

/**
 * One update of an endpoint that exists and is not deleted, answering the endpoint as it is
 * afterwards; undefined when there is no such endpoint. The update's values include `:deleted`.
 */
async function updateLiveEndpoint(
  organizationId: number,
  webhookId: string,
  update: Pick<UpdateCommandInput, 'UpdateExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>,
): Promise<Endpoint | undefined> {
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: endpointKey(organizationId, webhookId),
        ConditionExpression: 'attribute_exists(pk) AND #status <> :deleted',
        ...update,
        ReturnValues: 'ALL_NEW',
      }),
    );
    return fromItem(Attributes as EndpointItem);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/**
 * Seals in a new secret. With an overlap, the secret it replaces becomes the previous one, read
 * from the item in the same update, so of two rotations racing the later one keeps the earlier
 * one's secret as its previous; without, any previous secret stops at once. Undefined for an
 * endpoint that does not exist or is deleted.
 */
export async function rotateEndpointSecret(
  organizationId: number,
  webhookId: string,
  secretSealed: SealedSecret,
  previousSecretExpiresAt: string | null,
  now: Date,
): Promise<Endpoint | undefined> {
  if (!isWebhookId(webhookId)) return undefined;
  const values: Record<string, unknown> = { ':secret': secretSealed, ':now': now.toISOString(), ':deleted': 'deleted' };
  let update = 'SET secret_sealed = :secret, updated_at = :now';
  if (previousSecretExpiresAt) {
    update =
      'SET previous_secret_sealed = secret_sealed, previous_secret_expires_at = :until, secret_sealed = :secret, updated_at = :now';
    values[':until'] = previousSecretExpiresAt;
  } else {
    update += ' REMOVE previous_secret_sealed, previous_secret_expires_at';
  }
  return updateLiveEndpoint(organizationId, webhookId, {
    UpdateExpression: update,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: values,
  });
}

/** Deleted endpoints' items are kept this long, so that deliveries under way still find them. */
const DELETED_RETENTION_SECONDS = 30 * 86_400;

/** For the transaction that deletes an endpoint: marks it deleted and drops its secret. */
export function endpointDeletion(organizationId: number, webhookId: string, now: Date): TransactionItem {
  return {
    Update: {
      TableName: tableName(),
      Key: endpointKey(organizationId, webhookId),
      UpdateExpression:
        'SET #status = :deleted, updated_at = :now, expires_at = :expires REMOVE secret_sealed, previous_secret_sealed, previous_secret_expires_at',
      ConditionExpression: 'attribute_exists(pk) AND #status <> :deleted',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':deleted': 'deleted',
        ':now': now.toISOString(),
        ':expires': Math.floor(now.getTime() / 1000) + DELETED_RETENTION_SECONDS,
      },
    },
  };
}

/** After a successful attempt: the failure streak ends. */
export async function recordEndpointSuccess(organizationId: number, webhookId: string, now: Date): Promise<void> {
  await updateIfPresent(organizationId, webhookId, {
    UpdateExpression: 'SET failure_count = :zero, last_success_at = :now REMOVE failing_since',
    ExpressionAttributeValues: { ':zero': 0, ':now': now.toISOString() },
  });
}

/** After a failed attempt: one more in the streak, which starts now if it had not. */
export async function recordEndpointFailure(organizationId: number, webhookId: string, now: Date): Promise<void> {
  await updateIfPresent(organizationId, webhookId, {
    UpdateExpression:
      'SET failure_count = if_not_exists(failure_count, :zero) + :one, last_failure_at = :now, failing_since = if_not_exists(failing_since, :now)',
    ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':now': now.toISOString() },
  });
}

/** Disables an active endpoint on the service's own decision; an endpoint in another status is left as it is. */
export async function disableEndpoint(
  organizationId: number,
  webhookId: string,
  reason: DisabledReason,
  now: Date,
): Promise<boolean> {
  return updateIfPresent(organizationId, webhookId, {
    UpdateExpression: 'SET #status = :disabled, disabled_reason = :reason, updated_at = :now',
    ConditionExpression: '#status = :active',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: {
      ':disabled': 'disabled',
      ':active': 'active',
      ':reason': reason,
      ':now': now.toISOString(),
    },
  });
}

async function updateIfPresent(
  organizationId: number,
  webhookId: string,
  update: {
    UpdateExpression: string;
    ConditionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues: Record<string, unknown>;
  },
): Promise<boolean> {
  try {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: endpointKey(organizationId, webhookId),
        ...update,
        ConditionExpression: ['attribute_exists(pk)', update.ConditionExpression].filter(Boolean).join(' AND '),
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
