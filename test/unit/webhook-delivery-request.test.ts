import { once } from 'node:events';
import http, { type IncomingMessage, type RequestListener, type ServerResponse } from 'node:http';
import { isIP, type AddressInfo } from 'node:net';
import {
  RESPONSE_BODY_CAP_BYTES,
  USER_AGENT,
  sendDelivery,
  type AddressLookup,
  type DeliveryRequest,
} from '#domain/webhooks/delivery-request';

/** A receiver on 127.0.0.1 that counts what reaches it. */
interface Receiver {
  port: number;
  connections: number;
  requests: { headers: IncomingMessage['headers']; body: Buffer }[];
}

const servers: http.Server[] = [];

async function startReceiver(respond: (response: ServerResponse) => void): Promise<Receiver> {
  const receiver: Receiver = { port: 0, connections: 0, requests: [] };
  const listener: RequestListener = (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      receiver.requests.push({ headers: request.headers, body: Buffer.concat(chunks) });
      respond(response);
    });
  };
  const server = http.createServer(listener).on('connection', () => (receiver.connections += 1));
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.port = (server.address() as AddressInfo).port;
  return receiver;
}

afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => {
      server.closeAllConnections();
      return new Promise((closed) => server.close(closed));
    }),
  );
});

const answer =
  (status: number, headers: Record<string, string> = {}) =>
  (response: ServerResponse) =>
    response.writeHead(status, headers).end('{"ok":true}');

/** A lookup that answers, as dns.lookup does, on a later tick. */
const resolvesTo =
  (...addresses: string[]): AddressLookup =>
  (_hostname, _options, callback) =>
    setImmediate(() =>
      callback(
        null,
        addresses.map((address) => ({ address, family: isIP(address) })),
      ),
    );

const delivery = (overrides: Partial<DeliveryRequest> & Pick<DeliveryRequest, 'url'>): DeliveryRequest => ({
  headers: { 'Webhook-Signature': 't=1,v1=abc' },
  body: '{"type":"video_job.completed","title":"Café ☕"}',
  timeoutMs: 2000,
  loopbackAllowed: true,
  ...overrides,
});

