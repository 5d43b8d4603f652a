import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { API_PREFIX } from '#platform/api-prefix';
import { FALLBACK_HANDLER, matchPath, ROUTES } from '#routes';
import { KEEP_ALIVE_TIMEOUT_MS } from './keep-alive';

export type LambdaHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** Loads a handler module the way the Lambda runtime would: once, then reused for every invocation. */
export type HandlerLoader = (handlerModule: string) => Promise<LambdaHandler>;

/** Mirrors HTTP API routing: exact method + path template, anything else goes to `$default`. */
function matchRoute(method: string, path: string) {
  if (!path.startsWith(API_PREFIX)) return undefined;
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const pathParameters = matchPath(route.path, path.slice(API_PREFIX.length));
    if (pathParameters) return { route, pathParameters };
  }
  return undefined;
}

/** HTTP API refuses payloads over 10 MB before any Lambda runs. */
const GATEWAY_MAX_BODY_BYTES = 10 * 1024 * 1024;

async function readBody(request: IncomingMessage): Promise<Buffer | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > GATEWAY_MAX_BODY_BYTES) return 'too-large';
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function toEvent(
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  pathParameters: Record<string, string> | undefined,
  routeKey: string,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = query[name] === undefined ? value : `${query[name]},${value}`;
  const now = Date.now();
  const textual = body.length === 0 || /json|text/.test(headers['content-type'] ?? 'application/json');
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters,
    body: body.length === 0 ? undefined : textual ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: !textual,
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: url.host,
      domainPrefix: 'local',
      http: {
        method: request.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
  };
}

function lambdaContext(functionName: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

function send(response: ServerResponse, result: APIGatewayProxyStructuredResultV2) {
  const body =
    result.body === undefined ? '' : result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  response.writeHead(result.statusCode ?? 200, result.headers as Record<string, string> | undefined);
  response.end(body);
}

function gatewayError(status: number, message: string): APIGatewayProxyStructuredResultV2 {
  return { statusCode: status, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ message }) };
}

export interface GatewayOptions {
  loadHandler: HandlerLoader;
  /** Extra paths served outside the API (e.g. /healthz). */
  extraRoutes?: Record<string, (response: ServerResponse) => void | Promise<void>>;
  /** Until this answers true, API requests get a 503: the gateway listens before the emulators start. */
  isReady?: () => boolean;
}

/**
 * The local stand-in for API Gateway: the same route table as the CDK API, the same payload
 * format 2.0 events, the same handler modules.
 */
export function createGateway({ loadHandler, extraRoutes = {}, isReady = () => true }: GatewayOptions): Server {
  return createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS }, async (request, response) => {
    try {
      const url = new URL(request.url ?? '/', `http://${request.headers.host ?? '127.0.0.1'}`);
      const extra = extraRoutes[url.pathname];
      if (extra && request.method === 'GET') return await extra(response);
      if (!isReady()) return send(response, gatewayError(503, 'Service Unavailable'));
      const body = await readBody(request);
      if (body === 'too-large') return send(response, gatewayError(413, 'Request Entity Too Large'));
      const matched = matchRoute(request.method ?? 'GET', url.pathname);
      const handlerModule = matched?.route.handler ?? FALLBACK_HANDLER;
      const routeKey = matched ? `${matched.route.method} ${API_PREFIX}${matched.route.path}` : '$default';
      const handler = await loadHandler(handlerModule);
      const event = toEvent(request, url, body, matched?.pathParameters, routeKey);
      send(response, await handler(event, lambdaContext(handlerModule.replace(/\//g, '-'), 29_000)));
    } catch (error) {
      // API Gateway's own answer when an integration fails outright.
      console.error(error);
      if (!response.headersSent) send(response, gatewayError(500, 'Internal Server Error'));
    }
  });
}
