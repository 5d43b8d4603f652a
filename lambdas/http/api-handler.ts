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

/** What the pipeline knows of the request before the operation runs. */
interface RequestState {
  requestId: string;
  startedAt: number;
  /** The request's headers, names lower-cased, values read as text (headerText). */
  headers: Record<string, string>;
  /** Set once the request is counted, so that every later response carries the rate-limit headers, errors included. */
  rateLimit?: RateLimitState;
}

/** An operation's answer before the pipeline adds the common headers. */
interface OperationResult {
  statusCode: number;
  headers?: Record<string, string>;
  body: string;
}

/** What an API function does once its caller is authenticated and counted (or, on a public route, with no caller). */
type Answer<C> = (event: ApiEvent, state: RequestState, caller: C) => Promise<OperationResult>;

/** Who is calling: the key's caller, authenticated and counted against its rate limits; nobody on a public route. */
type Identify<C> = (state: RequestState) => Promise<C>;

function keyHolder(scope: Scope | null): Identify<Caller> {
  return (state) =>
    authenticate(state.headers.authorization, scope, (rateLimit) => {
      state.rateLimit = rateLimit;
    });
}

const nobody: Identify<undefined> = async () => undefined;

/**
 * A header value as the text its bytes spell. HTTP carries header values as bytes, and Node's
 * HTTP parser (the local gateway's) hands them over one character a byte, as ISO-8859-1; clients
 * send text beyond ASCII as UTF-8 (curl as typed; fetch takes single bytes only). So a value
 * whose bytes are valid UTF-8 is read as that text: an `Idempotency-Key` of 120 "€" is the 120
 * characters the contract allows, not 360. A value holding a character beyond U+00FF was decoded
 * on the way already, and one whose bytes are not UTF-8 is ISO-8859-1: both stay as they came.
 */
function headerText(value: string): string {
  if (!/[\x80-\xff]/.test(value) || /[\u0100-\uffff]/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  const text = bytes.toString('utf8');
  // Invalid UTF-8 decodes to U+FFFD, whose bytes are not the ones sent.
  return Buffer.from(text, 'utf8').equals(bytes) ? text : value;
}

function newRequestState(event: ApiEvent): RequestState {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) {
    if (value !== undefined) headers[name.toLowerCase()] = headerText(value);
  }
  return { requestId: newRequestId(), startedAt: Date.now(), headers };
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

function commonHeaders(state: RequestState): Record<string, string> {
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

/** The request's line; its ids, operation and organization come from the log context. */
function writeAccessLog(state: RequestState, status: number, errorCode?: string) {
  log(status >= 500 ? 'error' : 'info', 'request', {
    status,
    error_code: errorCode,
    duration_ms: Date.now() - state.startedAt,
  });
}

/** The operation's answer with the common headers; the operation's own headers win. */
function successResponse(state: RequestState, result: OperationResult): ApiResult {
  const response = { ...result, headers: { ...commonHeaders(state), ...result.headers } };
  writeAccessLog(state, response.statusCode);
  return response;
}

/** An error the application did not expect: logged in full, answered without its internals. */
function internalError(error: unknown, requestId: string): ApiError {
  log('error', 'unhandled error', { error });
  return new ApiError(
    'INTERNAL_ERROR',
    `An unexpected error occurred. Quote request id ${requestId} when you contact support.`,
  );
}

/** The error envelope of the contract, with the status and extra headers the error carries. */
function errorResponse(state: RequestState, error: unknown): ApiResult {
  const apiError = isApiError(error) ? error : internalError(error, state.requestId);
  writeAccessLog(state, apiError.status, apiError.code);
  return {
    statusCode: apiError.status,
    headers: { ...commonHeaders(state), ...apiError.headers },
    body: JSON.stringify(errorBody(apiError.code, apiError.message, state.requestId)),
  };
}

/**
 * The request pipeline every API function runs, in request order: the request gets its id, and
 * everything logged from then on carries the request's ids (ours, API Gateway's, Lambda's), its
 * trace and its operation; the caller is authenticated and counted against its rate limits; the
 * function answers; the response gets the common headers, or, for any error on the way, the
 * error envelope; and the request writes its one access log line.
 */
function requestPipeline<C>(operationId: string, identify: Identify<C>, answer: Answer<C>) {
  return (event: ApiEvent, context: Context): Promise<ApiResult> => {
    const state = newRequestState(event);
    const logContext = {
      request_id: state.requestId,
      api_gateway_request_id: event.requestContext?.requestId,
      ...invocationFields(context),
      operation: operationId,
    };
    return withLogContext(logContext, async () => {
      try {
        return successResponse(state, await answer(event, state, await identify(state)));
      } catch (error) {
        return errorResponse(state, error);
      }
    });
  };
}

/** The request validated against the operation's contract, then the operation's typed answer. */
function validatedAnswer<Id extends OperationId, C>(
  operation: OperationContract<Id>,
  run: (request: Omit<ApiRequest<Id>, 'caller'>, caller: C) => Promise<ApiResponse<Id>>,
): Answer<C> {
  return async (event, state, caller) => {
    const request = validateRequest(operation, {
      body: operation.hasBody ? parseJsonBody(event) : undefined,
      query: event.queryStringParameters,
      headers: state.headers,
    });
    const pathParameters = pathParametersOf(operation, event.pathParameters);
    const response = await run({ requestId: state.requestId, pathParameters, ...request }, caller);
    return {
      statusCode: response.status,
      headers: response.headers,
      body: response.body === undefined ? '' : JSON.stringify(response.body),
    };
  };
}

/**
 * Builds the Lambda handler of one operation of the route table from the operation's contract
 * module (`#contract/operations/<operationId>`). Within the request pipeline, after the caller is
 * authenticated, the JSON body is parsed and the request validated against the contract; the
 * operation gets its typed request and must answer one of its documented responses.
 */
export function apiHandler<Id extends OperationId>(
  operation: OperationContract<Id>,
  run: NoInfer<(request: ApiRequest<Id>) => Promise<ApiResponse<Id>>>,
) {
  const { scope } = routeByOperationId(operation.operationId);
  return requestPipeline(
    operation.operationId,
    keyHolder(scope),
    validatedAnswer(operation, (request, caller: Caller) => run({ ...request, caller })),
  );
}

/** The handler of a public operation (`public` in the route table): no key, no rate limits, validated like any other. */
export function publicApiHandler<Id extends OperationId>(
  operation: OperationContract<Id>,
  run: NoInfer<(request: Omit<ApiRequest<Id>, 'caller'>) => Promise<ApiResponse<Id>>>,
) {
  if (!routeByOperationId(operation.operationId).public) {
    throw new Error(`${operation.operationId} is not a public route: use apiHandler`);
  }
  return requestPipeline(operation.operationId, nobody, validatedAnswer(operation, run));
}

/** The handler for requests that match no route: authenticated like any other, never validated. */
export function fallbackHandler(run: (request: UnroutedRequest) => Promise<never>) {
  return requestPipeline('fallback', keyHolder(null), (event, state, caller) =>
    run({ requestId: state.requestId, caller, method: event.requestContext.http.method, path: event.rawPath }),
  );
}