describe('one webhook delivery attempt', () => {
  it('posts the exact body bytes and the signed headers to a loopback receiver on the local stack', async () => {
    const receiver = await startReceiver(answer(200));
    const request = delivery({ url: `http://127.0.0.1:${receiver.port}/hooks` });

    const result = await sendDelivery(request);

    expect(result).toEqual({
      kind: 'response',
      status: 200,
      body: Buffer.from('{"ok":true}'),
      durationMs: expect.any(Number),
    });
    expect(receiver.requests).toHaveLength(1);
    const [received] = receiver.requests;
    expect(received?.body.equals(Buffer.from(request.body, 'utf8'))).toBe(true);
    expect(received?.headers).toMatchObject({
      'webhook-signature': 't=1,v1=abc',
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'content-length': String(Buffer.byteLength(request.body)),
    });
  });

  it('connects to the address its lookup resolved a name to', async () => {
    const receiver = await startReceiver(answer(204));

    const result = await sendDelivery(
      delivery({ url: `http://localhost:${receiver.port}/`, lookup: resolvesTo('127.0.0.1') }),
    );

    expect(result).toMatchObject({ kind: 'response', status: 204 });
    expect(receiver.connections).toBe(1);
  });

  it('refuses a loopback URL in AWS without opening a connection', async () => {
    const receiver = await startReceiver(answer(200));

    const result = await sendDelivery(delivery({ url: `http://127.0.0.1:${receiver.port}/`, loopbackAllowed: false }));

    // Refused by the URL's own rules, checked before any request is made: no connection can follow.
    expect(result).toMatchObject({ kind: 'refused', reason: 'url must use https.' });
    expect(receiver.connections).toBe(0);
  });

  it('refuses plain http to a public host in AWS', async () => {
    const result = await sendDelivery(delivery({ url: 'http://hooks.example.com/', loopbackAllowed: false }));

    expect(result).toMatchObject({ kind: 'refused', reason: 'url must use https.' });
  });

  it('refuses a name that resolves to a private address', async () => {
    const result = await sendDelivery(delivery({ url: 'https://rebind.test:8443/', lookup: resolvesTo('10.0.0.5') }));

    expect(result).toMatchObject({ kind: 'refused', reason: expect.stringContaining('private') });
  });

  it('refuses a name that resolves to loopback in AWS without opening a connection', async () => {
    const receiver = await startReceiver(answer(200));

    const result = await sendDelivery(
      delivery({ url: `https://evil.test:${receiver.port}/`, loopbackAllowed: false, lookup: resolvesTo('127.0.0.1') }),
    );

    // Refused by the lookup, which the socket waits for before it connects: no connection can follow.
    expect(result).toMatchObject({ kind: 'refused', reason: 'evil.test resolves to a forbidden address (loopback).' });
    expect(receiver.connections).toBe(0);
  });

  it('refuses a name when any one of its addresses is forbidden', async () => {
    const receiver = await startReceiver(answer(200));

    const publicAndPrivate = await sendDelivery(
      delivery({ url: 'https://mixed.test/', loopbackAllowed: false, lookup: resolvesTo('93.184.215.14', '10.0.0.5') }),
    );
    const loopbackAndPrivate = await sendDelivery(
      delivery({ url: `https://mixed.test:${receiver.port}/`, lookup: resolvesTo('127.0.0.1', '10.0.0.5') }),
    );

    // Both refused by the lookup, before their sockets connect: no connection can follow.
    const refusedByLookup = { kind: 'refused', reason: 'mixed.test resolves to a forbidden address (private).' };
    expect(publicAndPrivate).toMatchObject(refusedByLookup);
    expect(loopbackAndPrivate).toMatchObject(refusedByLookup);
    expect(receiver.connections).toBe(0);
  });

  it('answers a redirect with its status and does not follow it', async () => {
    const target = await startReceiver(answer(200));
    const redirecting = await startReceiver(answer(302, { Location: `http://127.0.0.1:${target.port}/elsewhere` }));

    const result = await sendDelivery(delivery({ url: `http://127.0.0.1:${redirecting.port}/` }));

    // The attempt ends with the first response it gets and closes its one request: a redirect followed
    // would have answered with the target's 200, and none can be followed after it.
    expect(result).toMatchObject({ kind: 'response', status: 302 });
    expect(target.connections).toBe(0);
  });

  it('gives up on a receiver that never answers once the timeout passes', async () => {
    const receiver = await startReceiver(() => undefined);

    const result = await sendDelivery(delivery({ url: `http://127.0.0.1:${receiver.port}/`, timeoutMs: 300 }));

    expect(result).toMatchObject({ kind: 'error', reason: 'timeout' });
    expect(result.durationMs).toBeGreaterThanOrEqual(250);
    expect(result.durationMs).toBeLessThan(2000);
  });

  it('answers with the status of an endless response body without reading it all', async () => {
    let bytesWritten = 0;
    let responseClosed: Promise<unknown> | undefined;
    const receiver = await startReceiver((response) => {
      responseClosed = once(response, 'close');
      const chunk = Buffer.alloc(64 * 1024, 'x');
      response.writeHead(200, { 'Content-Length': String(50 * 1024 * 1024) });
      const writeMore = () => {
        while (!response.destroyed && bytesWritten < 50 * 1024 * 1024) {
          bytesWritten += chunk.length;
          if (!response.write(chunk)) return response.once('drain', writeMore);
        }
      };
      writeMore();
    });

    const result = await sendDelivery(delivery({ url: `http://127.0.0.1:${receiver.port}/`, timeoutMs: 4000 }));
    // The receiver writes until it sees the connection closed.
    await responseClosed;

    expect(result).toMatchObject({ kind: 'response', status: 200 });
    expect(result.durationMs).toBeLessThan(2000);
    expect(bytesWritten).toBeLessThan(10 * 1024 * 1024);
  });

  it('reads Retry-After given in seconds', async () => {
    const receiver = await startReceiver(answer(429, { 'Retry-After': '7' }));

    const result = await sendDelivery(delivery({ url: `http://127.0.0.1:${receiver.port}/` }));

    expect(result).toMatchObject({ kind: 'response', status: 429, retryAfterSeconds: 7 });
  });

  it('reads Retry-After given as an HTTP date', async () => {
    const inTwoMinutes = new Date(Date.now() + 120_000).toUTCString();
    const receiver = await startReceiver(answer(503, { 'Retry-After': inTwoMinutes }));

    const result = await sendDelivery(delivery({ url: `http://127.0.0.1:${receiver.port}/` }));

    expect(result).toMatchObject({ kind: 'response', status: 503 });
    const seconds = result.kind === 'response' ? result.retryAfterSeconds : undefined;
    expect(seconds).toBeGreaterThanOrEqual(115);
    expect(seconds).toBeLessThanOrEqual(120);
  });

  it('reads a past HTTP date as no wait, and ignores a Retry-After it cannot read', async () => {
    const past = await startReceiver(answer(429, { 'Retry-After': 'Sun, 06 Nov 1994 08:49:37 GMT' }));
    const unreadable = await startReceiver(answer(429, { 'Retry-After': 'soon' }));

    const pastResult = await sendDelivery(delivery({ url: `http://127.0.0.1:${past.port}/` }));
    const unreadableResult = await sendDelivery(delivery({ url: `http://127.0.0.1:${unreadable.port}/` }));

    expect(pastResult).toMatchObject({ retryAfterSeconds: 0 });
    expect(unreadableResult).toEqual({
      kind: 'response',
      status: 429,
      body: expect.any(Buffer),
      durationMs: expect.any(Number),
    });
  });

  it('keeps the first 4 KiB of a long response body and reads no further', async () => {
    const receiver = await startReceiver((response) => response.writeHead(500).end('x'.repeat(64 * 1024)));

    const result = await sendDelivery(delivery({ url: `http://127.0.0.1:${receiver.port}/` }));

    expect(result).toMatchObject({ kind: 'response', status: 500 });
    expect(result.kind === 'response' && result.body).toEqual(Buffer.from('x'.repeat(RESPONSE_BODY_CAP_BYTES)));
  });

  it('reports a refused connection as a connection error', async () => {
    const closed = await startReceiver(answer(200));
    const server = servers.pop();
    await new Promise((done) => server?.close(done));

    const result = await sendDelivery(delivery({ url: `http://127.0.0.1:${closed.port}/` }));

    expect(result).toMatchObject({
      kind: 'error',
      reason: 'connection',
      message: expect.stringContaining('ECONNREFUSED'),
    });
  });

  it('reports https to a plain http receiver as an error, not a throw', async () => {
    const receiver = await startReceiver(answer(200));

    const result = await sendDelivery(delivery({ url: `https://127.0.0.1:${receiver.port}/` }));

    expect(result).toMatchObject({ kind: 'error', reason: expect.stringMatching(/^(tls|connection)$/) });
    expect(receiver.requests).toHaveLength(0);
  });

  it('reports a URL that does not parse as invalid', async () => {
    const result = await sendDelivery(delivery({ url: 'not a url' }));

    expect(result).toMatchObject({ kind: 'error', reason: 'invalid-url' });
  });
});
