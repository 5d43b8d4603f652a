import type { OperationId } from '#contract/types';
import type { Scope } from '#domain/access/scopes';
import type { Grant, TableAccess, TableAction } from '#grants';
import type { NamedIn, SettingSourceNames } from '#platform/settings';

/**
 * The route table: the one list of v1 operations that both the CDK API (lib/) and the local
 * server (local/) are built from. `handler` names a module under lambdas/handlers that exports
 * `handler`; `scope` is the API key scope the route requires (null: any valid key); `table` is
 * what its Lambda does with the table (authentication and rate limits included), `grants` what it
 * may touch in AWS beyond the table.
 */

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * Groups of settings a route reads (their variables are the entries of lambdas/platform/settings.ts
 * whose source names the group); the CDK app and the local stack each fill them in.
 */
export type RouteSetting = 'video-pricing';

/** The groups lambdas/platform/settings.ts names as set by routes: each one a RouteSetting. */
export type SettingRouteSettings = NamedIn<SettingSourceNames['route-setting'], RouteSetting>;

export interface Route extends TableAccess {
  readonly method: HttpMethod;
  /** Path below the API prefix, with `{name}` parameters as in the OpenAPI document. */
  readonly path: string;
  readonly operationId: OperationId;
  readonly scope: Scope | null;
  readonly handler: string;
  readonly grants: readonly Grant[];
  /** The handler runs ffmpeg or ffprobe (lambdas/platform/media-tools.ts): in AWS, with the media-tools layer. */
  readonly mediaTools?: true;
  readonly settings?: readonly RouteSetting[];
  /** Answered without an API key, authenticated and counted by nothing (`scope` null, no table access). */
  readonly public?: true;
}

/**
 * What every route does with the table before its operation: reads the API key and its
 * organization (together in one BatchGetItem when the key's prefix names the organization, one
 * GetItem each otherwise), and counts the request against the key's and the organization's limits.
 */
const AUTHENTICATION: readonly TableAction[] = ['GetItem', 'BatchGetItem', 'UpdateItem'];

