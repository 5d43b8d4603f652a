/**
 * Benchmarks of the local stack (`npm run bench`, `npm run --silent bench -- --json`; `-- --phase
 * webhooks` for the webhooks phase alone).
 *
 * Starts the local stack in this process on a fresh data dir, seeds a Custom organization with
 * limits high enough never to interfere, and reports: cold start, GET /me and POST /video-jobs
 * latency and throughput, AWS SDK calls per request (with the per-command breakdown), GET
 * /video-jobs/{id} latency, the seconds a real 5 s local render takes from create to completed, the
 * confirmation of a large upload (a copy in parts), split jobs of generated 2, 5 and 10 minute 720p
 * sources (wall time per source second, and how much of it ffmpeg's analysis and clip renders took),
 * webhooks (from a job's end to receipt at a receiver in this process, and deliveries per second of
 * a burst of test events), and process memory. It reports figures and asserts nothing about speed;
 * it fails only when a request does not succeed, a delivery does not arrive, or the call counter
 * sees nothing (then the figures would be meaningless).
 *
 * The emulators are not AWS: DynamoDB Local is a Java process on this machine. The figures compare
 * versions of our code on one machine, not the cloud. See docs/benchmarks.md.
 *
 * How SDK calls are attributed: a middleware on the four clients the API and workers share counts every
 * command. A command counts as `api` when it runs inside a request the HTTP gateway is serving (an
 * AsyncLocalStorage entered from the `http.server.request.start` diagnostics channel of the gateway's
 * server), else as `background`: the state machine's workers, which run in this process too.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { execFile, type ChildProcess } from 'node:child_process';
import { subscribe } from 'node:diagnostics_channel';
import { mkdir, mkdtemp, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs, promisify } from 'node:util';
import { SFNClient, StopExecutionCommand } from '@aws-sdk/client-sfn';
import type { HandlerExecutionContext, InitializeMiddleware } from '@smithy/types';
import { verifyWebhook } from '../examples/webhook-receiver/verify.mjs';
import { resolveMediaTool } from '../local/media-tools';
import { startLocalStack, type LocalStack } from '../local/stack';
import { putToUploadUrl } from './upload-to-url';
import type { NegotiatedLimits } from '#domain/access/organizations';
import { SCOPES } from '#domain/access/scopes';
import { CLIP_FILE_NAME, THUMBNAIL_FILE_NAME } from '#domain/split-jobs/clip-rendering';

const execFileAsync = promisify(execFile);

const SETTINGS = {
  getMe: { warmup: 200, requests: 500, concurrency: 8 },
  createVideoJob: { warmup: 5, requests: 100, concurrency: 4 },
  getVideoJob: { warmup: 10, requests: 200, concurrency: 8 },
  // 10,000 jobs in one organization, 1 % of them failed; pages of 25 followed through their cursors.
  listJobs: {
    jobs: 10_000,
    failedEvery: 100,
    pageSize: 25,
    warmup: 20,
    requests: 300,
    concurrency: 4,
    seedConcurrency: 8,
  },
  render: { runs: 3, durationSeconds: 5, pollMs: 100, timeoutMs: 120_000 },
  // PUT to its upload URL in one request, as a client would, sent in chunks of 8 MiB; memory sampled every 100 ms.
  confirmLargeUpload: { sizeBytes: 1024 ** 3, chunkBytes: 8 * 1024 * 1024, rssSampleMs: 100 },
  // One job per source, one after another, with the default options; each source PUT to its upload URL.
  splitJobs: {
    sourceSeconds: [120, 300, 600],
    pollMs: 250,
    timeoutMs: 20 * 60_000,
    readChunkBytes: 8 * 1024 * 1024,
    // The progress ChooseClips records once the analysis is merged (PROGRESS.chosen in split-steps.ts).
    chosenProgress: 45,
  },
  webhooks: {
    // Video jobs that fail at once ([fault:fail]: ffmpeg refuses the filter graph), one created every
    // 250 ms whatever the replies take: spread out, so the figure is the pipeline's latency, not a
    // queue behind a burst (the burst below measures that).
    jobEnds: 50,
    jobIntervalMs: 250,
    // The endpoints of the burst (the first one also receives the job events), and its test events.
    endpoints: 10,
    testEvents: 400,
    testConcurrency: 8,
    // After the last request: a delivery not received by then ends the run.
    deliveryTimeoutMs: 60_000,
    targetP99Ms: 1000,
  },
};

const { values: flags } = parseArgs({
  options: { json: { type: 'boolean', default: false }, phase: { type: 'string' } },
});
const jsonOnly = flags.json ?? false;
// `--phase webhooks`: the webhooks phase alone (after the cold start and the first GET /me), in a
// minute instead of the whole run's seven.
const onlyWebhooks = flags.phase === 'webhooks';
if (flags.phase !== undefined && !onlyWebhooks) {
  process.stderr.write(`bench: --phase takes one value, webhooks; got '${flags.phase}'\n`);
  process.exit(2);
}
const progress = (message: string) => {
  if (!jsonOnly) process.stderr.write(`bench: ${message}\n`);
};

// ---------------------------------------------------------------------------------------------
// SDK call counting

type Origin = 'api' | 'background';
const requestOrigin = new AsyncLocalStorage<Origin>();
let gatewayPort: number | undefined;

subscribe('http.server.request.start', (message) => {
  const { server } = message as { server: Server };
  const address = server.address();
  // enterWith, not run: the channel is published synchronously just before the server emits
  // 'request', so the gateway's handler (and every await under it) runs in this context.
  if (gatewayPort !== undefined && typeof address === 'object' && address?.port === gatewayPort)
    requestOrigin.enterWith('api');
});

/** One counter per origin and call label, e.g. `api` + `DynamoDB UpdateItem RATE#KEY/MINUTE`. */
const counts = new Map<string, number>();
const COUNT_SEPARATOR = '\u0000';

/** Item kind of a table key with the ids left out: `ORG#12`/`JOB#video_job_…` → `ORG/JOB`. */
function itemKind(key: unknown): string {
  const record = (key ?? {}) as { pk?: unknown; sk?: unknown };
  const kind = (value: unknown) =>
    typeof value === 'string'
      ? value
          .split('#')
          .filter((part) => /^[A-Z_]+$/.test(part))
          .join('#')
      : '?';
  return `${kind(record.pk)}/${kind(record.sk)}`;
}

/** `DynamoDB GetItem APIKEY/APIKEY`, `DynamoDB TransactWriteItems [Update ORG/ORG, Put ORG/JOB]`, `SFN StartExecution`. */
function callLabel(context: HandlerExecutionContext, input: unknown): string {
  const service = (context.clientName ?? '?').replace(/Client$/, '');
  const operation = (context.commandName ?? '?').replace(/Command$/, '');
  const label = `${service} ${operation}`;
  if (service !== 'DynamoDB' || typeof input !== 'object' || input === null) return label;
  const request = input as {
    Key?: unknown;
    Item?: unknown;
    TransactItems?: Record<string, { Key?: unknown; Item?: unknown }>[];
  };
  if (request.TransactItems) {
    const parts = request.TransactItems.map((item) => {
      const [action, body] = Object.entries(item)[0] ?? ['?', {}];
      return `${action} ${itemKind(body.Key ?? body.Item)}`;
    });
    return `${label} [${parts.join(', ')}]`;
  }
  if (request.Key || request.Item) return `${label} ${itemKind(request.Key ?? request.Item)}`;
  return label;
}

function record(origin: Origin, label: string) {
  const key = `${origin}${COUNT_SEPARATOR}${label}`;
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

/**
 * Counts each command once, when it is sent (the initialize step runs before the SDK's retry
 * middleware, so an SDK-level retry is not a second call; an application-level retry is).
 */
function callCounter<Input extends object, Output extends object>(): InitializeMiddleware<Input, Output> {
  return (next, context) => async (args) => {
    record(requestOrigin.getStore() ?? 'background', callLabel(context, (args as { input?: unknown }).input));
    return next(args);
  };
}

type Snapshot = Map<string, number>;
const snapshot = (): Snapshot => new Map(counts);

/** Calls per label between two snapshots, for one origin, divided by `per`. */
function callsBetween(before: Snapshot, after: Snapshot, origin: Origin, per = 1): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [key, value] of after) {
    const [keyOrigin, label] = key.split(COUNT_SEPARATOR) as [Origin, string];
    const delta = value - (before.get(key) ?? 0);
    if (keyOrigin === origin && delta > 0) result[label] = round(delta / per, 2);
  }
  return Object.fromEntries(Object.entries(result).sort(([a], [b]) => a.localeCompare(b)));
}

