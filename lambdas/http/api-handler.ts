import middy, { type MiddlewareObj, type Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ApiError, isApiError } from '../domain/errors';
import { authenticate, type Caller } from '../domain/authentication';
import { rateLimitHeaders, type RateLimitState } from '../domain/rate-limits';
import { requestId as newRequestId } from '../domain/ids';
import { routeByOperationId, type Scope } from '../routes';
import { validateRequest } from './validation';
import { log } from './log';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** Largest JSON body any v1 operation needs (8 KB metadata plus the other fields) with room to spare. */
export const MAX_BODY_BYTES = 64 * 1024;

export interface ApiRequest {
  requestId: string;
  method: string;
  /** The raw request path, API prefix included. */
  path: string;
  caller: Caller;
  body: unknown;
  query: Record<string, unknown>;
  pathParameters: Record<string, string>;
  headers: Record<string, string>;
}

export interface ApiResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

interface RequestState {
  requestId: string;
  startedAt: number;
  operationId: string;
  headers: Record<string, string>;
  rateLimit?: RateLimitState;
  caller?: Caller;
  body?: unknown;
  query?: Record<string, unknown>;
}

type ApiMiddyRequest = Request<ApiEvent, ApiResult, Error, Context>;
type ApiMiddleware = MiddlewareObj<ApiEvent, ApiResult, Error, Context>;

/** Per-invocation state, keyed by the event object so middlewares and the operation share it. */
const states = new WeakMap<ApiEvent, RequestState>();

function stateOf(request: ApiMiddyRequest): RequestState {
  const state = states.get(request.event);
  if (!state) throw new Error('The http lifecycle middleware must run first');
  return state;
}

function baseHeaders(state: RequestState): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'Cache-Control': 'no-store',
    'X-Request-Id': state.requestId,
    ...(state.rateLimit ? rateLimitHeaders(state.rateLimit) : {}),
  };
}

export function errorBody(code: string, message: string, requestId: string) {
  return { error: { code, message, request_id: requestId } };
}

/**
 * Gives each request its id, shapes every response (success or error) with the common headers,
 * maps errors to the envelope, and writes one structured log line per request.
 */
function httpLifecycle(operationId: string): ApiMiddleware {
  return {
    before: (request) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.event.headers ?? {})) {
        if (value !== undefined) headers[name.toLowerCase()] = value;
      }
      states.set(request.event, { requestId: newRequestId(), startedAt: Date.now(), operationId, headers });
    },
    after: (request) => {
      const state = stateOf(request);
      request.response = { ...request.response, headers: { ...baseHeaders(state), ...request.response?.headers } };
      writeAccessLog(state, request.response.statusCode ?? 200);
    },
    onError: (request) => {
      const state = stateOf(request);
      const error = request.error;
      const apiError = isApiError(error)
        ? error
        : new ApiError(
            'INTERNAL_ERROR',
            `An unexpected error occurred. Quote request id ${state.requestId} when you contact support.`,
          );
      if (!isApiError(error)) {
        log('error', 'unhandled error', {
          request_id: state.requestId,
          operation: operationId,
          error:
            error instanceof Error ? { name: error.name, message: error.message, stack: error.stack } : String(error),
        });
      }
      request.response = {
        statusCode: apiError.status,
        headers: { ...baseHeaders(state), ...apiError.headers },
        body: JSON.stringify(errorBody(apiError.code, apiError.message, state.requestId)),
      };
      writeAccessLog(state, apiError.status, apiError.code);
    },
  };
}

function writeAccessLog(state: RequestState, status: number, errorCode?: string) {
  log(status >= 500 ? 'error' : 'info', 'request', {
    request_id: state.requestId,
    operation: state.operationId,
    status,
    error_code: errorCode,
    organization_id: state.caller?.organization.organizationId,
    key_prefix: state.caller?.apiKey.keyPrefix,
    duration_ms: Date.now() - state.startedAt,
  });
}

function authenticateCaller(scope: Scope | null): ApiMiddleware {
  return {
    before: async (request) => {
      const state = stateOf(request);
      state.caller = await authenticate(state.headers.authorization, scope, (rateLimit) => {
        state.rateLimit = rateLimit;
      });
    },
  };
}

function parseJsonBody(): ApiMiddleware {
  return {
    before: (request) => {
      const { body, isBase64Encoded } = request.event;
      if (body === undefined || body === null || body === '') return;
      const raw = isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
      if (raw.length > MAX_BODY_BYTES) {
        throw new ApiError('VALIDATION_FAILED', `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
      }
      try {
        stateOf(request).body = JSON.parse(raw.toString('utf8'));
      } catch {
        throw new ApiError('VALIDATION_FAILED', 'The request body is not valid JSON.');
      }
    },
  };
}

function validateInput(operationId: string): ApiMiddleware {
  return {
    before: (request) => {
      const state = stateOf(request);
      const validated = validateRequest(operationId, {
        body: state.body,
        query: request.event.queryStringParameters ?? {},
        headers: state.headers,
      });
      state.body = validated.body;
      state.query = validated.query;
    },
  };
}

/**
 * Builds the Lambda handler of one operation of the route table. The chain reads in request
 * order: lifecycle (ids, headers, envelope, log) → authenticate and rate-limit → parse → validate
 * → the operation.
 */
export function apiHandler(operationId: string, operation: (request: ApiRequest) => Promise<ApiResponse>) {
  return buildHandler(operationId, routeByOperationId(operationId).scope, operation, true);
}

/** The handler for requests that match no route: authenticated like any other, never validated. */
export function fallbackHandler(operation: (request: ApiRequest) => Promise<ApiResponse>) {
  return buildHandler('fallback', null, operation, false);
}

function buildHandler(
  operationId: string,
  scope: Scope | null,
  operation: (request: ApiRequest) => Promise<ApiResponse>,
  validates: boolean,
) {
  const chain = middy<ApiEvent, ApiResult, Error, Context>({ timeoutEarlyInMillis: 0 })
    .use(httpLifecycle(operationId))
    .use(authenticateCaller(scope));
  if (validates) chain.use(parseJsonBody()).use(validateInput(operationId));
  return chain.handler(async (event): Promise<ApiResult> => {
    const state = states.get(event);
    if (!state?.caller) throw new Error('The operation ran without an authenticated caller');
    const response = await operation({
      requestId: state.requestId,
      method: event.requestContext.http.method,
      path: event.rawPath,
      caller: state.caller,
      body: state.body,
      query: state.query ?? {},
      pathParameters: (event.pathParameters ?? {}) as Record<string, string>,
      headers: state.headers,
    });
    return {
      statusCode: response.status,
      headers: response.headers,
      body: response.body === undefined ? '' : JSON.stringify(response.body),
    };
  });
}
