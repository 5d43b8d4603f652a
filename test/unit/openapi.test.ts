import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { parse } from 'yaml';
import { ERROR_STATUS } from '#platform/errors';
import { SCOPES } from '#domain/access/scopes';
import { ROUTES } from '#routes';
import { describeApiContext } from '#domain/access/api-context';
import { TEAM_LIMITS } from '#domain/access/organizations';
import type { JobOf } from '#domain/jobs/job';
import { presentVideoJob } from '#domain/video-jobs/presentation';
import { testCaller } from './support/api-caller';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed YAML is walked dynamically
type Node = Record<string, any>;

const document: Node = parse(readFileSync(path.join(__dirname, '../../docs/openapi.yaml'), 'utf8'));

/** The v1 surface: every operation with the scope it requires (null: any valid key; `public`: no key). */
const OPERATIONS: [method: string, path: string, operationId: string, scope: string | null][] = [
  ['GET', '/openapi.json', 'getOpenApiDocument', 'public'],
  ['GET', '/me', 'getMe', null],
  ['POST', '/assets/upload-url', 'createAssetUploadUrl', 'assets:create'],
  ['POST', '/assets/confirm-upload', 'confirmAssetUpload', 'assets:create'],
  ['GET', '/assets/{id}', 'getAsset', 'assets:read'],
  ['GET', '/assets/{id}/download-url', 'getAssetDownloadUrl', 'assets:read'],
  ['POST', '/video-jobs', 'createVideoJob', 'video:create'],
  ['GET', '/video-jobs/{id}', 'getVideoJob', 'video:read'],
  ['GET', '/video-jobs/{id}/result', 'getVideoJobResult', 'video:read'],
  ['POST', '/video-jobs/{id}/cancel', 'cancelVideoJob', 'video:create'],
  ['POST', '/split-jobs', 'createSplitJob', 'split:create'],
  ['GET', '/split-jobs/{id}', 'getSplitJob', 'split:read'],
  ['GET', '/split-jobs/{id}/clips', 'getSplitJobClips', 'split:read'],
  ['GET', '/split-jobs/{id}/result', 'getSplitJobResult', 'split:read'],
  ['POST', '/split-jobs/{id}/cancel', 'cancelSplitJob', 'split:create'],
  ['GET', '/jobs', 'listJobs', 'jobs:read'],
  ['GET', '/jobs/{id}', 'getJob', 'jobs:read'],
  // The scope of the job's type (video:create or split:create), checked once the job is found.
  ['POST', '/jobs/{id}/cancel', 'cancelJob', null],
  ['POST', '/webhooks', 'createWebhook', 'webhooks:write'],
  ['GET', '/webhooks', 'listWebhooks', 'webhooks:read'],
  ['GET', '/webhooks/{id}', 'getWebhook', 'webhooks:read'],
  ['PATCH', '/webhooks/{id}', 'updateWebhook', 'webhooks:write'],
  ['DELETE', '/webhooks/{id}', 'deleteWebhook', 'webhooks:write'],
  ['POST', '/webhooks/{id}/test', 'testWebhook', 'webhooks:write'],
  ['POST', '/webhooks/{id}/rotate-secret', 'rotateWebhookSecret', 'webhooks:write'],
  ['GET', '/webhooks/{id}/deliveries', 'listWebhookDeliveries', 'webhooks:read'],
  ['POST', '/webhooks/{id}/deliveries/{delivery_id}/resend', 'resendWebhookDelivery', 'webhooks:write'],
  ['POST', '/webhooks/{id}/recover', 'recoverWebhookDeliveries', 'webhooks:write'],
  ['GET', '/events', 'listEvents', 'webhooks:read'],
  ['GET', '/events/{id}', 'getEvent', 'webhooks:read'],
  ['GET', '/usage', 'getUsage', 'usage:read'],
  ['GET', '/usage/credits', 'getUsageCredits', 'usage:read'],
  ['GET', '/usage/rate-limits', 'getUsageRateLimits', 'usage:read'],
  ['GET', '/usage/jobs', 'getUsageJobs', 'usage:read'],
  ['GET', '/usage/webhooks', 'getUsageWebhooks', 'usage:read'],
];

const RATE_LIMIT_HEADERS = [
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-RateLimit-Limit-Organization-Day',
  'X-RateLimit-Remaining-Organization-Day',
  'X-RateLimit-Reset-Organization-Day',
];

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function resolve(node: Node): Node {
  if (typeof node?.$ref !== 'string') return node;
  const target = (node.$ref as string)
    .slice(2)
    .split('/')
    .reduce(
      (current: Node | undefined, segment) => current?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')],
      document,
    );
  if (target === undefined) throw new Error(`Unresolvable reference ${node.$ref}`);
  return resolve(target);
}

