import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { OperationContract, OperationId, Operations } from '#contract/types';
import { authenticate, type Caller } from '#domain/access/authentication';
import { rateLimitHeaders, type RateLimitState } from '#domain/access/rate-limits';
import type { Scope } from '#domain/access/scopes';
import { ApiError, isApiError } from '#platform/errors';
import { requestId as newRequestId } from '#platform/ids';
import { invocationFields } from '#platform/invocation';
import { log, withLogContext } from '#platform/log';
import { routeByOperationId } from '#routes';
import { pathParametersOf, validateRequest } from './validation';

export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** Largest JSON body any v1 operation needs (8 KB metadata plus the other fields) with room to spare. */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Deepest nesting of objects and arrays a JSON body may have. 64 KB of `[` parse fine, but copying,
 * serializing and storing a value recurse per level and overflow the stack a few thousand levels
 * down; no operation needs anything near this bound.
 */
export const MAX_BODY_NESTING = 256;

/** What an operation receives: the caller, and its request typed and validated by the contract. */
export interface ApiRequest<Id extends OperationId> {
  requestId: string;
  caller: Caller;
  body: Operations[Id]['body'];
  query: Operations[Id]['query'];
  pathParameters: Operations[Id]['path'];
  headers: Operations[Id]['headers'];
}

type Responses<Id extends OperationId> = Operations[Id]['responses'];

/**
 * One of the operation's documented success responses; a body that drifts from the document fails
 * tsc. (`Extract<Status, number>` rather than `Status`: it keeps a handler's `status: 200` the
 * literal 200 while the operation's type is still being inferred.)
 */
export type ApiResponse<Id extends OperationId> = {
  [Status in keyof Responses<Id>]: undefined extends Responses<Id>[Status]
    ? { status: Extract<Status, number>; body?: undefined; headers?: Record<string, string> }
    : { status: Extract<Status, number>; body: Responses<Id>[Status]; headers?: Record<string, string> };
}[keyof Responses<Id>];

/** What the request that matched no route can say about itself. */
export interface UnroutedRequest {
  requestId: string;
  caller: Caller;
  method: string;
  /** The raw request path, API prefix included. */
  path: string;
}

/** Per-request state the middlewares share, on the Lambda context of the invocation (set before the chain runs). */
interface RequestState {
  requestId: string;
  startedAt: number;
  headers: Record<string, string>;
  rateLimit?: RateLimitState;
  caller?: Caller;
}

type ApiContext = Context & { request?: RequestState };
type ApiMiddleware = MiddlewareObj<ApiEvent, ApiResult, Error, ApiContext>;

function stateOf(context: ApiContext): RequestState {
  if (!context.request) throw new Error('The chain ran outside its invocation wrapper');
  return context.request;
}

function callerOf(context: ApiContext): { state: RequestState; caller: Caller } {
  const state = stateOf(context);
  if (!state.caller) throw new Error('The operation ran without an authenticated caller');
  return { state, caller: state.caller };
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

function newRequestState(event: ApiEvent): RequestState {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  return { requestId: newRequestId(), startedAt: Date.now(), headers };
}

/**
 * Shapes every response (success or error) with the common headers, maps errors to the envelope,
 * and writes one structured log line per request.
 */
function httpLifecycle(): ApiMiddleware {
  return {
    after: (request) => {
      const state = stateOf(request.context);
      request.response = {
        ...request.response,
        headers: { ...baseHeaders(state), ...request.response?.headers },
      };
      writeAccessLog(state, request.response.statusCode ?? 200);
    },
    onError: (request) => {
      const state = stateOf(request.context);
      const error = request.error;
      const apiError = isApiError(error)
        ? error
        : new ApiError(
            'INTERNAL_ERROR',
            `An unexpected error occurred. Quote request id ${state.requestId} when you contact support.`,
          );
      if (!isApiError(error)) log('error', 'unhandled error', { error });
      request.response = {
        statusCode: apiError.status,
        headers: { ...baseHeaders(state), ...apiError.headers },
        body: JSON.stringify(errorBody(apiError.code, apiError.message, state.requestId)),
      };
      writeAccessLog(state, apiError.status, apiError.code);
    },
  };
}

/** The request's line; its ids, operation and organization come from the log context. */
function writeAccessLog(state: RequestState, status: number, errorCode?: string) {
  log(status >= 500 ? 'error' : 'info', 'request', {
    status,
    error_code: errorCode,
    duration_ms: Date.now() - state.startedAt,
  });
}

function authenticateCaller(scope: Scope | null): ApiMiddleware {
  return {
    before: async ({ context }) => {
      const state = stateOf(context);
      state.caller = await authenticate(state.headers.authorization, scope, (rateLimit) => {
        state.rateLimit = rateLimit;
      });
    },
  };
}

/** How deeply objects and arrays nest in a JSON text, counted without recursion. */
function nestingDepth(json: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < json.length; index++) {
    const character = json[index];
    if (inString) {
      if (character === '\\') index++;
      else if (character === '"') inString = false;
    } else if (character === '"') {
      inString = true;
    } else if (character === '{' || character === '[') {
      deepest = Math.max(deepest, ++depth);
    } else if (character === '}' || character === ']') {
      depth--;
    }
  }
  return deepest;
}

