import { subscribe } from 'node:diagnostics_channel';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SFNClient } from '@aws-sdk/client-sfn';
import type { JobType, OperationId, Operations, UploadUrlResponse } from '#contract/types';
import { API_PREFIX } from '#platform/api-prefix';
import { matchPath, routeByOperationId, ROUTES } from '#routes';
import { putToUploadUrl } from '@video-automation/client';
import {
  byCommand,
  callsBetween,
  callsPerRequest,
  roundTripCounts,
  servedBetween,
  snapshot,
  sum,
  type ServedRequest,
} from './call-counter';
import { stopExecutionOfJob } from './executions';
import { floorRequests } from './floor';
import { call, expectStatus, inParallel, type Reply } from './http';
import { seedCaller } from './seeding';
import { BENCH_SETTINGS } from './settings';
import { makeShortSplitSource, uploadSplitSource } from './split-jobs';
import { latencyPercentiles, round } from './statistics';
import { headerThenZeros } from './uploads';
import { startWebhookReceiver, waitForDeliveries } from './webhooks';

type SuccessStatus<Id extends OperationId> = Extract<keyof Operations[Id]['responses'], number>;

/** The success status the contract documents for each operation: a request answered otherwise ends the run. */
const SUCCESS_STATUS: { [Id in OperationId]: SuccessStatus<Id> } = {
  getOpenApiDocument: 200,
  getMe: 200,
  createAssetUploadUrl: 201,
  confirmAssetUpload: 200,
  getAsset: 200,
  getAssetDownloadUrl: 200,
  createVideoJob: 201,
  getVideoJob: 200,
  getVideoJobResult: 200,
  cancelVideoJob: 200,
  createSplitJob: 201,
  getSplitJob: 200,
  getSplitJobClips: 200,
  getSplitJobResult: 200,
  cancelSplitJob: 200,
  listJobs: 200,
  getJob: 200,
  cancelJob: 200,
  createWebhook: 201,
  listWebhooks: 200,
  getWebhook: 200,
  updateWebhook: 200,
  deleteWebhook: 204,
  testWebhook: 200,
  listWebhookDeliveries: 200,
  resendWebhookDelivery: 202,
  recoverWebhookDeliveries: 202,
  rotateWebhookSecret: 200,
  listEvents: 200,
  getEvent: 200,
  getUsage: 200,
  getUsageCredits: 200,
  getUsageRateLimits: 200,
  getUsageJobs: 200,
  getUsageWebhooks: 200,
};

/** Requests no route matches go to the fallback, which answers ROUTE_NOT_FOUND. */
const FALLBACK = { operation: 'fallback', method: 'GET', path: '/no-such-route', status: 404 } as const;
type Operation = OperationId | typeof FALLBACK.operation;

const routeOf = (operation: Operation) =>
  operation === FALLBACK.operation
    ? { method: FALLBACK.method, path: FALLBACK.path, status: FALLBACK.status }
    : { ...routeByOperationId(operation), status: SUCCESS_STATUS[operation] };

const routeName = (operation: Operation) => `${routeOf(operation).method} ${routeOf(operation).path}`;

/** The operation that served a request, found in the route table as the gateway finds it. */
function operationOf(request: ServedRequest): Operation {
  const path = request.url.split('?')[0] ?? '';
  const below = path.startsWith(API_PREFIX) ? path.slice(API_PREFIX.length) : undefined;
  const route =
    below === undefined
      ? undefined
      : ROUTES.find((candidate) => candidate.method === request.method && matchPath(candidate.path, below));
  return route?.operationId ?? FALLBACK.operation;
}

/** One request of an operation, timed by the client. */
interface Timed {
  operation: Operation;
  reply: Reply;
}

type RequestParts = { id?: string; deliveryId?: string; query?: string; body?: unknown };

/** Sends requests of the operations as `key`, each answered with its documented status or ending the run. */
function apiCaller(apiUrl: string, key: string) {
  return async (operation: Operation, { id, deliveryId, query, body }: RequestParts = {}): Promise<Timed> => {
    const { method, path, status } = routeOf(operation);
    const concrete = path
      .replace('{id}', encodeURIComponent(id ?? ''))
      .replace('{delivery_id}', encodeURIComponent(deliveryId ?? ''));
    const url = `${apiUrl}${concrete}${query ? `?${query}` : ''}`;
    return { operation, reply: expectStatus(await call(url, method, key, body), status, `${method} ${path}`) };
  };
}

