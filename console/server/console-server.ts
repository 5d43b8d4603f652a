import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, relative, sep } from 'node:path';
import { createSplitJob, resendDelivery, uploadSource } from './actions';
import { ApiClient, type ApiAnswer } from './api-client';
import { Poller } from './poller';
import { RateGovernor } from './rate-governor';
import { parseView } from './views';

/**
 * The console's HTTP server, on loopback only. It serves the page (console/page, plain files) and
 * a narrow JSON API of its own: one Server-Sent Events stream per open page, fed by the shared
 * poller, and three actions. The API key stays in this process: no route forwards a request to
 * the API as the browser wrote it, and no answer carries the key.
 *
 * Who may use it: a browser that opened the link with the session token printed at start (it
 * then holds the token in an HttpOnly, SameSite=Strict cookie), so another user of the machine
 * or a page of another site cannot. Every request must name this server in `Host` (a DNS
 * rebinding page names its own host); every action must come from this origin (`Origin`) with
 * the header `X-Requested-By: console`, which a cross-site form cannot send and a cross-site
 * fetch cannot send without a preflight this server never allows.
 */

export interface ConsoleOptions {
  apiUrl: string;
  apiKey: string;
  /** 0 picks a free port. */
  port: number;
  readsPerMinute: number;
}

export interface RunningConsole {
  /** The link that lets a browser in: the page, with the session token. */
  url: string;
  origin: string;
  close(): Promise<void>;
}

/**
 * Reads the governor may make at once, above its rate: what the largest view needs (usage: 11),
 * so opening a view does not wait. With the default rate, at most 42 requests in any minute.
 */
const BURST = 12;
const ACTION_BODY_LIMIT_BYTES = 16 * 1024;
/** SSE comments keep idle streams open through anything that closes quiet connections. */
const HEARTBEAT_MS = 20_000;

const PAGE_DIRECTORY = join(__dirname, '..', 'page');
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Scripts, styles and fonts from this server only, and no inline code. Media and thumbnails come
 * from the API's signed URLs, whose host the console cannot know in advance (an S3 bucket, or the
 * local stack's object emulator on another loopback port): https anywhere, and loopback http.
 */
function contentSecurityPolicy(apiUrl: string): string {
  const { protocol } = new URL(apiUrl);
  const media = ["'self'", 'https:', ...(protocol === 'http:' ? ['http://127.0.0.1:*', 'http://localhost:*'] : [])];
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${media.join(' ')}`,
    `media-src ${media.join(' ')}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const COMMON_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};

/** Every file of the page, read once, by the path it is served at. */
async function loadPage(): Promise<Map<string, { type: string; body: Buffer }>> {
  const files = new Map<string, { type: string; body: Buffer }>();
  for (const entry of await readdir(PAGE_DIRECTORY, { recursive: true, withFileTypes: true })) {
    const type = CONTENT_TYPES[extname(entry.name)];
    if (!entry.isFile() || !type) continue;
    const file = join(entry.parentPath, entry.name);
    const path = `/${relative(PAGE_DIRECTORY, file).split(sep).join('/')}`;
    files.set(path === '/index.html' ? '/' : path, { type, body: await readFile(file) });
  }
  return files;
}

