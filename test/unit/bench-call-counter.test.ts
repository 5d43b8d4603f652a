import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { HandlerExecutionContext, InitializeHandlerArguments, InitializeHandlerOutput } from '@smithy/types';
import {
  callCounter,
  callsBetween,
  callsPerRequest,
  countGatewayRequestsAsApi,
  keepServedRequests,
  RoundTrips,
  roundTripCounts,
  servedBetween,
  snapshot,
} from '../../scripts/bench/call-counter';

/** A fake SDK call that ends when the test says so. */
function pendingCall<T = void>() {
  let end!: (result: T) => void;
  let fail!: (error: Error) => void;
  const promise = new Promise<T>((resolve, reject) => {
    end = resolve;
    fail = reject;
  });
  return { promise, end, fail };
}

describe('sequential round trips of one request', () => {
  it('counts calls one after another as one wave each', async () => {
    const trips = new RoundTrips();
    await trips.around(async () => undefined);
    await trips.around(async () => undefined);
    expect(trips.count).toBe(2);
  });

  it('counts calls sent in parallel as one wave', async () => {
    const trips = new RoundTrips();
    await Promise.all([trips.around(async () => undefined), trips.around(async () => undefined)]);
    expect(trips.count).toBe(1);
  });

  it('counts two reads, then two updates at once, as three waves', async () => {
    const trips = new RoundTrips();
    await trips.around(async () => undefined);
    await trips.around(async () => undefined);
    await Promise.all([trips.around(async () => undefined), trips.around(async () => undefined)]);
    expect(trips.count).toBe(3);
  });

  it('keeps a wave going while any of its calls is in flight, and starts the next once none is', async () => {
    const trips = new RoundTrips();
    const [first, second, third] = [pendingCall(), pendingCall(), pendingCall()];
    const calls = [trips.around(() => first.promise), trips.around(() => second.promise)];
    first.end();
    await calls[0];
    // The second call is still in flight: a call started now joins its wave.
    calls.push(trips.around(() => third.promise));
    second.end();
    third.end();
    await Promise.all(calls);
    expect(trips.count).toBe(1);
    await trips.around(async () => undefined);
    expect(trips.count).toBe(2);
  });

  it('counts no wave for a call that stayed in the process, nor lets another call join one through it', async () => {
    const trips = new RoundTrips();
    const stayedLocal = (result: string) => result === 'presigned';
    const presign = pendingCall<string>();
    const presigning = trips.around(() => presign.promise, stayedLocal);
    // Both start while the presign is in flight, one after the other: two waves.
    await trips.around(async () => 'sent', stayedLocal);
    await trips.around(async () => 'sent', stayedLocal);
    presign.end('presigned');
    await presigning;
    expect(trips.count).toBe(2);
  });

  it('ends the flight of a call that fails', async () => {
    const trips = new RoundTrips();
    const failing = pendingCall();
    const call = trips.around(() => failing.promise);
    failing.fail(new Error('refused'));
    await expect(call).rejects.toThrow('refused');
    await trips.around(async () => undefined);
    expect(trips.count).toBe(2);
  });
});