const idOf = (timed: Timed) => (JSON.parse(timed.reply.body) as { id: string }).id;

/**
 * Requests timed together: one of each operation a task names (most name one; a webhook's create
 * and delete go in pairs). `index` runs over the warm-up's requests, then the timed ones.
 */
interface Run {
  operations: readonly Operation[];
  task: (index: number) => Promise<Timed[]>;
}

/** What a run measured: its requests as the client timed them and as the gateway served them, and the floor beside them. */
interface Measured {
  operations: readonly Operation[];
  timed: Timed[];
  served: readonly ServedRequest[];
  floorMs: number[];
}

/** Processes this process has started (ffmpeg and ffprobe, in the stack's workers and handlers). */
let childProcessesStarted = 0;
subscribe('child_process', () => (childProcessesStarted += 1));

const ratio = (of: number, to: number) => round(of / to, 1);

function operationFigures(operation: Operation, measured: Measured) {
  const replies = measured.timed.filter((timed) => timed.operation === operation).map((timed) => timed.reply);
  const served = measured.served.filter((request) => operationOf(request) === operation);
  // Calls are attributed by the route that served each request: a count that differs would make them wrong.
  if (served.length !== replies.length) {
    throw new Error(
      `${routeName(operation)}: the gateway served ${served.length} requests of the ${replies.length} timed`,
    );
  }
  const { method, path, status } = routeOf(operation);
  const latency = latencyPercentiles(replies.map((reply) => reply.ms));
  const floorP50Ms = latencyPercentiles(measured.floorMs).p50_ms;
  const calls = callsPerRequest(served);
  return {
    operation,
    method,
    path,
    status,
    requests: replies.length,
    ...latency,
    floor_p50_ms: floorP50Ms,
    p50_to_floor: ratio(latency.p50_ms, floorP50Ms),
    sdk_calls_per_request: sum(calls),
    sdk_calls_by_command: byCommand(calls),
    sdk_calls: calls,
    sequential_round_trips_per_request: round(
      served.reduce((total, request) => total + request.roundTrips.count, 0) / served.length,
      2,
    ),
    sequential_round_trips: roundTripCounts(served),
  };
}

/**
 * The routes phase, in an organization of its own: the raw floor of a request against this
 * stack's DynamoDB in blocks alternating with GET /me's, then every other route of the route table
 * and the fallback, one after another, each with the floor measured again beside it (half its
 * requests just before, half just after), its SDK calls and its sequential round trips per request.
 */