function documentedOperations() {
  return Object.entries(document.paths as Node).flatMap(([route, item]) =>
    HTTP_METHODS.filter((method) => item[method]).map((method) => ({
      method: method.toUpperCase(),
      path: route,
      item: item as Node,
      operation: item[method] as Node,
    })),
  );
}

/** The error codes an error response declares (the enum it narrows `error.code` to). */
function errorCodesOf(response: Node): string[] {
  const schema = resolve(response).content?.['application/json']?.schema;
  const narrowing = (schema?.allOf ?? [])
    .map((part: Node) => part.properties?.error?.properties?.code?.enum)
    .find(Boolean);
  return narrowing ?? [];
}

/** An operation answered without a key (`security: []`): no rate limits, so no rate-limit headers on its answers. */
const isPublic = (operation: Node) => Array.isArray(operation.security) && operation.security.length === 0;

function allResponses(): { where: string; status: string; response: Node; operation?: Node }[] {
  const fromOperations = documentedOperations().flatMap(({ method, path: route, operation }) =>
    Object.entries(operation.responses as Node).map(([status, response]) => ({
      where: `${method} ${route} ${status}`,
      status,
      response: resolve(response as Node),
      operation,
    })),
  );
  const fromComponents = Object.entries(document.components.responses as Node).map(([name, response]) => ({
    where: `components.responses.${name}`,
    status: '',
    response: response as Node,
  }));
  return [...fromOperations, ...fromComponents];
}

function collectRefs(node: unknown, found: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((item) => collectRefs(item, found));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string') found.push(value);
      else collectRefs(value, found);
    }
  }
  return found;
}