const sum = (calls: Record<string, number>) =>
  round(
    Object.values(calls).reduce((total, value) => total + value, 0),
    2,
  );

/** Folds labels to the SDK command only: `DynamoDB GetItem APIKEY/APIKEY` → `DynamoDB GetItem`. */
function byCommand(calls: Record<string, number>): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [label, value] of Object.entries(calls)) {
    const command = label.split(' ').slice(0, 2).join(' ');
    result[command] = round((result[command] ?? 0) + value, 2);
  }
  return result;
}

/** What `calls` has beyond `base`, label by label. */
function beyond(calls: Record<string, number>, base: Record<string, number>): Record<string, number> {
  const result: Record<string, number> = {};
  for (const [label, value] of Object.entries(calls)) {
    const extra = round(value - (base[label] ?? 0), 2);
    if (extra > 0) result[label] = extra;
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// HTTP

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

interface Reply {
  status: number;
  body: string;
  ms: number;
}

function call(url: string, method: string, key: string, body?: unknown): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const outgoing = httpRequest(
      url,
      {
        method,
        agent,
        headers: {
          Authorization: `Bearer ${key}`,
          ...(payload === undefined
            ? {}
            : { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            ms: performance.now() - startedAt,
          }),
        );
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}

function expectStatus(reply: Reply, status: number, what: string): Reply {
  if (reply.status !== status) throw new Error(`${what}: expected ${status}, got ${reply.status}: ${reply.body}`);
  return reply;
}

/** Runs `total` tasks, `concurrency` at a time; resolves with each task's result in order. */
async function inParallel<T>(total: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(total);
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const index = next;
      next += 1;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, worker));
  return results;
}

// ---------------------------------------------------------------------------------------------
// Figures

function round(value: number, decimals = 1): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/** Nearest-rank percentile. */
function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}

function latencyPercentiles(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    p50_ms: round(percentile(sorted, 50)),
    p90_ms: round(percentile(sorted, 90)),
    p99_ms: round(percentile(sorted, 99)),
    max_ms: round(sorted[sorted.length - 1] ?? NaN),
  };
}

function latency(samples: number[], wallMs: number) {
  return { ...latencyPercentiles(samples), throughput_rps: round((samples.length / wallMs) * 1000) };
}