export async function measureRoutes({
  apiUrl,
  dataDir,
  stopExecutions,
  progress,
}: {
  apiUrl: string;
  dataDir: string;
  stopExecutions: SFNClient;
  progress: (message: string) => void;
}) {
  const settings = BENCH_SETTINGS.routes;
  const phaseStartedAt = performance.now();
  const { organizationId, key } = await seedCaller(1_000_000, {
    requests_per_minute_per_key: 1_000_000,
    requests_per_day_per_organization: 100_000_000,
    concurrent_video_jobs: 100_000,
    concurrent_split_jobs: 100_000,
    webhook_endpoints: 1000,
  });
  const send = apiCaller(apiUrl, key);
  const untilCompleted = async (operation: 'getVideoJob' | 'getSplitJob', id: string) => {
    const startedAt = performance.now();
    for (;;) {
      const { reply } = await send(operation, { id });
      const status = (JSON.parse(reply.body) as { status: string }).status;
      if (status === 'completed') return;
      if (status !== 'queued' && status !== 'processing') throw new Error(`Job ${id} ended ${status}: ${reply.body}`);
      if (performance.now() - startedAt > settings.jobTimeoutMs) {
        throw new Error(`Job ${id} not completed in ${settings.jobTimeoutMs} ms`);
      }
      await sleep(settings.pollMs);
    }
  };
  /** Resolves once the workers and the webhook pipeline have made no SDK call for a while. */
  const backgroundQuiet = async () => {
    const startedAt = performance.now();
    let last = snapshot();
    let quietSince = startedAt;
    while (performance.now() - quietSince < settings.backgroundQuietMs) {
      if (performance.now() - startedAt > settings.backgroundTimeoutMs) {
        progress(`routes: background calls still running after ${settings.backgroundTimeoutMs} ms; going on`);
        return;
      }
      await sleep(50);
      const now = snapshot();
      if (sum(callsBetween(last, now, 'background')) > 0) quietSince = performance.now();
      last = now;
    }
  };

  // --- What the reads need: a confirmed split source, a completed render and a completed split job of it.
  const source = await makeShortSplitSource(join(dataDir, 'routes-split-source.mp4'), {
    seconds: settings.splitSourceSeconds,
    width: 320,
    height: 180,
  });
  const sourceAssetId = await uploadSplitSource(apiUrl, key, source);
  progress(`routes: a ${source.seconds} s render and a split job of a ${source.seconds} s source, to completed`);
  const [videoJobId, splitJobId] = await Promise.all([
    (async () => {
      const jobId = idOf(
        await send('createVideoJob', { body: { prompt: 'Benchmark routes: a calm sea at dawn', duration_seconds: 5 } }),
      );
      await untilCompleted('getVideoJob', jobId);
      return jobId;
    })(),
    (async () => {
      const jobId = idOf(await send('createSplitJob', { body: { source_asset_id: sourceAssetId } }));
      await untilCompleted('getSplitJob', jobId);
      return jobId;
    })(),
  ]);
  await backgroundQuiet();

  const floor = await floorRequests({ key, organizationId });
  try {
    // --- The raw floor, in blocks alternating with GET /me's, so that both see the same machine state.
    const me = BENCH_SETTINGS.getMe;
    const perBlock = Math.round(me.requests / settings.floorBlocks);
    progress(
      `routes: raw floor and GET /me, ${me.warmup} warm-up each, then ${settings.floorBlocks} blocks of ${perBlock} each at concurrency ${me.concurrency}`,
    );
    const getMeTimed: Timed[] = [];
    const floorMs = { readThenCount: [] as number[], authenticationCalls: [] as number[] };
    const kinds = [
      async (requests: number) => getMeTimed.push(...(await inParallel(requests, me.concurrency, () => send('getMe')))),
      async (requests: number) =>
        floorMs.readThenCount.push(...(await inParallel(requests, me.concurrency, floor.readThenCount))),
      async (requests: number) =>
        floorMs.authenticationCalls.push(...(await inParallel(requests, me.concurrency, floor.authenticationCalls))),
    ];
    await inParallel(me.warmup, me.concurrency, () => send('getMe'));
    await inParallel(me.warmup, me.concurrency, floor.readThenCount);
    await inParallel(me.warmup, me.concurrency, floor.authenticationCalls);
    const beforeGetMe = snapshot();
    for (let block = 0; block < settings.floorBlocks; block += 1) {
      // Each kind goes first in turn: none is always the one measured just after another.
      for (let turn = 0; turn < kinds.length; turn += 1) await kinds[(block + turn) % kinds.length]!(perBlock);
    }
    const measured: Measured[] = [
      {
        operations: ['getMe'],
        timed: getMeTimed,
        served: servedBetween(beforeGetMe, snapshot()),
        floorMs: floorMs.readThenCount,
      },
    ];
    const readThenCount = latencyPercentiles(floorMs.readThenCount);
    const authenticationCalls = latencyPercentiles(floorMs.authenticationCalls);
    const getMe = latencyPercentiles(getMeTimed.map((timed) => timed.reply.ms));

    // --- Every other route, one after another, the floor measured again beside each.
    const processesBefore = childProcessesStarted;
    const floorBeside = (requests: number) => inParallel(requests, settings.concurrency, floor.readThenCount);
    const measure = async ({ operations, task }: Run, afterwards?: () => Promise<void>) => {
      progress(
        `routes: ${operations.map(routeName).join(' and ')}, ${settings.warmup} warm-up, then ${settings.requests} at concurrency ${settings.concurrency}`,
      );
      await inParallel(settings.warmup, settings.concurrency, task);
      await afterwards?.();
      const floorBefore = await floorBeside(Math.floor(settings.requests / 2));
      const before = snapshot();
      const timed = await inParallel(settings.requests, settings.concurrency, (index) => task(settings.warmup + index));
      const served = servedBetween(before, snapshot());
      const floorAfter = await floorBeside(Math.ceil(settings.requests / 2));
      await afterwards?.();
      measured.push({ operations, timed: timed.flat(), served, floorMs: [...floorBefore, ...floorAfter] });
    };
    const one = (operation: Operation, parts: (index: number) => RequestParts = () => ({})): Run => ({
      operations: [operation],
      task: async (index) => [await send(operation, parts(index))],
    });
    // Creates whose executions are stopped as soon as they answer: a [fault:stall] render would poll
    // until its deadline, a split job would analyse and render its source under the later runs.
    const stopped = (operation: 'createVideoJob' | 'createSplitJob', type: JobType, body: object): Run => ({
      operations: [operation],
      task: async () => {
        const created = await send(operation, { body });
        await stopExecutionOfJob(stopExecutions, type, idOf(created));
        return [created];
      },
    });

    await measure(
      stopped('createVideoJob', 'video', { prompt: 'Benchmark routes [fault:stall]', duration_seconds: 5 }),
      backgroundQuiet,
    );
    await measure(stopped('createSplitJob', 'split', { source_asset_id: sourceAssetId }), backgroundQuiet);

    // Upload URLs, then a small object PUT to each (not timed), then their confirmations.
    const uploads: UploadUrlResponse[] = [];
    const upload = { filename: 'bench.mp4', content_type: 'video/mp4', size_bytes: settings.uploadBytes };
    await measure({
      operations: ['createAssetUploadUrl'],
      task: async (index) => {
        const created = await send('createAssetUploadUrl', { body: { ...upload, purpose: 'general' } });
        uploads[index] = JSON.parse(created.reply.body) as UploadUrlResponse;
        return [created];
      },
    });
    await inParallel(uploads.length, settings.concurrency, async (index) => {
      const put = await putToUploadUrl(
        uploads[index]!.upload_url,
        uploads[index]!.upload_headers,
        upload.size_bytes,
        headerThenZeros({ sizeBytes: upload.size_bytes, chunkBytes: upload.size_bytes }),
      );
      if (put.status !== 200) throw new Error(`PUT to an upload URL answered ${put.status}: ${put.body}`);
    });
    await measure(one('confirmAssetUpload', (index) => ({ body: { asset_id: uploads[index]!.asset_id } })));

    // Each cancel of a job created just before it (not timed): a repeated cancel only reads the
    // job, and a job whose execution the bench stopped has already failed. The cancel stops the
    // execution itself.
    const createThenCancel = (operation: 'cancelVideoJob' | 'cancelSplitJob' | 'cancelJob', type: JobType): Run => ({
      operations: [operation],
      task: async () => {
        const created =
          type === 'video'
            ? await send('createVideoJob', { body: { prompt: 'Benchmark routes [fault:stall]', duration_seconds: 5 } })
            : await send('createSplitJob', { body: { source_asset_id: sourceAssetId } });
        return [await send(operation, { id: idOf(created) })];
      },
    });
    await measure(createThenCancel('cancelVideoJob', 'video'), backgroundQuiet);
    await measure(createThenCancel('cancelSplitJob', 'split'), backgroundQuiet);
    await measure(createThenCancel('cancelJob', 'video'), backgroundQuiet);

    await measure(one('getAsset', () => ({ id: sourceAssetId })));
    await measure(one('getAssetDownloadUrl', () => ({ id: sourceAssetId })));
    await measure(one('getVideoJob', () => ({ id: videoJobId })));
    await measure(one('getVideoJobResult', () => ({ id: videoJobId })));
    await measure(one('getSplitJob', () => ({ id: splitJobId })));
    await measure(one('getSplitJobClips', () => ({ id: splitJobId })));
    await measure(one('getSplitJobResult', () => ({ id: splitJobId })));
    await measure(one('listJobs'));
    await measure(one('getJob', () => ({ id: videoJobId })));
    // With their default periods.
    for (const usage of [
      'getUsage',
      'getUsageCredits',
      'getUsageRateLimits',
      'getUsageJobs',
      'getUsageWebhooks',
    ] as const) {
      await measure(one(usage));
    }

    const receiver = await startWebhookReceiver(new Map());
    try {
      const endpoint = (name: string) => ({ url: `${receiver.url}/hooks/${name}`, events: ['job.completed'] });
      // In pairs, so that the endpoints never reach the organization's limit.
      await measure({
        operations: ['createWebhook', 'deleteWebhook'],
        task: async (index) => {
          const created = await send('createWebhook', { body: endpoint(`pair-${index}`) });
          return [created, await send('deleteWebhook', { id: idOf(created) })];
        },
      });
      const endpointId = idOf(await send('createWebhook', { body: endpoint('tested') }));
      await measure(one('listWebhooks'));
      await measure(one('getWebhook', () => ({ id: endpointId })));
      await measure(one('updateWebhook', (index) => ({ id: endpointId, body: { description: `Benchmark ${index}` } })));
      const testEvents = new Set<string>();
      await measure(
        {
          operations: ['testWebhook'],
          task: async () => {
            const tested = await send('testWebhook', { id: endpointId });
            testEvents.add((JSON.parse(tested.reply.body) as { delivery: { event_id: string } }).delivery.event_id);
            return [tested];
          },
        },
        async () => {
          await waitForDeliveries(
            () => {
              const received = new Set(receiver.receipts.map((receipt) => receipt.eventId));
              return [...testEvents].every((eventId) => received.has(eventId));
            },
            settings.deliveryTimeoutMs,
            `the deliveries of ${testEvents.size} test events`,
          );
          await backgroundQuiet();
        },
      );
      const [testEventId] = testEvents;
      await measure(one('listEvents'));
      await measure(one('getEvent', () => ({ id: testEventId })));
      const listed = await send('listWebhookDeliveries', { id: endpointId });
      const [testDelivery] = (JSON.parse(listed.reply.body) as { data: { id: string }[] }).data;
      await measure(one('listWebhookDeliveries', () => ({ id: endpointId })));
      await measure(one('resendWebhookDelivery', () => ({ id: endpointId, deliveryId: testDelivery?.id })));
      const anHourAgo = new Date(Date.now() - 3_600_000).toISOString();
      await measure(one('recoverWebhookDeliveries', () => ({ id: endpointId, body: { since: anHourAgo } })));
      // After the test deliveries, which it would otherwise sign twice for a day.
      await measure(one('rotateWebhookSecret', () => ({ id: endpointId })));
    } finally {
      await receiver.stop();
    }
    await measure(one('getOpenApiDocument'));
    await measure(one(FALLBACK.operation));
    const childProcessesDuringRuns = childProcessesStarted - processesBefore;

    const operations = [...ROUTES.map((route) => route.operationId), FALLBACK.operation].map((operation) => {
      const run = measured.find((candidate) => candidate.operations.includes(operation));
      if (!run) throw new Error(`The routes phase did not measure ${routeName(operation)}`);
      return operationFigures(operation, run);
    });
    return {
      wall_s: round((performance.now() - phaseStartedAt) / 1000),
      floor: {
        requests: floorMs.readThenCount.length,
        concurrency: me.concurrency,
        blocks: settings.floorBlocks,
        read_then_count: readThenCount,
        authentication_calls: authenticationCalls,
        get_me: getMe,
        get_me_to_floor: {
          p50: ratio(getMe.p50_ms, readThenCount.p50_ms),
          p99: ratio(getMe.p99_ms, readThenCount.p99_ms),
        },
        get_me_to_authentication_calls: {
          p50: ratio(getMe.p50_ms, authenticationCalls.p50_ms),
          p99: ratio(getMe.p99_ms, authenticationCalls.p99_ms),
        },
      },
      warmup: settings.warmup,
      requests: settings.requests,
      concurrency: settings.concurrency,
      child_processes_during_runs: childProcessesDuringRuns,
      operations,
    };
  } finally {
    floor.destroy();
  }
}