export const ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/openapi.json',
    operationId: 'getOpenApiDocument',
    scope: null,
    public: true,
    handler: 'reference/openapi',
    table: [],
    grants: [],
  },
  {
    method: 'GET',
    path: '/me',
    operationId: 'getMe',
    scope: null,
    handler: 'me/get',
    table: AUTHENTICATION,
    grants: [],
  },
  {
    method: 'POST',
    path: '/assets/upload-url',
    operationId: 'createAssetUploadUrl',
    scope: 'assets:create',
    handler: 'assets/create-upload-url',
    table: [...AUTHENTICATION, 'PutItem'],
    grants: ['media.incoming:put'],
  },
  {
    method: 'POST',
    path: '/assets/confirm-upload',
    operationId: 'confirmAssetUpload',
    scope: 'assets:create',
    handler: 'assets/confirm-upload',
    table: AUTHENTICATION,
    grants: ['media.incoming:inspect', 'media.assets:put', 'media.assets:abort-upload'],
  },
  {
    method: 'GET',
    path: '/assets/{id}',
    operationId: 'getAsset',
    scope: 'assets:read',
    handler: 'assets/get',
    table: AUTHENTICATION,
    grants: [],
  },
  {
    method: 'GET',
    path: '/assets/{id}/download-url',
    operationId: 'getAssetDownloadUrl',
    scope: 'assets:read',
    handler: 'assets/create-download-url',
    table: AUTHENTICATION,
    grants: ['media.assets:get'],
  },
  {
    method: 'POST',
    path: '/video-jobs',
    operationId: 'createVideoJob',
    scope: 'video:create',
    handler: 'video-jobs/create',
    // A start Step Functions refuses ends the job at once, which moves its job-list entries.
    table: [...AUTHENTICATION, 'PutItem', 'DeleteItem'],
    grants: ['states.video-job:start'],
    settings: ['video-pricing'],
  },
  {
    method: 'GET',
    path: '/video-jobs/{id}',
    operationId: 'getVideoJob',
    scope: 'video:read',
    handler: 'video-jobs/get',
    table: AUTHENTICATION,
    grants: [],
  },
  {
    method: 'GET',
    path: '/video-jobs/{id}/result',
    operationId: 'getVideoJobResult',
    scope: 'video:read',
    handler: 'video-jobs/get-result',
    table: AUTHENTICATION,
    grants: ['media.assets:get'],
  },
  {
    method: 'POST',
    path: '/video-jobs/{id}/cancel',
    operationId: 'cancelVideoJob',
    scope: 'video:create',
    handler: 'video-jobs/cancel',
    // Ends the job in one transaction: its job-list entries move, its event is written. Query: the
    // code that stops a job reads a split job's clips (a video job has none).
    table: [...AUTHENTICATION, 'Query', 'PutItem', 'DeleteItem'],
    grants: ['states.video-job:stop'],
  },
  {
    method: 'POST',
    path: '/split-jobs',
    operationId: 'createSplitJob',
    scope: 'split:create',
    handler: 'split-jobs/create',
    // A start Step Functions refuses ends the job at once, which moves its job-list entries.
    table: [...AUTHENTICATION, 'PutItem', 'DeleteItem'],
    // Probes the source with ffprobe through a presigned URL.
    grants: ['media.assets:get', 'states.split-job:start'],
    mediaTools: true,
  },
  {
    method: 'GET',
    path: '/split-jobs/{id}',
    operationId: 'getSplitJob',
    scope: 'split:read',
    handler: 'split-jobs/get',
    table: AUTHENTICATION,
    grants: [],
  },
  {
    method: 'GET',
    path: '/split-jobs/{id}/clips',
    operationId: 'getSplitJobClips',
    scope: 'split:read',
    handler: 'split-jobs/get-clips',
    table: [...AUTHENTICATION, 'Query'],
    grants: ['media.clips:get'],
  },
  {
    method: 'GET',
    path: '/split-jobs/{id}/result',
    operationId: 'getSplitJobResult',
    scope: 'split:read',
    handler: 'split-jobs/get-result',
    table: [...AUTHENTICATION, 'Query'],
    grants: ['media.clips:get'],
  },
  {
    method: 'POST',
    path: '/split-jobs/{id}/cancel',
    operationId: 'cancelSplitJob',
    scope: 'split:create',
    handler: 'split-jobs/cancel',
    // Reads the clips for the refund and fails the unfinished ones; the ending moves the job-list entries.
    table: [...AUTHENTICATION, 'Query', 'PutItem', 'DeleteItem'],
    grants: ['states.split-job:stop'],
  },
  {
    method: 'GET',
    path: '/jobs',
    operationId: 'listJobs',
    scope: 'jobs:read',
    handler: 'jobs/list',
    table: [...AUTHENTICATION, 'Query'],
    grants: ['secrets.cursor-key:read'],
  },
  {
    method: 'GET',
    path: '/jobs/{id}',
    operationId: 'getJob',
    scope: 'jobs:read',
    handler: 'jobs/get',
    table: AUTHENTICATION,
    grants: [],
  },
  {
    method: 'POST',
    path: '/jobs/{id}/cancel',
    operationId: 'cancelJob',
    // The scope that creates jobs of the job's type, checked once the job is found (cancellation.ts).
    scope: null,
    handler: 'jobs/cancel',
    table: [...AUTHENTICATION, 'Query', 'PutItem', 'DeleteItem'],
    grants: ['states.video-job:stop', 'states.split-job:stop'],
  },
  {
    method: 'POST',
    path: '/webhooks',
    operationId: 'createWebhook',
    scope: 'webhooks:write',
    handler: 'webhooks/create',
    table: [...AUTHENTICATION, 'PutItem'],
    // Seals the new signing secret under a data key that KMS generates and wraps.
    grants: ['kms.webhook-secrets:encrypt'],
  },
  {
    method: 'GET',
    path: '/webhooks',
    operationId: 'listWebhooks',
    scope: 'webhooks:read',
    handler: 'webhooks/list',
    table: [...AUTHENTICATION, 'Query'],
    grants: [],
  },
  {
    method: 'GET',
    path: '/webhooks/{id}',
    operationId: 'getWebhook',
    scope: 'webhooks:read',
    handler: 'webhooks/get',
    table: AUTHENTICATION,
    grants: [],
  },
  {
    method: 'PATCH',
    path: '/webhooks/{id}',
    operationId: 'updateWebhook',
    scope: 'webhooks:write',
    handler: 'webhooks/update',
    table: AUTHENTICATION,
    grants: [],
  },
  {
    method: 'DELETE',
    path: '/webhooks/{id}',
    operationId: 'deleteWebhook',
    scope: 'webhooks:write',
    handler: 'webhooks/delete',
    table: AUTHENTICATION,
    grants: [],
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/test',
    operationId: 'testWebhook',
    scope: 'webhooks:write',
    handler: 'webhooks/test',
    table: [...AUTHENTICATION, 'PutItem'],
    // Writes the test event, its delivery and the day's delivery count in one transaction; the relay
    // queues the delivery like any other event's.
    grants: [],
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/rotate-secret',
    operationId: 'rotateWebhookSecret',
    scope: 'webhooks:write',
    handler: 'webhooks/rotate-secret',
    table: AUTHENTICATION,
    // Seals the new signing secret, as creating an endpoint does.
    grants: ['kms.webhook-secrets:encrypt'],
  },
  {
    method: 'GET',
    path: '/webhooks/{id}/deliveries',
    operationId: 'listWebhookDeliveries',
    scope: 'webhooks:read',
    handler: 'webhooks/list-deliveries',
    // The delivery log is the endpoint's gsi1 partition.
    table: AUTHENTICATION,
    tableIndexes: ['gsi1'],
    grants: ['secrets.cursor-key:read'],
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/deliveries/{delivery_id}/resend',
    operationId: 'resendWebhookDelivery',
    scope: 'webhooks:write',
    handler: 'webhooks/resend-delivery',
    // Finds the delivery in the log (gsi1); records the resend and marks its source in one transaction.
    table: [...AUTHENTICATION, 'PutItem'],
    tableIndexes: ['gsi1'],
    grants: ['queue.webhook-deliveries:send'],
  },
  {
    method: 'POST',
    path: '/webhooks/{id}/recover',
    operationId: 'recoverWebhookDeliveries',
    scope: 'webhooks:write',
    handler: 'webhooks/recover-deliveries',
    // Reads the failed deliveries in the log (gsi1); records each resend and marks its source in one transaction.
    table: [...AUTHENTICATION, 'PutItem'],
    tableIndexes: ['gsi1'],
    grants: ['queue.webhook-deliveries:send'],
  },
  {
    method: 'GET',
    path: '/events',
    operationId: 'listEvents',
    scope: 'webhooks:read',
    handler: 'events/list',
    table: [...AUTHENTICATION, 'Query'],
    grants: ['secrets.cursor-key:read'],
  },
  {
    method: 'GET',
    path: '/events/{id}',
    operationId: 'getEvent',
    scope: 'webhooks:read',
    handler: 'events/get',
    table: AUTHENTICATION,
    grants: [],
  },
  {
    method: 'GET',
    path: '/usage',
    operationId: 'getUsage',
    scope: 'usage:read',
    handler: 'usage/summary',
    table: [...AUTHENTICATION, 'Query'],
    grants: [],
  },
  {
    method: 'GET',
    path: '/usage/credits',
    operationId: 'getUsageCredits',
    scope: 'usage:read',
    handler: 'usage/credits',
    table: [...AUTHENTICATION, 'Query'],
    grants: [],
  },
  {
    method: 'GET',
    path: '/usage/rate-limits',
    operationId: 'getUsageRateLimits',
    scope: 'usage:read',
    handler: 'usage/rate-limits',
    table: AUTHENTICATION,
    grants: [],
  },
  {
    method: 'GET',
    path: '/usage/jobs',
    operationId: 'getUsageJobs',
    scope: 'usage:read',
    handler: 'usage/jobs',
    table: [...AUTHENTICATION, 'Query'],
    grants: [],
  },
  {
    method: 'GET',
    path: '/usage/webhooks',
    operationId: 'getUsageWebhooks',
    scope: 'usage:read',
    handler: 'usage/webhooks',
    table: [...AUTHENTICATION, 'Query'],
    grants: [],
  },
];