/** What every timed run of one request reports: its latency and throughput, and the SDK calls per request. */
function timedRunFigures(
  { requests, concurrency }: { requests: number; concurrency: number },
  replies: readonly Reply[],
  wallMs: number,
  calls: Record<string, number>,
) {
  return {
    requests,
    concurrency,
    ...latency(
      replies.map((reply) => reply.ms),
      wallMs,
    ),
    sdk_calls_per_request: sum(calls),
    sdk_calls_by_command: byCommand(calls),
    sdk_calls: calls,
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

const megabytes = (bytes: number) => round(bytes / 1024 / 1024);

/** Resident memory of this process's direct children by name (DynamoDB Local's java, fauxqs's node, tsx's esbuild), Linux only. */
async function childProcessesRss(): Promise<Record<string, number>> {
  const result: Record<string, number> = {};
  if (process.platform !== 'linux') return result;
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = await readFile(`/proc/${entry}/stat`, 'utf8');
      const afterName = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(afterName[1]) !== process.pid) continue;
      const status = await readFile(`/proc/${entry}/status`, 'utf8');
      const name = /^Name:\s+(\S+)/m.exec(status)?.[1] ?? entry;
      const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      if (rssKb > 0) result[name] = round((result[name] ?? 0) + megabytes(rssKb * 1024));
    } catch {
      // the process ended while we looked
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// The run

/**
 * A Custom organization with `credits` and these negotiated limits (set high, so that no limit
 * shapes the figures), and a test key of it with every scope, written by the domain functions.
 */
async function seedCaller(
  credits: number,
  negotiatedLimits: NegotiatedLimits,
): Promise<{ organizationId: number; key: string }> {
  const [{ createOrganization }, { createApiKey }] = await Promise.all([
    import('#domain/access/organizations'),
    import('#domain/access/api-keys'),
  ]);
  const { organizationId } = await createOrganization({ plan: 'custom', credits, negotiatedLimits });
  const { key } = await createApiKey({ organizationId, environment: 'test', scopes: SCOPES });
  return { organizationId, key };
}

async function main(): Promise<Figures> {
  process.env.LOG_LEVEL = 'silent';
  process.env.VIDEO_RENDER_POLL_SECONDS = '1';
  delete process.env.LOCAL_RENDERER_FAULT;
  const rssBefore = process.memoryUsage().rss;
  const dataDir = await mkdtemp(join(tmpdir(), 'video-api-bench-'));
  process.env.LOCAL_DATA_DIR = dataDir;

  progress(`starting the local stack (data ${dataDir})`);
  const coldStartedAt = performance.now();
  let stack: LocalStack | undefined;
  let stopExecutions: SFNClient | undefined;
  try {
    stack = await startLocalStack({ port: 0, dataDir });
    const coldStartMs = performance.now() - coldStartedAt;
    gatewayPort = stack.port;
    const apiUrl = stack.apiUrl;

    // Made only now, on first use: the clients read the emulator endpoints from the environment.
    const [{ dynamo }, { s3 }, { stepFunctions }, { sqs }] = await Promise.all([
      import('#platform/clients/dynamodb'),
      import('#platform/clients/s3'),
      import('#domain/jobs/executions'),
      import('#domain/webhooks/delivery-queue'),
    ]);
    // DynamoDBDocumentClient shares the middleware stack of the DynamoDBClient it wraps, and a
    // document command (GetCommand) runs as its inner client command (GetItemCommand): counted once.
    dynamo().middlewareStack.add(callCounter(), { step: 'initialize', name: 'benchCallCounter' });
    s3().middlewareStack.add(callCounter(), { step: 'initialize', name: 'benchCallCounter' });
    stepFunctions().middlewareStack.add(callCounter(), { step: 'initialize', name: 'benchCallCounter' });
    sqs().middlewareStack.add(callCounter(), { step: 'initialize', name: 'benchCallCounter' });
    // Not instrumented: the bench's own control calls must not count.
    stopExecutions = new SFNClient({});

    const { key } = await seedCaller(1_000_000, {
      requests_per_minute_per_key: 1_000_000,
      requests_per_day_per_organization: 100_000_000,
      concurrent_video_jobs: 100_000,
      concurrent_split_jobs: 100_000,
    });

    // --- The call counter sees the handlers' calls: one GET /me, the first request (handler cold).
    const before = snapshot();
    const first = expectStatus(await call(`${apiUrl}/me`, 'GET', key), 200, 'first GET /me');
    const firstCalls = callsBetween(before, snapshot(), 'api');
    if (!Object.keys(firstCalls).some((label) => label.startsWith('DynamoDB '))) {
      throw new Error(
        `The call counter saw no DynamoDB call for GET /me (saw ${JSON.stringify(firstCalls)}); the figures would be wrong`,
      );
    }
    progress(`one GET /me made ${sum(firstCalls)} SDK calls: ${JSON.stringify(firstCalls)}`);

    const phasesBeforeWebhooks = onlyWebhooks
      ? undefined
      : await measurePhasesBeforeWebhooks({
          apiUrl,
          key,
          dataDir,
          stopExecutions,
        });
    const webhooks = await measureWebhooks(apiUrl);

    const figures = {
      machine: {
        cpus: availableParallelism(),
        cpu_model: cpus()[0]?.model ?? 'unknown',
        node: process.version,
        platform: `${process.platform}-${process.arch}`,
      },
      cold_start_ms: Math.round(coldStartMs),
      first_get_me_ms: round(first.ms),
      first_get_me_sdk_calls: firstCalls,
      rss_mb: {
        before: megabytes(rssBefore),
        after: megabytes(process.memoryUsage().rss),
        child_processes_after: await childProcessesRss(),
      },
      ...phasesBeforeWebhooks,
      webhooks,
    };

    progress('stopping the local stack');
    await stack.stop();
    stack = undefined;
    for (const client of [dynamo(), s3(), stepFunctions(), sqs()]) client.destroy();
    return figures;
  } finally {
    if (stack) await stack.stop();
    stopExecutions?.destroy();
    agent.destroy();
    await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * Every phase but the webhooks, in their order: GET /me, creates, renders, GET /video-jobs/{id},
 * GET /jobs, the large confirmation and the split jobs. `--phase webhooks` skips them.
 */
async function measurePhasesBeforeWebhooks({
  apiUrl,
  key,
  dataDir,
  stopExecutions,
}: {
  apiUrl: string;
  key: string;
  dataDir: string;
  stopExecutions: SFNClient;
}): Promise<PhasesBeforeWebhooksFigures> {
  const meUrl = `${apiUrl}/me`;
  const videoJobsUrl = `${apiUrl}/video-jobs`;

  // --- GET /me
  const me = SETTINGS.getMe;
  progress(`GET /me: ${me.warmup} warm-up, then ${me.requests} at concurrency ${me.concurrency}`);
  await inParallel(me.warmup, me.concurrency, async () => expectStatus(await call(meUrl, 'GET', key), 200, 'GET /me'));
  let before = snapshot();
  let startedAt = performance.now();
  const meReplies = await inParallel(me.requests, me.concurrency, async () =>
    expectStatus(await call(meUrl, 'GET', key), 200, 'GET /me'),
  );
  let wallMs = performance.now() - startedAt;
  let after = snapshot();
  const meCalls = callsBetween(before, after, 'api', me.requests);
  const getMe = {
    ...timedRunFigures(me, meReplies, wallMs, meCalls),
    background_sdk_calls: sum(callsBetween(before, after, 'background')),
  };

  // --- POST /video-jobs (stalled renders: no ffmpeg). Each job's execution is stopped as soon as
  // its create returns, so stalled jobs do not poll (2 DynamoDB calls a second each) under the measurement.
  const create = SETTINGS.createVideoJob;
  const executionArn = (jobId: string) =>
    `${(process.env.VIDEO_JOB_STATE_MACHINE_ARN ?? '').replace(':stateMachine:', ':execution:')}:${jobId}`;
  const stops: Promise<unknown>[] = [];
  const createStalled = async (index: number) => {
    const reply = expectStatus(
      await call(videoJobsUrl, 'POST', key, { prompt: `Benchmark job ${index} [fault:stall]`, duration_seconds: 5 }),
      201,
      'POST /video-jobs',
    );
    const jobId = (JSON.parse(reply.body) as { id: string }).id;
    stops.push(
      stopExecutions.send(new StopExecutionCommand({ executionArn: executionArn(jobId) })).catch(() => undefined),
    );
    return reply;
  };
  progress(`POST /video-jobs: ${create.warmup} warm-up, then ${create.requests} at concurrency ${create.concurrency}`);
  await inParallel(create.warmup, create.concurrency, createStalled);
  before = snapshot();
  startedAt = performance.now();
  const createReplies = await inParallel(create.requests, create.concurrency, (index) =>
    createStalled(create.warmup + index),
  );
  wallMs = performance.now() - startedAt;
  after = snapshot();
  await Promise.all(stops);
  const createCalls = callsBetween(before, after, 'api', create.requests);
  const createOnly = beyond(createCalls, meCalls);
  const createVideoJob = {
    ...timedRunFigures(create, createReplies, wallMs, createCalls),
    authentication_and_rate_limit_calls_per_request: round(sum(createCalls) - sum(createOnly), 2),
    create_calls_per_request: sum(createOnly),
    create_sdk_calls: createOnly,
    background_sdk_calls: sum(callsBetween(before, after, 'background')),
  };
  await sleep(500); // let worker invocations already under way finish

  // --- Real 5 s renders, one after another: create to completed, polling every 100 ms.
  const render = SETTINGS.render;
  const renderSeconds: number[] = [];
  const renderWorkerCalls: Record<string, number>[] = [];
  const renderPolls: number[] = [];
  let lastJobId = '';
  for (let run = 1; run <= render.runs; run += 1) {
    progress(`render ${run}/${render.runs}: a ${render.durationSeconds} s video, create to completed`);
    before = snapshot();
    const renderStartedAt = performance.now();
    const created = expectStatus(
      await call(videoJobsUrl, 'POST', key, {
        prompt: `Benchmark render ${run}: a calm sea at dawn`,
        duration_seconds: render.durationSeconds,
      }),
      201,
      'POST /video-jobs (render)',
    );
    const jobId = (JSON.parse(created.body) as { id: string }).id;
    let polls = 0;
    for (;;) {
      const reply = expectStatus(await call(`${videoJobsUrl}/${jobId}`, 'GET', key), 200, 'GET /video-jobs/{id}');
      polls += 1;
      const status = (JSON.parse(reply.body) as { status: string }).status;
      if (status === 'completed') break;
      if (status !== 'queued' && status !== 'processing')
        throw new Error(`Render job ${jobId} ended ${status}: ${reply.body}`);
      if (performance.now() - renderStartedAt > render.timeoutMs)
        throw new Error(`Render job ${jobId} not completed in ${render.timeoutMs} ms`);
      await sleep(render.pollMs);
    }
    renderSeconds.push(round((performance.now() - renderStartedAt) / 1000, 2));
    renderPolls.push(polls);
    await sleep(300); // the finishing worker reads the job once more after the GET may already see it completed
    renderWorkerCalls.push(callsBetween(before, snapshot(), 'background'));
    lastJobId = jobId;
  }
  const renderFigures = {
    runs: render.runs,
    video_seconds: render.durationSeconds,
    poll_interval_ms: render.pollMs,
    create_to_completed_s: renderSeconds,
    median_s: round(median(renderSeconds), 2),
    polls_per_run: renderPolls,
    worker_sdk_calls_per_render: round(median(renderWorkerCalls.map(sum)), 2),
    worker_sdk_calls: renderWorkerCalls[Math.floor(renderWorkerCalls.length / 2)] ?? {},
  };

  // --- GET /video-jobs/{id}: what a polling client costs.
  const getJob = SETTINGS.getVideoJob;
  const jobUrl = `${videoJobsUrl}/${lastJobId}`;
  progress(
    `GET /video-jobs/{id}: ${getJob.warmup} warm-up, then ${getJob.requests} at concurrency ${getJob.concurrency}`,
  );
  await inParallel(getJob.warmup, getJob.concurrency, async () =>
    expectStatus(await call(jobUrl, 'GET', key), 200, 'GET /video-jobs/{id}'),
  );
  before = snapshot();
  startedAt = performance.now();
  const getJobReplies = await inParallel(getJob.requests, getJob.concurrency, async () =>
    expectStatus(await call(jobUrl, 'GET', key), 200, 'GET /video-jobs/{id}'),
  );
  wallMs = performance.now() - startedAt;
  after = snapshot();
  const getJobCalls = callsBetween(before, after, 'api', getJob.requests);
  const getVideoJob = timedRunFigures(getJob, getJobReplies, wallMs, getJobCalls);

  // --- GET /jobs over 10,000 jobs: unfiltered, and filtered to the 1 % that failed.
  const listing = SETTINGS.listJobs;
  progress(`GET /jobs: seeding ${listing.jobs} jobs (1 in ${listing.failedEvery} failed)`);
  const { organizationId: listOrganizationId, key: listKey } = await seedCaller(0, {
    requests_per_minute_per_key: 1_000_000,
    requests_per_day_per_organization: 100_000_000,
  });
  await seedJobs(listOrganizationId, listing);
  const listJobsFigures = async (query: string) => {
    // Each worker follows the cursors from the first page to the last, then starts again.
    const cursors: (string | null)[] = [];
    const page = async (worker: number) => {
      const cursor = cursors[worker] ?? null;
      const url = `${apiUrl}/jobs?limit=${listing.pageSize}${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const reply = expectStatus(await call(url, 'GET', listKey), 200, `GET /jobs${query}`);
      cursors[worker] = (
        JSON.parse(reply.body) as { pagination: { next_cursor: string | null } }
      ).pagination.next_cursor;
      return reply;
    };
    await inParallel(listing.warmup, 1, () => page(0));
    cursors.length = 0;
    const snapshotBefore = snapshot();
    const started = performance.now();
    const replies = await inParallel(listing.requests, listing.concurrency, (index) =>
      page(index % listing.concurrency),
    );
    const wall = performance.now() - started;
    const calls = callsBetween(snapshotBefore, snapshot(), 'api', listing.requests);
    const listOnly = beyond(calls, meCalls);
    return {
      ...timedRunFigures(listing, replies, wall, calls),
      list_calls_per_page: sum(listOnly),
      list_sdk_calls_by_command: byCommand(listOnly),
    };
  };
  progress(
    `GET /jobs unfiltered: ${listing.requests} pages of ${listing.pageSize} at concurrency ${listing.concurrency}`,
  );
  const listAll = await listJobsFigures('');
  progress(`GET /jobs?status=failed (1 %): ${listing.requests} pages at concurrency ${listing.concurrency}`);
  const listFailed = await listJobsFigures('&status=failed');
  const listJobs = {
    jobs: listing.jobs,
    page_size: listing.pageSize,
    unfiltered: listAll,
    status_failed: listFailed,
  };

  // --- A large upload as a client makes it: PUT to its upload URL, confirmed (a copy in parts), downloaded.
  const large = SETTINGS.confirmLargeUpload;
  progress(`${megabytes(large.sizeBytes)} MiB upload: PUT to its upload URL, confirm, download`);
  const created = expectStatus(
    await call(`${apiUrl}/assets/upload-url`, 'POST', key, {
      filename: 'bench.mp4',
      content_type: 'video/mp4',
      size_bytes: large.sizeBytes,
      purpose: 'general',
    }),
    201,
    'POST /assets/upload-url',
  );
  const { asset_id: assetId, upload_url: uploadUrl } = JSON.parse(created.body) as {
    asset_id: string;
    upload_url: string;
  };
  const { planCopyParts } = await import('#domain/assets/media');
  const rssBeforeMb = round(process.memoryUsage().rss / 2 ** 20);
  let peakRss = process.memoryUsage().rss;
  const rssSampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), large.rssSampleMs);
  const uploadedHash = createHash('sha256');
  const uploadStartedAt = performance.now();
  const put = await putToUploadUrl(
    uploadUrl,
    'video/mp4',
    large.sizeBytes,
    tapped(headerThenZeros(large), (chunk) => uploadedHash.update(chunk)),
  );
  if (put.status !== 200) throw new Error(`PUT to the upload URL answered ${put.status}: ${put.body}`);
  const uploadMs = performance.now() - uploadStartedAt;
  before = snapshot();
  const confirmed = expectStatus(
    await call(`${apiUrl}/assets/confirm-upload`, 'POST', key, { asset_id: assetId }),
    200,
    'POST /assets/confirm-upload',
  );
  const confirmCalls = callsBetween(before, snapshot(), 'api');
  const download = expectStatus(
    await call(`${apiUrl}/assets/${assetId}/download-url`, 'GET', key),
    200,
    'GET /assets/{id}/download-url',
  );
  const downloadStartedAt = performance.now();
  const downloadedHash = await sha256Of((JSON.parse(download.body) as { download_url: string }).download_url);
  const downloadMs = performance.now() - downloadStartedAt;
  clearInterval(rssSampler);
  const uploadedSha256 = uploadedHash.digest('hex');
  if (downloadedHash !== uploadedSha256) throw new Error('The download of the large upload differs from what was PUT');
  const confirmLargeUpload = {
    size_bytes: large.sizeBytes,
    upload_ms: round(uploadMs),
    upload_mib_per_s: round(megabytes(large.sizeBytes) / (uploadMs / 1000)),
    copy_parts: planCopyParts(large.sizeBytes).length,
    confirm_ms: round(confirmed.ms),
    download_ms: round(downloadMs),
    download_sha256_equals_upload: true,
    rss_mb_before: rssBeforeMb,
    rss_mb_peak: round(peakRss / 2 ** 20),
    sdk_calls_per_request: sum(confirmCalls),
    sdk_calls_by_command: byCommand(confirmCalls),
    confirm_calls_per_request: sum(beyond(confirmCalls, meCalls)),
    confirm_sdk_calls: beyond(confirmCalls, meCalls),
  };

  // --- Split jobs of 2, 5 and 10 minute 720p sources, one after another: create to completed.
  const split = SETTINGS.splitJobs;
  const ffmpeg = await resolveMediaTool('ffmpeg');
  progress(`split jobs: making ${split.sourceSeconds.join(', ')} s sources of 1280x720 (not timed)`);
  const sourcesStartedAt = performance.now();
  const splitSources = await makeSplitSources(ffmpeg.path, join(dataDir, 'split-sources'), split.sourceSeconds);
  progress(`split jobs: sources made in ${round((performance.now() - sourcesStartedAt) / 1000)} s`);
  const splitRuns = [];
  for (const source of splitSources) {
    progress(`split job of the ${source.seconds} s source (${megabytes(source.sizeBytes)} MiB): create to completed`);
    const sourceAssetId = await uploadSplitSource(apiUrl, key, source);
    splitRuns.push(await measureSplitJob(apiUrl, key, sourceAssetId, source));
  }
  const longest = splitSources[splitSources.length - 1]!;
  progress('split jobs: the reference encode (30 s of the longest source cropped to 720x1280, x264 veryfast)');
  const referenceEncodeS = await referenceEncodeSeconds(ffmpeg.path, longest.path, join(dataDir, 'reference.mp4'));
  const splitJobs = {
    ffmpeg: ffmpeg.version,
    poll_interval_ms: split.pollMs,
    reference_encode_s: referenceEncodeS,
    runs: splitRuns,
  };

  return {
    get_me: getMe,
    create_video_job: createVideoJob,
    get_video_job: getVideoJob,
    list_jobs: listJobs,
    render: renderFigures,
    confirm_large_upload: confirmLargeUpload,
    split_jobs: splitJobs,
  };
}

/**
 * Writes jobs as the create and finish transactions leave them (the job item and its list
 * entries, built by the same functions), 25 items a BatchWriteItem, newest one second apart:
 * creating 10,000 jobs through the API would take minutes of renders for the same rows.
 */
async function seedJobs(
  organizationId: number,
  { jobs, failedEvery, seedConcurrency }: { jobs: number; failedEvery: number; seedConcurrency: number },
) {
  const [
    { dynamo, tableName },
    { BatchWriteCommand },
    { newJobPut },
    { newJobListEntries, listedJob },
    { sortableId },
    { TABLE_DESIGN },
  ] = await Promise.all([
    import('#platform/clients/dynamodb'),
    import('@aws-sdk/lib-dynamodb'),
    import('#domain/jobs/job-store'),
    import('#domain/jobs/job-list-entries'),
    import('#platform/ids'),
    import('#platform/table-design'),
  ]);
  const items: Record<string, unknown>[] = [];
  const startMs = Date.now() - jobs * 1000;
  for (let index = 0; index < jobs; index += 1) {
    const createdMs = startMs + index * 1000;
    const createdAt = new Date(createdMs).toISOString();
    const failed = index % failedEvery === 0;
    const job = {
      jobId: sortableId('video_job_', createdMs),
      organizationId,
      type: 'video' as const,
      status: failed ? ('failed' as const) : ('completed' as const),
      progress: failed ? 0 : 100,
      createdAt,
      updatedAt: createdAt,
      credits: { estimated: 10, charged: 10, refunded: failed ? 10 : 0 },
      input: {
        prompt: `Seeded job ${index}`,
        duration_seconds: 5 as const,
        aspect_ratio: '9:16' as const,
        model: 'auto' as const,
        mode: 'text_to_video' as const,
      },
      metadata: null,
      outputAssetId: null,
      error: failed ? { code: 'GENERATION_FAILED', message: 'Seeded failure.' } : null,
      providerJobId: null,
      clipsCount: null,
      createdByKey: null,
      tracked: true,
    };
    const item = { ...newJobPut(job).Put!.Item! };
    // The finish transaction takes a job out of the active-jobs index. Left in it, all 10,000 would
    // be restarted by the reconciler, whose timer fires 5 minutes into the run.
    delete item[TABLE_DESIGN.activeJobs.partitionKey];
    delete item[TABLE_DESIGN.activeJobs.sortKey];
    items.push(item);
    for (const entry of Object.values(newJobListEntries(listedJob(job), job.status))) items.push(entry.Put!.Item!);
  }
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, index) =>
    items.slice(index * 25, index * 25 + 25),
  );
  await inParallel(batches.length, seedConcurrency, async (index) => {
    let pending: Record<string, unknown>[] = (batches[index] ?? []).map((Item) => ({ PutRequest: { Item } }));
    while (pending.length > 0) {
      const { UnprocessedItems } = await dynamo().send(
        new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }),
      );
      pending = (UnprocessedItems?.[tableName()] ?? []) as Record<string, unknown>[];
    }
  });
}

/** The chunks of a large upload that only has to pass confirmation: an MP4 header, then zeros. */
function* headerThenZeros({ sizeBytes, chunkBytes }: { sizeBytes: number; chunkBytes: number }) {
  const zeros = Buffer.alloc(chunkBytes);
  const first = Buffer.alloc(chunkBytes);
  Buffer.from([0, 0, 0, 0x18, ...Buffer.from('ftypisom'), 0, 0, 2, 0, ...Buffer.from('isommp41')]).copy(first);
  for (let offset = 0; offset < sizeBytes; offset += chunkBytes) {
    yield (offset === 0 ? first : zeros).subarray(0, Math.min(chunkBytes, sizeBytes - offset));
  }
}

/** The chunks, each shown to `see` on its way. */
function* tapped(chunks: Iterable<Buffer>, see: (chunk: Buffer) => void) {
  for (const chunk of chunks) {
    see(chunk);
    yield chunk;
  }
}

/** The SHA-256 of what a URL serves, read as it streams in. */
async function sha256Of(url: string): Promise<string> {
  const response = await fetch(url);
  if (response.status !== 200 || !response.body) throw new Error(`GET ${url} answered ${response.status}`);
  const hash = createHash('sha256');
  for await (const chunk of response.body) hash.update(chunk);
  return hash.digest('hex');
}

/** A file in parts of `partBytes` (the last one shorter), one part in memory at a time. */
async function* fileParts(path: string, partBytes: number) {
  const file = await open(path);
  try {
    for (let position = 0; ;) {
      const { bytesRead, buffer } = await file.read(Buffer.alloc(partBytes), 0, partBytes, position);
      if (bytesRead === 0) return;
      position += bytesRead;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await file.close();
  }
}

// ---------------------------------------------------------------------------------------------
// Split jobs

/**
 * The two minutes a split source alternates. Each has two scenes of moving patterns (a cut 25 or
 * 30 s in, another where it meets the next minute) and a tone that pauses every 12 or 9 s.
 */
const SPLIT_SOURCE_MINUTES = [
  {
    scenes: [
      { seconds: 25, pattern: 'testsrc2=s=1280x720:r=25' },
      { seconds: 35, pattern: 'life=s=1280x720:r=25:mold=10:ratio=0.1:death_color=#C83232:life_color=#00ff00' },
    ],
    tone: 'if(lt(mod(t,12),0.8),0,0.4*sin(2*PI*440*t)*(0.6+0.4*sin(2*PI*0.3*t)))',
  },
  {
    scenes: [
      // Drawn small and scaled up: mandelbrot computes every pixel on one core.
      { seconds: 30, pattern: 'mandelbrot=s=320x180:r=25,scale=1280:720' },
      { seconds: 30, pattern: 'testsrc2=s=1280x720:r=25,hue=h=150' },
    ],
    tone: 'if(lt(mod(t,9),0.6),0,0.4*sin(2*PI*330*t)*(0.6+0.4*sin(2*PI*0.5*t)))',
  },
];

interface SplitSourceFile {
  seconds: number;
  path: string;
  sizeBytes: number;
}

/**
 * 1280x720 25 fps H.264 (x264 veryfast, 1 Mb/s) and AAC sources of the given whole minutes: the
 * two minutes above, encoded once, then alternated and joined without re-encoding. Encoding ten
 * minutes of 720p would take longer than the split job it feeds.
 */
async function makeSplitSources(
  ffmpegPath: string,
  directory: string,
  lengths: readonly number[],
): Promise<SplitSourceFile[]> {
  await mkdir(directory, { recursive: true });
  const ffmpeg = (args: string[]) => execFileAsync(ffmpegPath, ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
  // Side by side: the pattern sources draw on one core each.
  const minutes = await Promise.all(
    SPLIT_SOURCE_MINUTES.map(async ({ scenes, tone }, index) => {
      const path = join(directory, `minute-${index}.mp4`);
      const concat = `${scenes.map((_, scene) => `[${scene}:v]`).join('')}concat=n=${scenes.length}:v=1:a=0[v]`;
      await ffmpeg([
        ...scenes.flatMap(({ seconds, pattern }) => ['-t', String(seconds), '-f', 'lavfi', '-i', pattern]),
        ...['-f', 'lavfi', '-i', `aevalsrc='${tone}':s=48000:d=60`],
        ...['-filter_complex', concat, '-map', '[v]', '-map', `${scenes.length}:a`],
        ...['-c:v', 'libx264', '-preset', 'veryfast', '-b:v', '1000k', '-pix_fmt', 'yuv420p'],
        ...['-c:a', 'aac', '-b:a', '128k'],
        path,
      ]);
      return path;
    }),
  );
  const sources: SplitSourceFile[] = [];
  for (const seconds of lengths) {
    if (seconds % 60 !== 0) throw new Error(`A split source lasts whole minutes; ${seconds} s does not`);
    const list = join(directory, `source-${seconds}s.txt`);
    const path = join(directory, `source-${seconds}s.mp4`);
    const files = Array.from({ length: seconds / 60 }, (_, minute) => minutes[minute % minutes.length]);
    await writeFile(list, files.map((file) => `file '${file}'\n`).join(''));
    await ffmpeg(['-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', '-movflags', '+faststart', path]);
    sources.push({ seconds, path, sizeBytes: (await stat(path)).size });
  }
  return sources;
}

/**
 * The floor the split target was set against, measured again on this machine now: 30 s of the
 * source cut and cropped to 720x1280 with x264 veryfast, which took 5.4 s when the target was set.
 * A shared machine's speed varies by a third from hour to hour; this says how fast it was.
 */
async function referenceEncodeSeconds(ffmpegPath: string, sourcePath: string, outputPath: string): Promise<number> {
  const startedAt = performance.now();
  await execFileAsync(ffmpegPath, [
    ...['-hide_banner', '-loglevel', 'error', '-y', '-ss', '60', '-t', '30', '-i', sourcePath],
    ...['-vf', 'crop=405:720,scale=720:1280', '-c:v', 'libx264', '-preset', 'veryfast', '-an', outputPath],
  ]);
  return round((performance.now() - startedAt) / 1000, 2);
}

/** What a split job's media tools ran, told apart by what they write. */
type MediaToolRunKind = 'probe' | 'analysis' | 'clip' | 'thumbnail';

interface MediaToolRunSpan {
  kind: MediaToolRunKind;
  startMs: number;
  endMs: number;
}

/** ffprobe and ffmpeg processes of this process, as they end; the split phase empties it before each job. */
const mediaToolRuns: MediaToolRunSpan[] = [];

function mediaToolRunKind(commandLine: readonly string[]): MediaToolRunKind | undefined {
  const tool = basename(commandLine[0] ?? '');
  const output = commandLine.at(-1) ?? '';
  if (tool === 'ffprobe') return 'probe';
  if (tool !== 'ffmpeg') return undefined;
  if (output === '-') return 'analysis';
  if (basename(output) === CLIP_FILE_NAME) return 'clip';
  if (basename(output) === THUMBNAIL_FILE_NAME) return 'thumbnail';
  return undefined;
}

subscribe('child_process', (message) => {
  const { process: child } = message as { process: ChildProcess };
  const startMs = performance.now();
  child.once('exit', () => {
    const kind = mediaToolRunKind(child.spawnargs);
    if (kind) mediaToolRuns.push({ kind, startMs, endMs: performance.now() });
  });
});

/** Milliseconds of [fromMs, toMs] during which at least one of the spans ran. */
function coveredMs(spans: readonly MediaToolRunSpan[], fromMs: number, toMs: number): number {
  let covered = 0;
  let reachedMs = fromMs;
  for (const span of [...spans].sort((a, b) => a.startMs - b.startMs)) {
    const startMs = Math.max(span.startMs, reachedMs);
    const endMs = Math.min(span.endMs, toMs);
    if (endMs > startMs) covered += endMs - startMs;
    reachedMs = Math.max(reachedMs, endMs);
  }
  return covered;
}

/** From the first start to the last end of the runs of those kinds, in seconds. */
function spanSeconds(runs: readonly MediaToolRunSpan[], kinds: readonly MediaToolRunKind[]): number {
  const chosen = runs.filter((run) => kinds.includes(run.kind));
  if (chosen.length === 0) return 0;
  return round((Math.max(...chosen.map((run) => run.endMs)) - Math.min(...chosen.map((run) => run.startMs))) / 1000, 2);
}

/** A split source uploaded as a client would: PUT to its upload URL, then confirmed. */
async function uploadSplitSource(apiUrl: string, key: string, source: SplitSourceFile): Promise<string> {
  const created = expectStatus(
    await call(`${apiUrl}/assets/upload-url`, 'POST', key, {
      filename: `source-${source.seconds}s.mp4`,
      content_type: 'video/mp4',
      size_bytes: source.sizeBytes,
      purpose: 'split_source',
    }),
    201,
    'POST /assets/upload-url (split source)',
  );
  const { asset_id: assetId, upload_url: uploadUrl } = JSON.parse(created.body) as {
    asset_id: string;
    upload_url: string;
  };
  const put = await putToUploadUrl(
    uploadUrl,
    'video/mp4',
    source.sizeBytes,
    fileParts(source.path, SETTINGS.splitJobs.readChunkBytes),
  );
  if (put.status !== 200) throw new Error(`PUT of the split source answered ${put.status}: ${put.body}`);
  expectStatus(
    await call(`${apiUrl}/assets/confirm-upload`, 'POST', key, { asset_id: assetId }),
    200,
    'POST /assets/confirm-upload (split source)',
  );
  return assetId;
}

/** One split job with the default options, from just before its create until a poll sees it completed. */
async function measureSplitJob(apiUrl: string, key: string, assetId: string, source: SplitSourceFile) {
  const settings = SETTINGS.splitJobs;
  const jobsUrl = `${apiUrl}/split-jobs`;
  const before = snapshot();
  mediaToolRuns.length = 0;
  const startedAt = performance.now();
  const created = expectStatus(await call(jobsUrl, 'POST', key, { source_asset_id: assetId }), 201, 'POST /split-jobs');
  const jobId = (JSON.parse(created.body) as { id: string }).id;
  let chosenAt: number | undefined;
  for (;;) {
    const reply = expectStatus(await call(`${jobsUrl}/${jobId}`, 'GET', key), 200, 'GET /split-jobs/{id}');
    const job = JSON.parse(reply.body) as { status: string; progress: number };
    if (chosenAt === undefined && job.progress >= settings.chosenProgress) chosenAt = performance.now();
    if (job.status === 'completed') break;
    if (job.status !== 'queued' && job.status !== 'processing') {
      throw new Error(`Split job ${jobId} ended ${job.status}: ${reply.body}`);
    }
    if (performance.now() - startedAt > settings.timeoutMs) {
      throw new Error(`Split job ${jobId} not completed in ${settings.timeoutMs} ms`);
    }
    await sleep(settings.pollMs);
  }
  const completedAt = performance.now();
  const listed = expectStatus(await call(`${jobsUrl}/${jobId}/clips`, 'GET', key), 200, 'GET /split-jobs/{id}/clips');
  const clips = (JSON.parse(listed.body) as { clips: { status: string; duration_seconds: number }[] }).clips.filter(
    (clip) => clip.status === 'completed',
  );
  const runs = [...mediaToolRuns];
  const workerCalls = callsBetween(before, snapshot(), 'background');
  const wallSeconds = (completedAt - startedAt) / 1000;
  return {
    source_seconds: source.seconds,
    source_mb: megabytes(source.sizeBytes),
    create_ms: round(created.ms),
    wall_s: round(wallSeconds, 2),
    wall_per_source_second: round(wallSeconds / source.seconds, 3),
    clips: clips.length,
    clip_seconds: round(clips.reduce((total, clip) => total + clip.duration_seconds, 0)),
    // Set at the latest by the poll that saw the job completed (progress 100).
    to_chosen_s: round((chosenAt! - startedAt) / 1000, 2),
    after_chosen_s: round((completedAt - chosenAt!) / 1000, 2),
    analysis_ffmpeg_s: spanSeconds(runs, ['analysis']),
    clip_renders_s: spanSeconds(runs, ['clip', 'thumbnail']),
    clip_encode_s: runs
      .filter((run) => run.kind === 'clip')
      .sort((a, b) => a.startMs - b.startMs)
      .map((run) => round((run.endMs - run.startMs) / 1000, 2)),
    no_media_tool_running_s: round(wallSeconds - coveredMs(runs, startedAt, completedAt) / 1000, 2),
    worker_sdk_calls_per_job: sum(workerCalls),
    worker_sdk_calls: workerCalls,
  };
}

// ---------------------------------------------------------------------------------------------
// Webhooks

/** One request the receiver got. */
interface WebhookReceipt {
  eventId: string;
  /** The event's `created_at`: for a job event, the instant `finishJob` took just before ending the job. */
  createdAtMs: number;
  /** The job a job event reports. */
  jobId?: string;
  /** When the last byte of the body arrived, by this process's clock (the one `created_at` was read from). */
  receivedAtMs: number;
  /** Verified with the secret of the endpoint its path belongs to, as an integrator's receiver would. */
  signatureVerified: boolean;
}

/** What the bench reads of a delivered body; one that is not the service's JSON reads as nothing (and fails verification). */
function deliveredEvent(rawBody: string): Pick<WebhookReceipt, 'eventId' | 'createdAtMs' | 'jobId'> {
  try {
    const event = JSON.parse(rawBody) as { id: string; created_at: string; data: { job?: { id: string } } };
    return { eventId: event.id, createdAtMs: Date.parse(event.created_at), jobId: event.data.job?.id };
  } catch {
    return { eventId: '', createdAtMs: NaN };
  }
}

/**
 * A real HTTP receiver on 127.0.0.1, in this process, that answers 204 at once and records each
 * request. `secretsByPath` is read at each receipt, so endpoints may be added while it runs.
 */
async function startWebhookReceiver(secretsByPath: ReadonlyMap<string, string>) {
  const receipts: WebhookReceipt[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const receivedAtMs = Date.now();
      response.writeHead(204).end();
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const secret = secretsByPath.get(request.url ?? '');
      receipts.push({
        ...deliveredEvent(rawBody),
        receivedAtMs,
        signatureVerified:
          secret !== undefined &&
          verifyWebhook({ headers: request.headers, rawBody, secrets: secret, now: receivedAtMs }).ok,
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    receipts,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves once `received` holds; a delivery missing after `timeoutMs` ends the run. */
async function waitForDeliveries(received: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!received()) {
    if (performance.now() > deadline) throw new Error(`${what}: not all received within ${timeoutMs} ms`);
    await sleep(25);
  }
}

/** The first receipt of each event: a later one is a duplicate. */
function firstReceipts(receipts: readonly WebhookReceipt[]): WebhookReceipt[] {
  const first = new Map<string, WebhookReceipt>();
  for (const receipt of receipts) if (!first.has(receipt.eventId)) first.set(receipt.eventId, receipt);
  return [...first.values()];
}

/** Latency from each event's `created_at` to its first receipt; duplicates and failed verifications counted. */
function deliveryFigures(receipts: readonly WebhookReceipt[]) {
  const first = firstReceipts(receipts);
  return {
    ...latencyPercentiles(first.map((receipt) => receipt.receivedAtMs - receipt.createdAtMs)),
    duplicates: receipts.length - first.length,
    signature_failures: receipts.filter((receipt) => !receipt.signatureVerified).length,
  };
}

/**
 * The webhooks phase, in an organization of its own (so no other phase's job ends reach its
 * endpoints), against a receiver in this process. First, job ends: video jobs that fail at once,
 * each event timed from its `created_at` to its receipt. Then a burst of test events spread over
 * the endpoints, as fast as the API takes them: deliveries per second from the first request to
 * the last receipt. Both go through the table stream, the relay, the queue and the delivery worker.
 */
async function measureWebhooks(apiUrl: string) {
  const settings = SETTINGS.webhooks;
  const { key } = await seedCaller(1_000_000, {
    requests_per_minute_per_key: 1_000_000,
    requests_per_day_per_organization: 100_000_000,
    concurrent_video_jobs: 100_000,
    webhook_endpoints: settings.endpoints,
  });
  const secretsByPath = new Map<string, string>();
  const receiver = await startWebhookReceiver(secretsByPath);
  try {
    const createEndpoint = async (index: number) => {
      const path = `/hooks/${index}`;
      const reply = expectStatus(
        await call(`${apiUrl}/webhooks`, 'POST', key, {
          url: `${receiver.url}${path}`,
          events: ['job.completed', 'job.failed'],
        }),
        201,
        'POST /webhooks',
      );
      const endpoint = JSON.parse(reply.body) as { id: string; secret: string };
      secretsByPath.set(path, endpoint.secret);
      return endpoint.id;
    };

    // --- Job end to receipt.
    const firstEndpointId = await createEndpoint(0);
    progress(
      `webhooks: ${settings.jobEnds} video jobs that fail at once, one created every ${settings.jobIntervalMs} ms; job end to receipt`,
    );
    const jobIds = new Set(
      await Promise.all(
        Array.from({ length: settings.jobEnds }, async (_, index) => {
          await sleep(index * settings.jobIntervalMs);
          const reply = expectStatus(
            await call(`${apiUrl}/video-jobs`, 'POST', key, {
              prompt: `Benchmark webhook ${index} [fault:fail]`,
              duration_seconds: 5,
            }),
            201,
            'POST /video-jobs (webhooks)',
          );
          return (JSON.parse(reply.body) as { id: string }).id;
        }),
      ),
    );
    const jobReceipts = () => receiver.receipts.filter((receipt) => jobIds.has(receipt.jobId ?? ''));
    await waitForDeliveries(
      () => new Set(jobReceipts().map((receipt) => receipt.jobId)).size === jobIds.size,
      settings.deliveryTimeoutMs,
      `the events of ${jobIds.size} job ends`,
    );

    // --- A burst of test events over every endpoint.
    const endpointIds = [
      firstEndpointId,
      ...(await inParallel(settings.endpoints - 1, 1, (index) => createEndpoint(index + 1))),
    ];
    progress(
      `webhooks: ${settings.testEvents} POST /webhooks/{id}/test over ${endpointIds.length} endpoints at concurrency ${settings.testConcurrency}; deliveries per second`,
    );
    const before = snapshot();
    const burstStartedAtMs = Date.now();
    const testEventIds = new Set(
      await inParallel(settings.testEvents, settings.testConcurrency, async (index) => {
        const endpointId = endpointIds[index % endpointIds.length]!;
        const reply = expectStatus(
          await call(`${apiUrl}/webhooks/${endpointId}/test`, 'POST', key),
          200,
          'POST /webhooks/{id}/test',
        );
        return (JSON.parse(reply.body) as { delivery: { id: string } }).delivery.id;
      }),
    );
    const requestsEndedAtMs = Date.now();
    const testReceipts = () => receiver.receipts.filter((receipt) => testEventIds.has(receipt.eventId));
    await waitForDeliveries(
      () => firstReceipts(testReceipts()).length === testEventIds.size,
      settings.deliveryTimeoutMs,
      `the deliveries of ${testEventIds.size} test events`,
    );
    const lastReceiptMs = Math.max(...firstReceipts(testReceipts()).map((receipt) => receipt.receivedAtMs));
    await sleep(500); // the worker records a delivery after the receiver has answered
    const burstCalls = callsBetween(before, snapshot(), 'background', testEventIds.size);

    const jobEnds = deliveryFigures(jobReceipts());
    const burstSeconds = (lastReceiptMs - burstStartedAtMs) / 1000;
    return {
      job_end_to_receipt: {
        jobs: jobIds.size,
        interval_ms: settings.jobIntervalMs,
        ...jobEnds,
        target_p99_ms: settings.targetP99Ms,
        p99_within_target: jobEnds.p99_ms <= settings.targetP99Ms,
      },
      test_burst: {
        endpoints: endpointIds.length,
        test_events: testEventIds.size,
        concurrency: settings.testConcurrency,
        test_requests_per_second: round(testEventIds.size / ((requestsEndedAtMs - burstStartedAtMs) / 1000)),
        first_request_to_last_receipt_s: round(burstSeconds, 2),
        deliveries_per_second: round(testEventIds.size / burstSeconds),
        ...deliveryFigures(testReceipts()),
        background_sdk_calls_per_delivery: sum(burstCalls),
        background_sdk_calls: burstCalls,
      },
    };
  } finally {
    await receiver.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// Output

/** Every run's figures; the phases before the webhooks are left out by `--phase webhooks`. */
type Figures = Record<string, unknown> & {
  machine: { cpus: number; cpu_model: string; node: string; platform: string };
  cold_start_ms: number;
  first_get_me_ms: number;
  rss_mb: { before: number; after: number; child_processes_after: Record<string, number> };
  webhooks: WebhookFigures;
} & Partial<PhasesBeforeWebhooksFigures>;

interface PhasesBeforeWebhooksFigures {
  get_me: LatencyFigures;
  create_video_job: LatencyFigures & {
    authentication_and_rate_limit_calls_per_request: number;
    create_calls_per_request: number;
    create_sdk_calls: Record<string, number>;
  };
  get_video_job: LatencyFigures;
  list_jobs: {
    jobs: number;
    page_size: number;
    unfiltered: ListFigures;
    status_failed: ListFigures;
  };
  confirm_large_upload: {
    size_bytes: number;
    upload_ms: number;
    upload_mib_per_s: number;
    copy_parts: number;
    confirm_ms: number;
    download_ms: number;
    download_sha256_equals_upload: boolean;
    rss_mb_before: number;
    rss_mb_peak: number;
    sdk_calls_per_request: number;
    sdk_calls_by_command: Record<string, number>;
    confirm_calls_per_request: number;
    confirm_sdk_calls: Record<string, number>;
  };
  split_jobs: { ffmpeg: string; poll_interval_ms: number; reference_encode_s: number; runs: SplitJobFigures[] };
  render: {
    video_seconds: number;
    poll_interval_ms: number;
    create_to_completed_s: number[];
    median_s: number;
    polls_per_run: number[];
    worker_sdk_calls_per_render: number;
    worker_sdk_calls: Record<string, number>;
  };
}

const ranPhasesBeforeWebhooks = (figures: Figures): figures is Figures & PhasesBeforeWebhooksFigures =>
  figures.get_me !== undefined;

type WebhookFigures = Awaited<ReturnType<typeof measureWebhooks>>;

type SplitJobFigures = Awaited<ReturnType<typeof measureSplitJob>>;

type ListFigures = LatencyFigures & { list_calls_per_page: number; list_sdk_calls_by_command: Record<string, number> };

interface LatencyFigures {
  requests: number;
  concurrency: number;
  p50_ms: number;
  p90_ms: number;
  p99_ms: number;
  max_ms: number;
  throughput_rps: number;
  sdk_calls_per_request: number;
  sdk_calls_by_command: Record<string, number>;
  sdk_calls: Record<string, number>;
  background_sdk_calls?: number;
}

function report(figures: Figures): string {
  const json = JSON.stringify({ bench: figures });
  if (jsonOnly) return `${json}\n`;
  const lines: string[] = [];
  const { machine } = figures;
  lines.push(
    `Local stack benchmark — ${machine.cpus} CPUs (${machine.cpu_model}), Node ${machine.node}, ${machine.platform}`,
  );
  lines.push('Local emulators, not AWS: compare versions of our code on one machine, not clouds.');
  lines.push('');
  if (ranPhasesBeforeWebhooks(figures)) reportPhasesBeforeWebhooks(figures, lines);
  reportWebhooks(figures.webhooks, lines);
  lines.push(
    `Cold start (startLocalStack call to ready): ${figures.cold_start_ms} ms; first GET /me (handler cold): ${figures.first_get_me_ms} ms`,
  );
  const children = Object.entries(figures.rss_mb.child_processes_after)
    .map(([name, mb]) => `${name} ${mb} MB`)
    .join(', ');
  lines.push(
    `RSS of this process: ${figures.rss_mb.before} MB before, ${figures.rss_mb.after} MB after${children ? `; children after: ${children}` : ''}`,
  );
  lines.push('');
  return `${lines.join('\n')}\n${json}\n`;
}

function reportPhasesBeforeWebhooks(figures: PhasesBeforeWebhooksFigures, lines: string[]) {
  const header = ['operation', 'requests', 'conc.', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms', 'req/s', 'SDK calls/req'];
  const rows = (
    [
      ['GET /me', figures.get_me],
      ['POST /video-jobs [fault:stall]', figures.create_video_job],
      ['GET /video-jobs/{id}', figures.get_video_job],
      [`GET /jobs (${figures.list_jobs.jobs} jobs)`, figures.list_jobs.unfiltered],
      ['GET /jobs?status=failed (1 %)', figures.list_jobs.status_failed],
    ] as [string, LatencyFigures][]
  ).map(([name, f]) =>
    [
      name,
      f.requests,
      f.concurrency,
      f.p50_ms,
      f.p90_ms,
      f.p99_ms,
      f.max_ms,
      f.throughput_rps,
      f.sdk_calls_per_request,
    ].map(String),
  );
  lines.push(...table(header, rows));
  lines.push('');
  const breakdown = (title: string, calls: Record<string, number>) => lines.push(...breakdownLines(title, calls));
  const commands = (calls: Record<string, number>) =>
    Object.entries(calls)
      .map(([command, value]) => `${command.replace(/^\S+ /, '')} ×${value}`)
      .join(', ');
  lines.push(`By command: GET /me ${commands(figures.get_me.sdk_calls_by_command)}`);
  lines.push(`            POST /video-jobs ${commands(figures.create_video_job.sdk_calls_by_command)}`);
  lines.push(`            GET /video-jobs/{id} ${commands(figures.get_video_job.sdk_calls_by_command)}`);
  lines.push(
    `GET /jobs beyond authentication and rate limiting, per page: unfiltered ${commands(figures.list_jobs.unfiltered.list_sdk_calls_by_command)}; status=failed ${commands(figures.list_jobs.status_failed.list_sdk_calls_by_command)}`,
  );
  lines.push('');
  breakdown(
    `SDK calls per GET /me (${figures.get_me.sdk_calls_per_request}; all authentication and rate limiting):`,
    figures.get_me.sdk_calls,
  );
  const create = figures.create_video_job;
  breakdown(
    `SDK calls per POST /video-jobs (${create.sdk_calls_per_request} = ${create.authentication_and_rate_limit_calls_per_request} authentication/rate limiting as for GET /me + ${create.create_calls_per_request} the create itself):`,
    create.create_sdk_calls,
  );
  breakdown(
    `SDK calls per GET /video-jobs/{id} (${figures.get_video_job.sdk_calls_per_request}):`,
    figures.get_video_job.sdk_calls,
  );
  lines.push(
    `  (DynamoDB commands by item kind: APIKEY/APIKEY the key, ORG/ORG the organization, RATE#KEY/MINUTE and RATE#ORG/DAY the rate-limit windows, ORG/JOB a job)`,
  );
  lines.push('');
  const render = figures.render;
  lines.push(
    `Render of a ${render.video_seconds} s video, create to completed (poll every ${render.poll_interval_ms} ms): ${render.create_to_completed_s.map((s) => `${s} s`).join(', ')}; median ${render.median_s} s`,
  );
  breakdown(
    `  worker SDK calls per render (state machine tasks, median ${render.worker_sdk_calls_per_render}):`,
    render.worker_sdk_calls,
  );
  lines.push('');
  const confirm = figures.confirm_large_upload;
  lines.push(
    `A ${megabytes(confirm.size_bytes)} MiB upload: PUT to its upload URL ${confirm.upload_ms} ms (${confirm.upload_mib_per_s} MiB/s); confirm (${confirm.copy_parts} parts copied at once) ${confirm.confirm_ms} ms; download ${confirm.download_ms} ms, SHA-256 equal to the upload's: ${confirm.download_sha256_equals_upload ? 'yes' : 'no'}`,
  );
  lines.push(
    `  memory of the process running the stack and its S3 emulator: ${confirm.rss_mb_before} MiB before, ${confirm.rss_mb_peak} MiB at most meanwhile`,
  );
  breakdown(
    `  SDK calls (${confirm.sdk_calls_per_request} = ${round(confirm.sdk_calls_per_request - confirm.confirm_calls_per_request, 2)} authentication/rate limiting + ${confirm.confirm_calls_per_request} the confirmation):`,
    confirm.confirm_sdk_calls,
  );
  lines.push('');
  const split = figures.split_jobs;
  lines.push(
    `Split jobs, default options (9:16, at most 5 clips, auto lengths), one after another, create to completed polled every ${split.poll_interval_ms} ms (${split.ffmpeg}):`,
  );
  lines.push(
    ...table(
      [
        'source s',
        'MB',
        'wall s',
        'wall/source',
        'clips',
        'clip s',
        'to 45 % s',
        'after s',
        'analysis ffmpeg s',
        'clip renders s',
        'no ffmpeg s',
        'worker calls',
      ],
      split.runs.map((run) =>
        [
          run.source_seconds,
          run.source_mb,
          run.wall_s,
          run.wall_per_source_second,
          run.clips,
          run.clip_seconds,
          run.to_chosen_s,
          run.after_chosen_s,
          run.analysis_ffmpeg_s,
          run.clip_renders_s,
          run.no_media_tool_running_s,
          run.worker_sdk_calls_per_job,
        ].map(String),
      ),
    ),
  );
  lines.push(
    '  (to 45 %: until a poll sees the clips chosen, after the analysis; clip renders: first clip encode to last thumbnail; no ffmpeg: wall time with no ffmpeg or ffprobe running)',
  );
  for (const run of split.runs) {
    lines.push(`  ${run.source_seconds} s source, clip encodes in parallel: ${run.clip_encode_s.join(', ')} s`);
  }
  lines.push(
    `  Reference encode (30 s cropped to 720x1280, x264 veryfast; 5.4 s when the target was set): ${split.reference_encode_s} s`,
  );
  lines.push('');
}

function reportWebhooks(webhooks: WebhookFigures, lines: string[]) {
  const jobEnds = webhooks.job_end_to_receipt;
  const burst = webhooks.test_burst;
  const checks = (figures: { duplicates: number; signature_failures: number }) =>
    `duplicates ${figures.duplicates}, signature failures ${figures.signature_failures}`;
  lines.push('Webhooks, to a receiver in this process answering 204 (stream, relay, queue, delivery worker):');
  lines.push(
    `  Job end to receipt, ${jobEnds.jobs} video jobs failing at once (one created every ${jobEnds.interval_ms} ms): p50 ${jobEnds.p50_ms} ms, p90 ${jobEnds.p90_ms} ms, p99 ${jobEnds.p99_ms} ms (target ≤ ${jobEnds.target_p99_ms} ms: ${jobEnds.p99_within_target ? 'met' : 'NOT met'}), max ${jobEnds.max_ms} ms; ${checks(jobEnds)}`,
  );
  lines.push(
    `  Burst of ${burst.test_events} test events over ${burst.endpoints} endpoints (${burst.concurrency} requests at a time, ${burst.test_requests_per_second} req/s): ${burst.deliveries_per_second} deliveries/s, first request to last receipt ${burst.first_request_to_last_receipt_s} s`,
  );
  lines.push(
    `    created_at to receipt: p50 ${burst.p50_ms} ms, p90 ${burst.p90_ms} ms, p99 ${burst.p99_ms} ms, max ${burst.max_ms} ms; ${checks(burst)}`,
  );
  lines.push(
    ...breakdownLines(
      `  background SDK calls per delivery (relay and delivery worker, ${burst.background_sdk_calls_per_delivery}):`,
      burst.background_sdk_calls,
    ),
  );
  lines.push('');
}

/** A title, then one line per call label: `      2 × DynamoDB GetItem APIKEY/APIKEY`. */
function breakdownLines(title: string, calls: Record<string, number>): string[] {
  return [title, ...Object.entries(calls).map(([label, value]) => `  ${String(value).padStart(5)} × ${label}`)];
}

/** Rows under a header, the first column left-aligned and the others right-aligned. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const format = (row: string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [format(header), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(format)];
}

/** Written in full before exit: stdout to a pipe is asynchronous, and process.exit does not wait for it. */
function write(text: string): Promise<void> {
  return new Promise((resolve) => {
    process.stdout.once('error', () => resolve()); // e.g. EPIPE when piped into head
    process.stdout.write(text, () => resolve());
  });
}

main().then(
  async (figures) => {
    await write(report(figures));
    process.exit(0);
  },
  (error: unknown) => {
    console.error('bench failed:', error);
    process.exit(1);
  },
);
