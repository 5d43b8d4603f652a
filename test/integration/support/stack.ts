import type { Scope } from '#domain/access/scopes';
import type * as Organizations from '#domain/access/organizations';
import type * as ApiKeys from '#domain/access/api-keys';

import { putToUploadUrl } from '@video-automation/client';
import type { UploadUrlResponse } from '#contract/types';

export { putToUploadUrl };

/** Helpers for tests that drive the running local stack (see global-setup.ts). */
export const apiUrl = () => required('IT_API_URL');
export const baseUrl = () => required('IT_BASE_URL');

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run integration tests through jest's integration project`);
  return value;
}

let domain: Promise<{ organizations: typeof Organizations; apiKeys: typeof ApiKeys }> | undefined;

/** The operator's domain functions (what the admin CLI calls), pointed at the stack's emulators. */
function operator() {
  domain ??= (async () => {
    Object.assign(process.env, JSON.parse(required('IT_STACK_ENVIRONMENT')) as Record<string, string>);
    return {
      organizations: await import('#domain/access/organizations'),
      apiKeys: await import('#domain/access/api-keys'),
    };
  })();
  return domain;
}

export interface TestOrganization {
  organizationId: number;
  key: string;
  keyPrefix: string;
}

export async function createOrganization(
  options: {
    plan?: Organizations.Plan;
    credits?: number;
    limits?: Partial<Organizations.Limits>;
    apiAccess?: boolean;
    scopes?: readonly Scope[];
    environment?: 'live' | 'test';
  } = {},
): Promise<TestOrganization> {
  const { organizations, apiKeys } = await operator();
  const { SCOPES } = await import('#domain/access/scopes');
  const organization = await organizations.createOrganization({
    plan: options.plan ?? 'team',
    credits: options.credits ?? 1000,
    negotiatedLimits: options.limits,
    apiAccess: options.apiAccess,
  });
  const { key, apiKey } = await apiKeys.createApiKey({
    organizationId: organization.organizationId,
    environment: options.environment ?? 'test',
    scopes: options.scopes ?? SCOPES,
  });
  return { organizationId: organization.organizationId, key, keyPrefix: apiKey.keyPrefix };
}

export async function createKey(
  organizationId: number,
  options: { scopes?: readonly Scope[]; expiresAt?: string; environment?: 'live' | 'test' } = {},
) {
  const { apiKeys } = await operator();
  const { SCOPES } = await import('#domain/access/scopes');
  return apiKeys.createApiKey({
    organizationId,
    environment: options.environment ?? 'test',
    scopes: options.scopes ?? SCOPES,
    expiresAt: options.expiresAt,
  });
}

export async function revokeKey(prefix: string) {
  const { apiKeys } = await operator();
  return apiKeys.revokeApiKey(prefix);
}

export async function getOrganization(organizationId: number) {
  const { organizations } = await operator();
  return organizations.getOrganization(organizationId);
}

export async function updateOrganization(organizationId: number, changes: Organizations.OrganizationChanges) {
  const { organizations } = await operator();
  return organizations.updateOrganization(organizationId, changes);
}

export async function setCredits(organizationId: number, balance: number) {
  const { organizations } = await operator();
  return organizations.setCreditBalance(organizationId, balance);
}

/** The error envelope every failure answers with. */
export interface ErrorBody {
  error: { code: string; message: string; request_id: string };
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

function isErrorBody(body: unknown): body is ErrorBody {
  if (typeof body !== 'object' || body === null || !('error' in body)) return false;
  const { error } = body;
  return (
    typeof error === 'object' &&
    error !== null &&
    'code' in error &&
    typeof error.code === 'string' &&
    'message' in error &&
    typeof error.message === 'string' &&
    'request_id' in error &&
    typeof error.request_id === 'string'
  );
}

/** The error of a response in the error envelope, whatever the body its success would have; throws for any other body. */
export function errorOf(response: ApiResponse): ErrorBody['error'] {
  if (!isErrorBody(response.body)) {
    throw new Error(`Not the error envelope (status ${response.status}): ${JSON.stringify(response.body)}`);
  }
  return response.body.error;
}

export async function call<T = Record<string, unknown>>(
  method: string,
  path: string,
  options: { key?: string | null; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(options.body);
  }
  const response = await fetch(`${apiUrl()}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}

export const RATE_LIMIT_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'x-ratelimit-limit-organization-day',
  'x-ratelimit-remaining-organization-day',
  'x-ratelimit-reset-organization-day',
];

/** An organization's items whose sort key starts with `prefix`, read straight (and consistently) from the table. */
async function itemsOf<T>(organizationId: number, prefix: string): Promise<T[]> {
  await operator();
  const { dynamo, tableName } = await import('#platform/clients/dynamodb');
  const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
  const { Items } = await dynamo().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': `ORG#${organizationId}`, ':prefix': prefix },
      ConsistentRead: true,
    }),
  );
  return (Items ?? []) as T[];
}

/** The event records the webhook pipeline delivers from. */
export function listEvents(organizationId: number) {
  return itemsOf<{ type: string; payload: Record<string, unknown> }>(organizationId, 'EVENT#');
}

/** The webhook delivery items of an organization, as stored. */
export function listDeliveries(organizationId: number) {
  return itemsOf<{
    event_id: string;
    webhook_id: string;
    status: string;
    attempts: number;
    attempt_log: import('#domain/webhooks/delivery-store').AttemptRecord[];
    next_attempt_at: string;
    failure_reason?: string;
  }>(organizationId, 'DELIVERY#');
}

/** Uploads a video as a split source the documented way (upload URL, PUT with its headers, confirmation): its asset id. */
export async function uploadSplitSource(org: TestOrganization, bytes: Buffer, filename: string): Promise<string> {
  const upload = await call<UploadUrlResponse>('POST', '/assets/upload-url', {
    key: org.key,
    body: { filename, content_type: 'video/mp4', size_bytes: bytes.length, purpose: 'split_source' },
  });
  expect(upload.status).toBe(201);
  const put = await putToUploadUrl(upload.body.upload_url, upload.body.upload_headers, bytes.length, [bytes]);
  expect(put.status).toBe(200);
  const confirmed = await call('POST', '/assets/confirm-upload', {
    key: org.key,
    body: { asset_id: upload.body.asset_id },
  });
  expect(confirmed.status).toBe(200);
  return upload.body.asset_id;
}
