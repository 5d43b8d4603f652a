/**
 * The route table: the one list of v1 operations that both the CDK API (lib/) and the local
 * server (local/) are built from. `handler` names a module under lambdas/handlers that exports
 * `handler`; `scope` is the API key scope the route requires (null: any valid key).
 */
export const SCOPES = [
  'assets:create',
  'assets:read',
  'video:create',
  'video:read',
  'split:create',
  'split:read',
  'jobs:read',
  'usage:read',
  'webhooks:read',
  'webhooks:write',
] as const;
export type Scope = (typeof SCOPES)[number];

export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/**
 * What a route's Lambda may touch beyond the table (every route reads and writes the table for
 * authentication and rate limits). The CDK app turns each into the narrowest IAM grant.
 * Media bucket layout: `incoming/` holds uploads until confirmed, `assets/` confirmed and
 * rendered assets.
 */
export type Access =
  | 'incoming:sign-put' // presign PutObject under incoming/
  | 'incoming:inspect' // HeadObject/GetObject/DeleteObject under incoming/
  | 'assets:write' // PutObject (copy target) under assets/
  | 'assets:sign-get' // presign GetObject under assets/
  | 'video-jobs:start'; // StartExecution of the video job state machine

export interface Route {
  readonly method: HttpMethod;
  /** Path below the API prefix, with `{name}` parameters as in the OpenAPI document. */
  readonly path: string;
  readonly operationId: string;
  readonly scope: Scope | null;
  readonly handler: string;
  readonly access: readonly Access[];
}

export const API_PREFIX = '/api/v1/developer';

export const ROUTES: readonly Route[] = [
  { method: 'GET', path: '/me', operationId: 'getMe', scope: null, handler: 'me/get', access: [] },
  {
    method: 'POST',
    path: '/assets/upload-url',
    operationId: 'createAssetUploadUrl',
    scope: 'assets:create',
    handler: 'assets/create-upload-url',
    access: ['incoming:sign-put'],
  },
  {
    method: 'POST',
    path: '/assets/confirm-upload',
    operationId: 'confirmAssetUpload',
    scope: 'assets:create',
    handler: 'assets/confirm-upload',
    access: ['incoming:inspect', 'assets:write'],
  },
  {
    method: 'GET',
    path: '/assets/{id}',
    operationId: 'getAsset',
    scope: 'assets:read',
    handler: 'assets/get',
    access: [],
  },
  {
    method: 'GET',
    path: '/assets/{id}/download-url',
    operationId: 'getAssetDownloadUrl',
    scope: 'assets:read',
    handler: 'assets/create-download-url',
    access: ['assets:sign-get'],
  },
  {
    method: 'POST',
    path: '/video-jobs',
    operationId: 'createVideoJob',
    scope: 'video:create',
    handler: 'video-jobs/create',
    access: ['video-jobs:start'],
  },
  {
    method: 'GET',
    path: '/video-jobs/{id}',
    operationId: 'getVideoJob',
    scope: 'video:read',
    handler: 'video-jobs/get',
    access: [],
  },
  {
    method: 'GET',
    path: '/video-jobs/{id}/result',
    operationId: 'getVideoJobResult',
    scope: 'video:read',
    handler: 'video-jobs/get-result',
    access: ['assets:sign-get'],
  },
];

export function routeByOperationId(operationId: string): Route {
  const route = ROUTES.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`No route has operationId ${operationId}`);
  return route;
}

/** Module under lambdas/handlers that answers requests matching no route (404, or 405 with Allow). */
export const FALLBACK_HANDLER = 'fallback';

const compiledTemplates = new Map<string, { pattern: RegExp; names: string[] }>();

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
  return Object.fromEntries(
    compiled.names.map((name, index) => [name, decodeURIComponent(match[index + 1] as string)]),
  );
}

/** The methods the route table serves at a concrete path below the API prefix. */
export function methodsAt(path: string): HttpMethod[] {
  return ROUTES.filter((route) => matchPath(route.path, path)).map((route) => route.method);
}