/** The JSON body of an operation that takes one; an operation without a body ignores what was sent. */
function parseJsonBody({ body, isBase64Encoded }: ApiEvent): unknown {
  if (body === undefined || body === null || body === '') return undefined;
  const raw = isBase64Encoded ? Buffer.from(body, 'base64') : Buffer.from(body, 'utf8');
  if (raw.length > MAX_BODY_BYTES) {
    throw new ApiError('VALIDATION_FAILED', `The request body exceeds ${MAX_BODY_BYTES} bytes.`);
  }
  const text = raw.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError('VALIDATION_FAILED', 'The request body is not valid JSON.');
  }
  if (nestingDepth(text) > MAX_BODY_NESTING) {
    throw new ApiError(
      'VALIDATION_FAILED',
      `The request body nests objects and arrays deeper than ${MAX_BODY_NESTING} levels.`,
    );
  }
  return parsed;
}

function chain(scope: Scope | null) {
  return middy<ApiEvent, ApiResult, Error, ApiContext>({ timeoutEarlyInMillis: 0 })
    .use(httpLifecycle())
    .use(authenticateCaller(scope));
}

/**
 * One invocation of the chain: the request gets its id and state, and everything logged while
 * it runs carries the request's ids (ours, API Gateway's, Lambda's), its trace and its operation.
 */
function invocation(operationId: string, handler: (event: ApiEvent, context: ApiContext) => Promise<ApiResult>) {
  return (event: ApiEvent, context: Context): Promise<ApiResult> => {
    const request = newRequestState(event);
    return withLogContext(
      {
        request_id: request.requestId,
        api_gateway_request_id: event.requestContext?.requestId,
        ...invocationFields(context),
        operation: operationId,
      },
      () => handler(event, Object.assign(context, { request })),
    );
  };
}

/**
 * Builds the Lambda handler of one operation of the route table from the operation's contract
 * module (`#contract/operations/<operationId>`). The chain reads in request order: the
 * invocation (request id, log context) → lifecycle (headers, envelope, log line) → authenticate
 * and rate-limit → parse and validate → the operation, which gets its typed request and must
 * answer one of its documented responses.
 */
export function apiHandler<Id extends OperationId>(
  operation: OperationContract<Id>,
  run: NoInfer<(request: ApiRequest<Id>) => Promise<ApiResponse<Id>>>,
) {
  const handler = chain(routeByOperationId(operation.operationId).scope).handler(
    async (event, context): Promise<ApiResult> => {
      const { state, caller } = callerOf(context);
      const request = validateRequest(operation, {
        body: operation.hasBody ? parseJsonBody(event) : undefined,
        query: event.queryStringParameters,
        headers: state.headers,
      });
      const pathParameters = pathParametersOf(operation, event.pathParameters);
      const response = await run({ requestId: state.requestId, caller, pathParameters, ...request });
      return {
        statusCode: response.status,
        headers: response.headers,
        body: response.body === undefined ? '' : JSON.stringify(response.body),
      };
    },
  );
  return invocation(operation.operationId, handler);
}

/** The handler for requests that match no route: authenticated like any other, never validated. */
export function fallbackHandler(run: (request: UnroutedRequest) => Promise<never>) {
  const handler = chain(null).handler(async (event, context): Promise<ApiResult> => {
    const { state, caller } = callerOf(context);
    return run({ requestId: state.requestId, caller, method: event.requestContext.http.method, path: event.rawPath });
  });
  return invocation('fallback', handler);
}