export function routeByOperationId(operationId: OperationId): Route {
  const route = ROUTES.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`No route has operationId ${operationId}`);
  return route;
}

/** Module under lambdas/handlers that answers requests matching no route (404, or 405 with Allow). */
export const FALLBACK_HANDLER = 'fallback';

/** The fallback authenticates and rate-limits like every route, and reads nothing else. */
export const FALLBACK_TABLE_ACCESS: TableAccess = { table: AUTHENTICATION };

const compiledTemplates = new Map<string, { pattern: RegExp; names: string[] }>();

/**
 * A path parameter percent-decoded, or as it came when it is not valid percent-encoding of UTF-8:
 * the route still matches and the handler answers for the value like for any id not of ours.
 */
function decodedParameter(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Matches a concrete path against a route's path template (`/assets/{id}`), as API Gateway
 * does: each `{name}` takes one segment. Answers the decoded parameters, or undefined.
 */
export function matchPath(template: string, path: string): Record<string, string> | undefined {
  let compiled = compiledTemplates.get(template);
  if (!compiled) {
    const names: string[] = [];
    const source = template.replace(/\{([^/}]+)\}/g, (_, name: string) => {
      names.push(name);
      return '([^/]+)';
    });
    compiled = { pattern: new RegExp(`^${source}$`), names };
    compiledTemplates.set(template, compiled);
  }
  const match = compiled.pattern.exec(path);
  if (!match) return undefined;
  return Object.fromEntries(compiled.names.map((name, index) => [name, decodedParameter(match[index + 1] as string)]));
}

/** The methods the route table serves at a concrete path below the API prefix. */
export function methodsAt(path: string): HttpMethod[] {
  return ROUTES.filter((route) => matchPath(route.path, path)).map((route) => route.method);
}