describe('docs/openapi.yaml', () => {
  it('is an OpenAPI 3.1 document of interface version 1.0.0 served below {base_url}/api/v1/developer', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    expect(document.servers).toHaveLength(1);
    expect(document.servers[0].url).toBe('{base_url}');
    expect(document.servers[0].variables.base_url.default).toMatch(/\/api\/v1\/developer$/);
  });

  it('authenticates with a bearer key', () => {
    expect(document.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('documents exactly the operations listed above', () => {
    const documented = documentedOperations().map(({ method, path: route, operation }) => [
      method,
      route,
      operation.operationId,
    ]);
    expect(documented.sort()).toEqual(
      OPERATIONS.map(([method, route, operationId]) => [method, route, operationId]).sort(),
    );
  });

  it.each(OPERATIONS)(
    '%s %s is %s and requires scope %s in security and x-required-scope',
    (method, route, operationId, scope) => {
      const operation = document.paths[route]?.[method.toLowerCase()];
      expect(operation?.operationId).toBe(operationId);
      const keyless = scope === 'public';
      expect([operation.security, operation['x-required-scope']]).toEqual(
        keyless ? [[], undefined] : [[{ apiKey: scope ? [scope] : [] }], scope],
      );
      expect(keyless || scope === null || (SCOPES as readonly string[]).includes(scope)).toBe(true);
    },
  );

  it('agrees with every route of the route table on operationId and scope', () => {
    for (const route of ROUTES) {
      const operation = document.paths[route.path]?.[route.method.toLowerCase()];
      expect({
        route: `${route.method} ${route.path}`,
        operationId: operation?.operationId,
        public: operation?.security?.length === 0,
        scope: operation?.['x-required-scope'] ?? null,
      }).toEqual({
        route: `${route.method} ${route.path}`,
        operationId: route.operationId,
        public: route.public === true,
        scope: route.scope,
      });
    }
  });

  it('lists every error code of lambdas/platform/errors.ts with the same HTTP status, and no other', () => {
    const documented = Object.fromEntries(
      (document.components.schemas.ErrorCode.oneOf as Node[]).map((entry) => [entry.const, entry['x-http-status']]),
    );
    expect(documented).toEqual(ERROR_STATUS);
  });

  it('has a shared error response for every error code', () => {
    const declared = new Set(
      Object.values(document.components.responses as Node).flatMap((response) => errorCodesOf(response)),
    );
    expect([...declared].sort()).toEqual(Object.keys(ERROR_STATUS).sort());
  });

  it('answers every operation error with the status its code maps to', () => {
    const used = new Set<string>();
    for (const { where, status, response } of allResponses()) {
      if (!status || Number(status) < 400) continue;
      const codes = errorCodesOf(response);
      expect({ where, declaresCodes: codes.length > 0 }).toEqual({ where, declaresCodes: true });
      for (const code of codes) {
        expect({ where, code, status: ERROR_STATUS[code as keyof typeof ERROR_STATUS] }).toEqual({
          where,
          code,
          status: Number(status),
        });
        used.add(code);
      }
    }
    // The two route-level codes answer requests that match no operation.
    const unused = Object.keys(ERROR_STATUS).filter((code) => !used.has(code));
    expect(unused.sort()).toEqual(['METHOD_NOT_ALLOWED', 'ROUTE_NOT_FOUND']);
  });

  it('gives every operation the common failures 400, 401, 403, 429 and 500; a public one, 400 and 500', () => {
    for (const { method, path: route, operation } of documentedOperations()) {
      const common = isPublic(operation) ? ['400', '500'] : ['400', '401', '403', '429', '500'];
      expect({
        op: `${method} ${route}`,
        statuses: common.filter((status) => !operation.responses[status]),
      }).toEqual({
        op: `${method} ${route}`,
        statuses: [],
      });
    }
  });

  it('uses the error envelope for every error response', () => {
    for (const { where, status, response } of allResponses()) {
      if (status && Number(status) < 400) continue;
      const schema = response.content['application/json'].schema;
      expect({ where, envelope: schema.allOf[0].$ref }).toEqual({
        where,
        envelope: '#/components/schemas/ErrorEnvelope',
      });
    }
    const envelope = document.components.schemas.ErrorEnvelope;
    expect(envelope.required).toEqual(['error']);
    expect(envelope.properties.error.required).toEqual(['code', 'message']);
    expect(Object.keys(envelope.properties.error.properties)).toEqual(['code', 'message', 'request_id']);
  });

  it("documents the six rate-limit headers on every response but a public operation's answers, and Retry-After on 429", () => {
    for (const { where, response, status, operation } of allResponses()) {
      if (operation && isPublic(operation) && Number(status) < 400) continue;
      const headers = Object.keys(response.headers ?? {});
      expect({ where, missing: RATE_LIMIT_HEADERS.filter((name) => !headers.includes(name)) }).toEqual({
        where,
        missing: [],
      });
    }
    const tooMany = allResponses().filter(
      ({ status, response }) =>
        status === '429' ||
        errorCodesOf(response).some((code) => ERROR_STATUS[code as keyof typeof ERROR_STATUS] === 429),
    );
    expect(tooMany.length).toBeGreaterThan(0);
    for (const { where, response } of tooMany) {
      const retryAfter = response.headers['Retry-After'] && resolve(response.headers['Retry-After']);
      expect({ where, retryAfter: retryAfter?.schema }).toEqual({ where, retryAfter: { type: 'integer', minimum: 1 } });
    }
  });

  it('answers the create operations 201 and DELETE /webhooks/{id} 204 without a body', () => {
    for (const route of ['/assets/upload-url', '/video-jobs', '/split-jobs', '/webhooks']) {
      expect(Object.keys(document.paths[route].post.responses)).toContain('201');
    }
    const deleted = document.paths['/webhooks/{id}'].delete.responses['204'];
    expect(deleted.content).toBeUndefined();
  });

  it('takes an optional Idempotency-Key of 1 to 120 characters on the two job creates only', () => {
    const withKey = documentedOperations()
      .filter(({ operation }) =>
        (operation.parameters ?? []).some((parameter: Node) => resolve(parameter).name === 'Idempotency-Key'),
      )
      .map(({ operation }) => operation.operationId);
    expect(withKey.sort()).toEqual(['createSplitJob', 'createVideoJob']);
    const parameter = document.components.parameters.IdempotencyKey;
    expect(parameter).toMatchObject({
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 120 },
    });
  });

  it('gives every path id the pattern of its resource', () => {
    const expected: Record<string, string> = {
      '/assets/': '^asset_',
      '/video-jobs/': '^video_job_',
      '/split-jobs/': '^split_job_',
      '/jobs/': '^(video_job_|split_job_)',
      '/webhooks/': '^webhook_',
      '/events/': '^evt_',
    };
    for (const { path: route, item, operation } of documentedOperations()) {
      const pathParameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])]
        .map(resolve)
        .filter((parameter) => parameter.in === 'path');
      const prefix = Object.keys(expected).find((candidate) => route.startsWith(candidate) && route.includes('{id}'));
      expect({
        route,
        patterns: pathParameters.map((parameter) => [parameter.name, parameter.required, parameter.schema.pattern]),
      }).toEqual({
        route,
        patterns: [
          ...(prefix ? [['id', true, expected[prefix]]] : []),
          ...(route.includes('{delivery_id}') ? [['delivery_id', true, '^dlv_']] : []),
        ],
      });
    }
  });

  it('lets GET /events list and filter every event a webhook can deliver, and no other', () => {
    const delivered = Object.entries(document.webhooks as Node).map(([type, item]) => ({
      type,
      schema: item.post.requestBody.content['application/json'].schema.$ref,
    }));
    const listed = (document.components.schemas.Event.oneOf as Node[]).map((member) => member.$ref);
    expect(listed.sort()).toEqual(delivered.map(({ schema }) => schema).sort());
    expect([...document.components.schemas.EventType.enum].sort()).toEqual(delivered.map(({ type }) => type).sort());
    for (const { type, schema } of delivered) expect(resolve({ $ref: schema }).properties.type.const).toBe(type);
  });

  it('has no dangling references', () => {
    for (const ref of collectRefs(document)) expect(() => resolve({ $ref: ref })).not.toThrow();
  });

  describe('schemas', () => {
    // Extensions are annotations here; strict mode is for the request validators, not for this check.
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...document, $id: 'https://openapi.local/v1' });
    const schema = (name: string) => {
      const validate = ajv.getSchema(`https://openapi.local/v1#/components/schemas/${name}`);
      if (!validate) throw new Error(`No schema ${name}`);
      return validate;
    };

    it.each(Object.keys(document.components.schemas))('%s compiles as JSON Schema 2020-12', (name) => {
      expect(() => schema(name)).not.toThrow();
    });

    it('describes GET /me as the route builds it', () => {
      const caller = testCaller({
        apiKey: { keyPrefix: '0123456789abcdef', environment: 'test', scopes: ['jobs:read'] },
        organization: { organizationId: 7, plan: 'team', apiAccess: true, activeVideoJobs: 1, activeSplitJobs: 0 },
        limits: TEAM_LIMITS,
        used: { minute: 3, day: 40 },
      });
      const validate = schema('ApiContext');
      expect(validate(describeApiContext(caller)) ? [] : validate.errors).toEqual([]);
    });

    it('describes a video job as the video job routes present it', () => {
      const job: JobOf<'video'> = {
        jobId: 'video_job_01h',
        organizationId: 7,
        type: 'video',
        status: 'completed',
        progress: 100,
        workStage: 'finishing',
        createdAt: '2025-01-01T00:00:00.000Z',
        updatedAt: '2025-01-01T00:05:00.000Z',
        credits: { estimated: 50, charged: 50, refunded: 0 },
        input: { prompt: 'p', duration_seconds: 5, aspect_ratio: '9:16', model: 'auto', mode: 'text_to_video' },
        metadata: { external_id: 'order-42' },
        outputAssetId: 'asset_01h',
        error: null,
        providerJobId: 'provider-secret',
        clipsCount: null,
        createdByKey: '0123456789abcdef',
        tracked: true,
      };
      const validate = schema('VideoJob');
      expect(validate(presentVideoJob(job)) ? [] : validate.errors).toEqual([]);
      const failed = {
        ...job,
        status: 'failed' as const,
        outputAssetId: null,
        metadata: null,
        error: { code: 'GENERATION_FAILED', message: 'x' },
      };
      expect(validate(presentVideoJob(failed)) ? [] : validate.errors).toEqual([]);
    });

    it('keeps the spec fields of an asset, and only those', () => {
      const asset = document.components.schemas.Asset;
      expect(Object.keys(asset.properties).sort()).toEqual(
        ['content_type', 'created_at', 'filename', 'id', 'metadata', 'purpose', 'size_bytes', 'status'].sort(),
      );
      expect(asset.additionalProperties).toBe(false);
    });

    it('keeps signed URLs out of the unified job routes', () => {
      const result = document.components.schemas.UnifiedJobResult;
      expect(Object.keys(result.properties).sort()).toEqual([
        'asset_id',
        'available',
        'clips_count',
        'clips_url',
        'result_url',
      ]);
      expect(result.properties.result_url.pattern).toBe('^/api/v1/developer/');
    });

    it('accepts a well-formed error envelope and rejects an unknown code', () => {
      const validate = schema('ErrorEnvelope');
      expect(validate({ error: { code: 'JOB_NOT_READY', message: 'Not yet', request_id: 'req_1' } })).toBe(true);
      expect(validate({ error: { code: 'NOT_A_CODE', message: 'x' } })).toBe(false);
    });
  });
});