function sendJson(response: ServerResponse, { status, body }: ApiAnswer) {
  response.writeHead(status, { ...COMMON_HEADERS, 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}

const consoleError = (status: number, code: string, message: string): ApiAnswer => ({
  status,
  body: { error: { code, message } },
});

async function readJson(request: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > ACTION_BODY_LIMIT_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export async function startConsole(options: ConsoleOptions): Promise<RunningConsole> {
  const page = await loadPage();
  const token = randomBytes(24).toString('base64url');
  const governor = new RateGovernor(options.readsPerMinute, BURST);
  const api = new ApiClient(options.apiUrl, options.apiKey, governor, () => poller.announceGovernor());
  const poller = new Poller(api, governor);
  const policy = contentSecurityPolicy(options.apiUrl);
  const streams = new Set<ServerResponse>();
  let port = options.port;
  let cookieName = '';

  const hasSession = (request: IncomingMessage) => {
    const cookie = (request.headers.cookie ?? '')
      .split(';')
      .map((part) => part.trim())
      .find((part) => part.startsWith(`${cookieName}=`));
    const presented = Buffer.from(cookie?.slice(cookieName.length + 1) ?? '');
    const expected = Buffer.from(token);
    return presented.length === expected.length && timingSafeEqual(presented, expected);
  };
  const ownHosts = () => [`127.0.0.1:${port}`, `localhost:${port}`];

  async function handle(request: IncomingMessage, response: ServerResponse) {
    const host = request.headers.host ?? '';
    if (!ownHosts().includes(host)) {
      response.writeHead(421, { ...COMMON_HEADERS, 'Content-Type': 'text/plain' }).end('Not this server.\n');
      return;
    }
    const url = new URL(request.url ?? '/', `http://${host}`);
    const method = request.method ?? 'GET';

    if (method === 'GET' && url.pathname === '/' && url.searchParams.has('token')) {
      const presented = Buffer.from(url.searchParams.get('token') ?? '');
      if (presented.length === token.length && timingSafeEqual(presented, Buffer.from(token))) {
        // The token leaves the address bar (and the history) at once.
        response.writeHead(303, {
          ...COMMON_HEADERS,
          'Set-Cookie': `${cookieName}=${token}; HttpOnly; SameSite=Strict; Path=/`,
          Location: '/',
        });
        response.end();
        return;
      }
    }
    if (!hasSession(request)) {
      response.writeHead(401, { ...COMMON_HEADERS, 'Content-Type': 'text/plain; charset=utf-8' });
      response.end('Open the link that npm run console printed: it holds the token that lets this browser in.\n');
      return;
    }

    const file = page.get(url.pathname);
    if (file) {
      if (method !== 'GET') return sendJson(response, consoleError(405, 'METHOD_NOT_ALLOWED', 'Only GET.'));
      response.writeHead(200, { ...COMMON_HEADERS, 'Content-Type': file.type, 'Content-Security-Policy': policy });
      response.end(file.body);
      return;
    }

    if (url.pathname === '/api/stream') {
      if (method !== 'GET') return sendJson(response, consoleError(405, 'METHOD_NOT_ALLOWED', 'Only GET.'));
      const view = parseView(url.searchParams);
      if (!view) return sendJson(response, consoleError(400, 'UNKNOWN_VIEW', 'No such view.'));
      response.writeHead(200, { ...COMMON_HEADERS, 'Content-Type': 'text/event-stream' });
      response.write('retry: 2000\n\n');
      streams.add(response);
      const unsubscribe = poller.subscribe({
        view,
        send: (event, data) => response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
      });
      const heartbeat = setInterval(() => response.write(': still here\n\n'), HEARTBEAT_MS);
      response.on('close', () => {
        clearInterval(heartbeat);
        unsubscribe();
        streams.delete(response);
      });
      return;
    }

    const action = matchAction(url.pathname);
    if (!action) return sendJson(response, consoleError(404, 'NOT_FOUND', 'The console has no such route.'));
    if (method !== 'POST') return sendJson(response, consoleError(405, 'METHOD_NOT_ALLOWED', 'Only POST.'));
    const origin = request.headers.origin;
    if (
      !origin ||
      !ownHosts().some((own) => origin === `http://${own}`) ||
      request.headers['x-requested-by'] !== 'console'
    ) {
      return sendJson(
        response,
        consoleError(403, 'CROSS_SITE_REFUSED', 'Actions are taken from the console page only.'),
      );
    }
    if (action.name === 'upload') {
      const answer = await uploadSource(api, request, url.searchParams.get('filename') ?? '');
      return sendJson(response, answer);
    }
    if (action.name === 'split-job') {
      const fields = await readJson(request);
      if (!fields) return sendJson(response, consoleError(400, 'NOT_JSON', 'The body must be a JSON object.'));
      const answer = await createSplitJob(api, fields);
      if (answer.status === 201) poller.refresh((key) => key === 'jobs' || key.startsWith('usage'));
      return sendJson(response, answer);
    }
    const answer = resendDelivery(api, action.webhookId, action.deliveryId);
    if (!answer) return sendJson(response, consoleError(404, 'NOT_FOUND', 'No such delivery.'));
    const resent = await answer;
    if (resent.status === 202) poller.refresh((key) => key === `deliveries:${action.webhookId}`);
    return sendJson(response, resent);
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) return void response.destroy();
      sendJson(response, consoleError(502, 'API_UNREACHABLE', `The API did not answer: ${(error as Error).message}`));
    });
  });
  // An upload of a large source streams through for as long as it takes.
  server.requestTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  // Cookies are shared by every port of a host: the port in the name keeps two consoles apart.
  cookieName = `console_session_${port}`;
  poller.start();
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/?token=${token}`,
    origin,
    async close() {
      for (const stream of streams) stream.end();
      await poller.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Action = { name: 'upload' } | { name: 'split-job' } | { name: 'resend'; webhookId: string; deliveryId: string };

/** The console's actions, by path. */
function matchAction(pathname: string): Action | undefined {
  if (pathname === '/api/uploads') return { name: 'upload' };
  if (pathname === '/api/split-jobs') return { name: 'split-job' };
  const resend = /^\/api\/webhooks\/([^/]+)\/deliveries\/([^/]+)\/resend$/.exec(pathname);
  return resend ? { name: 'resend', webhookId: resend[1]!, deliveryId: resend[2]! } : undefined;
}