describe('the call counter', () => {
  const middleware = callCounter<object, object>();
  /** Runs a fake command through the counting middleware; it takes `ms` to answer. */
  const send = (
    commandName: string,
    key: { pk: string; sk: string },
    ms: number,
    { clientName = 'DynamoDBClient', output = {} }: { clientName?: string; output?: object } = {},
  ) =>
    middleware(
      async () => {
        await sleep(ms);
        return { output: { $metadata: {}, ...output } } as InitializeHandlerOutput<object>;
      },
      { clientName, commandName } as HandlerExecutionContext,
    )({ input: { Key: key } } as InitializeHandlerArguments<object>);

  const handlers: Record<string, () => Promise<void>> = {
    // Two calls one after another: the second starts while the other request's calls are in flight.
    '/sequential': async () => {
      await send('GetItemCommand', { pk: 'APIKEY#a', sk: 'APIKEY' }, 10);
      await send('GetItemCommand', { pk: 'ORG#1', sk: 'ORG' }, 10);
    },
    '/parallel': async () => {
      await Promise.all([
        send('UpdateItemCommand', { pk: 'RATE#KEY#a', sk: 'MINUTE#1' }, 60),
        send('UpdateItemCommand', { pk: 'RATE#ORG#1', sk: 'DAY#2026-01-01' }, 60),
      ]);
    },
    // A download URL presigned (getSignedUrl stops the command before it is sent), then a read.
    '/presigned': async () => {
      await send('GetObjectCommand', { pk: '', sk: '' }, 1, {
        clientName: 'S3Client',
        output: { presigned: { hostname: 'localhost' } },
      });
      await send('GetItemCommand', { pk: 'ORG#1', sk: 'JOB#x' }, 1);
    },
  };
  let server: Server;
  let port: number;

  beforeAll(async () => {
    server = createServer((incoming, response) => {
      void handlers[incoming.url ?? '']!().then(() => response.end());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    countGatewayRequestsAsApi(port);
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const get = (path: string) =>
    new Promise<void>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path }, (response) => response.resume().on('end', resolve))
        .on('error', reject)
        .end();
    });

  it('attributes each call, and each wave, to the request that made it, while requests overlap', async () => {
    const before = snapshot();
    await Promise.all([get('/parallel'), get('/sequential')]);
    const served = servedBetween(before, snapshot());
    const byUrl = Object.fromEntries(
      served.map((request) => [
        request.url,
        { calls: Object.fromEntries(request.calls), trips: request.roundTrips.count },
      ]),
    );
    expect(byUrl).toEqual({
      '/parallel': {
        calls: { 'DynamoDB UpdateItem RATE#KEY/MINUTE': 1, 'DynamoDB UpdateItem RATE#ORG/DAY': 1 },
        trips: 1,
      },
      '/sequential': {
        calls: { 'DynamoDB GetItem APIKEY/APIKEY': 1, 'DynamoDB GetItem ORG/ORG': 1 },
        trips: 2,
      },
    });
    expect(served.map((request) => request.method)).toEqual(['GET', 'GET']);
    expect(callsPerRequest(served)).toEqual({
      'DynamoDB GetItem APIKEY/APIKEY': 0.5,
      'DynamoDB GetItem ORG/ORG': 0.5,
      'DynamoDB UpdateItem RATE#KEY/MINUTE': 0.5,
      'DynamoDB UpdateItem RATE#ORG/DAY': 0.5,
    });
    expect(roundTripCounts(served)).toEqual({ 1: 1, 2: 1 });
  });

  it('counts a presigned URL as a call of its own kind, and no round trip', async () => {
    const before = snapshot();
    await get('/presigned');
    const [request] = servedBetween(before, snapshot());
    expect(Object.fromEntries(request!.calls)).toEqual({ 'S3 presign-GetObject': 1, 'DynamoDB GetItem ORG/JOB': 1 });
    expect(request!.roundTrips.count).toBe(1);
  });

  it('counts a call outside any request as background, and no request served', async () => {
    const before = snapshot();
    await send('QueryCommand', { pk: 'ORG#1', sk: 'JOB#x' }, 1);
    const after = snapshot();
    expect(callsBetween(before, after, 'background')).toEqual({ 'DynamoDB Query ORG/JOB': 1 });
    expect(callsBetween(before, after, 'api')).toEqual({});
    expect(servedBetween(before, after)).toEqual([]);
  });

  it('still counts the calls of requests it no longer keeps, and keeps them again when told', async () => {
    const before = snapshot();
    keepServedRequests(false);
    try {
      await get('/sequential');
    } finally {
      keepServedRequests(true);
    }
    const unkept = snapshot();
    expect(servedBetween(before, unkept)).toEqual([]);
    expect(callsBetween(before, unkept, 'api')).toEqual({
      'DynamoDB GetItem APIKEY/APIKEY': 1,
      'DynamoDB GetItem ORG/ORG': 1,
    });
    await get('/sequential');
    expect(servedBetween(unkept, snapshot()).map((request) => request.url)).toEqual(['/sequential']);
  });
});
