import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ACTIVE_STATUSES, type JobStatus, type JobType } from '#domain/jobs/job';
import { ROUTES, type HttpMethod, type Route } from '#routes';
import { cpuPercentages, cpuTicks } from './cpu';
import { call, expectStatus, type Reply } from './http';
import { childProcessesRss } from './memory';
import { keepServedRequests } from './call-counter';
import { seedCaller, seedJobs } from './seeding';
import { answerKind, documentedStatuses, minuteSchedule, type Caller } from './soak-mix';
import { BENCH_SETTINGS } from './settings';
import { makeShortSplitSource, uploadSplitSource } from './split-jobs';
import { latencyPercentiles, megabytes, round } from './statistics';
import { firstReceipts, startWebhookReceiver, type WebhookReceipt } from './webhooks';

const settings = BENCH_SETTINGS.soak;

type MixKind = keyof typeof settings.mix;

/** How the figures group requests: by what they do, and the limited organization's apart. */
export const SOAK_FAMILIES = [
  'me',
  'job_reads',
  'job_list',
  'usage',
  'creates',
  'webhook_tests',
  'uploads',
  'limited_organization',
] as const;
type Family = (typeof SOAK_FAMILIES)[number];

const USAGE_PATHS = ['/usage', '/usage/credits', '/usage/rate-limits', '/usage/jobs', '/usage/webhooks'];

function routeOf(method: HttpMethod, path: string): Route {
  const route = ROUTES.find((candidate) => candidate.method === method && candidate.path === path);
  if (!route) throw new Error(`No route ${method} ${path}`);
  return route;
}

/** One request to send, and what its success tells (a job to follow, an event to expect, the next cursor). */
interface Outgoing {
  route: Route;
  url: string;
  body?: unknown;
  succeeded?(reply: Reply): void;
}

interface Kind {
  family: Family;
  caller: Caller;
  next(): Outgoing;
}

interface CreatedJob {
  jobId: string;
  type: JobType;
  caller: Caller;
  organizationId: number;
  expected: JobStatus;
  final?: JobStatus;
}

/** One timed request: its minute of the schedule, family, caller and status, and the milliseconds from its scheduled send to the last byte of its answer. */
interface Sample {
  minute: number;
  family: Family;
  caller: Caller;
  status: number;
  ms: number;
}

/**
 * V8's full collection, which `--expose_gc` offers: the heap in use right after it is what is
 * alive. Without it, heapUsed also counts garbage V8 has not collected yet, which it leaves for
 * long with room to spare, so two samples differ by whenever the last full collection ran.
 */
function fullGarbageCollection(): () => void {
  setFlagsFromString('--expose_gc');
  return runInNewContext('gc') as () => void;
}

/**
 * Memory of the stack at one instant: this process (which runs the stack) and its children but
 * the media tools; and the requests sent and not yet answered then, whose backlog this process
 * holds too when the stack falls behind. The collection it runs first pauses the stack for a few
 * milliseconds: once as the second minute starts, and once after the last minute's sends.
 */
async function memorySample(collectGarbage: () => void, requestsInFlight: number) {
  collectGarbage();
  const { rss, heapUsed } = process.memoryUsage();
  const children = await childProcessesRss();
  delete children.ffmpeg;
  delete children.ffprobe;
  return {
    rss_mb: megabytes(rss),
    heap_live_mb: megabytes(heapUsed),
    children_rss_mb: children,
    requests_in_flight: requestsInFlight,
  };
}

type MemorySample = Awaited<ReturnType<typeof memorySample>>;

const growthPercent = (first: number, last: number) => round(((last - first) / first) * 100);

function memoryGrowth(first: MemorySample, last: MemorySample) {
  return {
    rss: growthPercent(first.rss_mb, last.rss_mb),
    heap_live: growthPercent(first.heap_live_mb, last.heap_live_mb),
    children_rss: Object.fromEntries(
      Object.entries(last.children_rss_mb)
        .filter(([name]) => first.children_rss_mb[name] !== undefined)
        .map(([name, mb]) => [name, growthPercent(first.children_rss_mb[name]!, mb)]),
    ),
  };
}

const percentiles = (samples: readonly Sample[]) => {
  const { p50_ms, p99_ms } = latencyPercentiles(samples.map((sample) => sample.ms));
  return { requests: samples.length, p50_ms, p99_ms };
};

/** Each minute's latency, of all its requests and of each family's. */
function perMinuteFigures(samples: readonly Sample[], minutes: number) {
  return Array.from({ length: minutes }, (_, minute) => {
    const ofMinute = samples.filter((sample) => sample.minute === minute);
    return {
      minute: minute + 1,
      ...percentiles(ofMinute),
      by_family: Object.fromEntries(
        SOAK_FAMILIES.map((family) => [family, percentiles(ofMinute.filter((sample) => sample.family === family))]),
      ) as Record<Family, ReturnType<typeof percentiles>>,
    };
  });
}

const countBy = <T>(items: readonly T[], key: (item: T) => string | number) => {
  const counts: Record<string, number> = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
};

const ended = (job: CreatedJob) => job.final !== undefined && !ACTIVE_STATUSES.includes(job.final);

/** Reads the jobs from the table every `jobPollMs` until each has ended, or `jobEndTimeoutMs` has passed; records their statuses. */
async function awaitJobEnds(jobs: readonly CreatedJob[]): Promise<void> {
  const { findJobs } = await import('#domain/jobs/job-store');
  const deadline = performance.now() + settings.jobEndTimeoutMs;
  for (;;) {
    for (const caller of ['main', 'limited'] as const) {
      const pending = jobs.filter((job) => job.caller === caller && !ended(job));
      for (let index = 0; index < pending.length; index += 100) {
        const batch = pending.slice(index, index + 100);
        const found = await findJobs(
          batch[0]!.organizationId,
          batch.map((job) => job.jobId),
        );
        for (const job of found) batch.find((candidate) => candidate.jobId === job.jobId)!.final = job.status;
      }
    }
    if (jobs.every(ended) || performance.now() > deadline) return;
    await sleep(settings.jobPollMs);
  }
}

/** A job that has not ended, or ended otherwise than its request asked, fails the soak. */
function jobFailures(jobs: readonly CreatedJob[]): string[] {
  const failures: string[] = [];
  const notEnded = jobs.filter((job) => !ended(job));
  if (notEnded.length > 0) {
    failures.push(
      `${notEnded.length} of ${jobs.length} jobs not ended ${settings.jobEndTimeoutMs / 1000} s after the traffic: ${notEnded
        .slice(0, 10)
        .map((job) => `${job.jobId} ${job.final ?? 'not found'}`)
        .join(', ')}`,
    );
  }
  const unexpected = jobs.filter((job) => ended(job) && job.final !== job.expected);
  if (unexpected.length > 0) {
    failures.push(
      `${unexpected.length} jobs ended otherwise than asked: ${unexpected
        .slice(0, 10)
        .map((job) => `${job.jobId} ${job.final} (expected ${job.expected})`)
        .join(', ')}`,
    );
  }
  return failures;
}

/**
 * Waits up to `deliveryTimeoutMs` for every event the receiver is owed: each test event by its id,
 * and one event for each ended job of the main organization (by the job its receipt carries).
 * Then counts what came: a missing event, a second event of one job or a bad signature fails;
 * a duplicate receipt of one event is allowed (delivery is at-least-once) and counted.
 */
async function awaitDeliveries(
  receipts: readonly WebhookReceipt[],
  testEventIds: ReadonlySet<string>,
  jobIds: ReadonlySet<string>,
) {
  const eventsByJob = () => {
    const events = new Map<string, Set<string>>();
    for (const receipt of receipts) {
      if (receipt.jobId && jobIds.has(receipt.jobId)) {
        events.set(receipt.jobId, (events.get(receipt.jobId) ?? new Set()).add(receipt.eventId));
      }
    }
    return events;
  };
  const receivedTestEvents = () =>
    new Set(receipts.filter((receipt) => testEventIds.has(receipt.eventId)).map((receipt) => receipt.eventId)).size;
  const deadline = performance.now() + settings.deliveryTimeoutMs;
  while (receivedTestEvents() < testEventIds.size || eventsByJob().size < jobIds.size) {
    if (performance.now() > deadline) break;
    await sleep(100);
  }
  await sleep(1000); // a duplicate sent right after the first delivery is counted too
  const jobEvents = eventsByJob();
  const owed = new Set([...testEventIds, ...[...jobEvents.values()].flatMap((ids) => [...ids])]);
  const owedReceipts = receipts.filter((receipt) => owed.has(receipt.eventId));
  const firsts = firstReceipts(owedReceipts);
  const missingTestEvents = testEventIds.size - receivedTestEvents();
  const missingJobEvents = jobIds.size - jobEvents.size;
  const extraJobEvents = [...jobEvents.values()].reduce((extra, ids) => extra + ids.size - 1, 0);
  const signatureFailures = owedReceipts.filter((receipt) => !receipt.signatureVerified).length;
  const failures: string[] = [];
  if (missingTestEvents + missingJobEvents > 0) {
    failures.push(
      `webhook events not received ${settings.deliveryTimeoutMs / 1000} s after the jobs ended: ${missingTestEvents} of ${testEventIds.size} test events, ${missingJobEvents} of ${jobIds.size} job ends`,
    );
  }
  if (extraJobEvents > 0) failures.push(`${extraJobEvents} job ends sent more than one event`);
  if (signatureFailures > 0) failures.push(`${signatureFailures} deliveries failed signature verification`);
  const latency = latencyPercentiles(firsts.map((receipt) => receipt.receivedAtMs - receipt.createdAtMs));
  return {
    failures,
    figures: {
      events: testEventIds.size + jobIds.size,
      test_events: testEventIds.size,
      job_events: jobIds.size,
      received: firsts.length,
      duplicates: owedReceipts.length - firsts.length,
      missing: missingTestEvents + missingJobEvents,
      extra_job_events: extraJobEvents,
      signature_failures: signatureFailures,
      delivery_p50_ms: latency.p50_ms,
      delivery_p99_ms: latency.p99_ms,
    },
  };
}

/**
 * The soak phase: `minutes` of the mix at a fixed offered rate, open loop (each request sent at
 * its scheduled instant whatever the earlier ones take), from a Custom organization whose limits
 * the mix stays under and, for a small share, one whose per-minute and credit limits it reaches.
 * Then every job created must end and every webhook event reach the receiver in this process.
 * Returns the figures and the checks that failed (none when it passed).
 */
export async function measureSoak({
  apiUrl,
  dataDir,
  minutes,
  progress,
}: {
  apiUrl: string;
  dataDir: string;
  minutes: number;
  progress: (message: string) => void;
}) {
  const documented = documentedStatuses();
  const failures: string[] = [];
  const undocumented = new Map<string, { count: number; example: string }>();

  // --- Set-up: the two organizations, the main one's job history and webhook endpoint, the split source.
  const main = await seedCaller(settings.main.credits, settings.main.limits);
  const limited = await seedCaller(settings.limited.credits, settings.limited.limits);
  progress(`soak: seeding ${settings.seededJobs} jobs for GET /jobs to page through`);
  await seedJobs(main.organizationId, {
    jobs: settings.seededJobs,
    failedEvery: settings.seededFailedEvery,
    seedConcurrency: settings.seedConcurrency,
  });
  const secretsByPath = new Map<string, string>();
  const receiver = await startWebhookReceiver(secretsByPath);
  try {
    const endpointPath = '/hooks/soak';
    const endpoint = JSON.parse(
      expectStatus(
        await call(`${apiUrl}/webhooks`, 'POST', main.key, {
          url: `${receiver.url}${endpointPath}`,
          events: ['job.completed', 'job.failed'],
        }),
        201,
        'POST /webhooks (soak)',
      ).body,
    ) as { id: string; secret: string };
    secretsByPath.set(endpointPath, endpoint.secret);
    progress(`soak: a ${settings.splitSourceSeconds} s split source, uploaded and confirmed`);
    const splitSourceAssetId = await uploadSplitSource(
      apiUrl,
      main.key,
      await makeShortSplitSource(join(dataDir, 'soak-source', 'source.mp4'), {
        seconds: settings.splitSourceSeconds,
        width: 640,
        height: 360,
      }),
    );

    // --- The kinds of the mix.
    const jobs: CreatedJob[] = [];
    const videoJobIds: string[] = [];
    const splitJobIds: string[] = [];
    const testEventIds = new Set<string>();
    let cursor: string | null = null;
    const counter = () => {
      let count = 0;
      return () => (count += 1);
    };
    const nextVideoJob = counter();
    const nextSplitJob = counter();
    const nextUsage = counter();
    const nextUpload = counter();
    const nextVideoCreate = counter();
    const nextLimitedCreate = counter();
    const created = (type: JobType, caller: Caller, expected: JobStatus) => (reply: Reply) => {
      const jobId = (JSON.parse(reply.body) as { id: string }).id;
      const organizationId = caller === 'main' ? main.organizationId : limited.organizationId;
      jobs.push({ jobId, type, caller, organizationId, expected });
      if (caller === 'main') (type === 'video' ? videoJobIds : splitJobIds).push(jobId);
    };
    const get = (path: string, url = path): Outgoing => ({ route: routeOf('GET', path), url: `${apiUrl}${url}` });
    const post = (path: string, body?: unknown, succeeded?: (reply: Reply) => void): Outgoing => ({
      route: routeOf('POST', path),
      url: `${apiUrl}${path}`,
      body,
      succeeded,
    });
    const createVideoJob = (caller: Caller, prompt: string, expected: JobStatus) =>
      post('/video-jobs', { prompt, duration_seconds: 5 }, created('video', caller, expected));
    const kinds: Record<MixKind, Kind> = {
      getMe: { family: 'me', caller: 'main', next: () => get('/me') },
      getVideoJob: {
        family: 'job_reads',
        caller: 'main',
        next: () => get('/video-jobs/{id}', `/video-jobs/${videoJobIds[nextVideoJob() % videoJobIds.length]}`),
      },
      getSplitJob: {
        family: 'job_reads',
        caller: 'main',
        next: () => get('/split-jobs/{id}', `/split-jobs/${splitJobIds[nextSplitJob() % splitJobIds.length]}`),
      },
      listJobsPage: {
        family: 'job_list',
        caller: 'main',
        next: () => ({
          ...get(
            '/jobs',
            `/jobs?limit=${settings.listPageSize}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          ),
          succeeded: (reply) => {
            cursor = (JSON.parse(reply.body) as { pagination: { next_cursor: string | null } }).pagination.next_cursor;
          },
        }),
      },
      usage: { family: 'usage', caller: 'main', next: () => get(USAGE_PATHS[nextUsage() % USAGE_PATHS.length]!) },
      testWebhook: {
        family: 'webhook_tests',
        caller: 'main',
        next: () => ({
          route: routeOf('POST', '/webhooks/{id}/test'),
          url: `${apiUrl}/webhooks/${endpoint.id}/test`,
          succeeded: (reply) =>
            testEventIds.add((JSON.parse(reply.body) as { delivery: { event_id: string } }).delivery.event_id),
        }),
      },
      createUploadUrl: {
        family: 'uploads',
        caller: 'main',
        next: () =>
          post('/assets/upload-url', {
            filename: `soak-${nextUpload()}.mp4`,
            content_type: 'video/mp4',
            size_bytes: settings.uploadSizeBytes,
            purpose: 'general',
          }),
      },
      createVideoJob: {
        family: 'creates',
        caller: 'main',
        next: () => {
          const index = nextVideoCreate();
          return index % settings.failingVideoJobEvery === 0
            ? createVideoJob('main', `Soak render ${index} [fault:fail]`, 'failed')
            : createVideoJob('main', `Soak render ${index}`, 'completed');
        },
      },
      createSplitJob: {
        family: 'creates',
        caller: 'main',
        next: () => post('/split-jobs', { source_asset_id: splitSourceAssetId }, created('split', 'main', 'completed')),
      },
      limitedGetMe: { family: 'limited_organization', caller: 'limited', next: () => get('/me') },
      limitedGetUsageCredits: { family: 'limited_organization', caller: 'limited', next: () => get('/usage/credits') },
      limitedCreateVideoJob: {
        family: 'limited_organization',
        caller: 'limited',
        next: () =>
          createVideoJob('limited', `Soak render of the limited organization ${nextLimitedCreate()}`, 'completed'),
      },
    };

    const samples: Sample[] = [];
    const sendLagsMs: number[] = [];
    let lastAnswerAt = 0;
    let inFlightCount = 0;
    /** Sends one request of the kind and checks its answer; `scheduledAt` and `minute` only for timed requests. */
    const send = async (kindName: MixKind, timing?: { scheduledAt: number; minute: number }) => {
      const kind = kinds[kindName];
      const outgoing = kind.next();
      const key = kind.caller === 'main' ? main.key : limited.key;
      if (timing) sendLagsMs.push(performance.now() - timing.scheduledAt);
      let reply: Reply;
      inFlightCount += 1;
      try {
        reply = await call(outgoing.url, outgoing.route.method, key, outgoing.body);
      } catch (error) {
        reply = { status: 0, body: String(error), ms: NaN };
      }
      inFlightCount -= 1;
      const answeredAt = performance.now();
      lastAnswerAt = Math.max(lastAnswerAt, answeredAt);
      const verdict = answerKind(reply.status, documented.get(outgoing.route.operationId) ?? new Set(), kind.caller);
      if (verdict === 'success') outgoing.succeeded?.(reply);
      if (verdict === 'undocumented') {
        const label = `${kind.caller} organization: ${outgoing.route.method} ${outgoing.route.path} answered ${reply.status}`;
        const seen = undocumented.get(label) ?? { count: 0, example: reply.body.slice(0, 300) };
        seen.count += 1;
        undocumented.set(label, seen);
      }
      if (timing) {
        samples.push({
          minute: timing.minute,
          family: kind.family,
          caller: kind.caller,
          status: reply.status,
          ms: answeredAt - timing.scheduledAt,
        });
      }
    };

    // --- Warm-up, not timed: a job of each type first (the reads need one), then one request of
    // every other kind, so that no handler module loads inside the first minute.
    progress('soak: warm-up, one request of each kind (not timed)');
    await send('createVideoJob');
    await send('createSplitJob');
    for (const kindName of Object.keys(kinds) as MixKind[]) {
      if (kinds[kindName].family !== 'creates') await send(kindName);
    }
    for (let route = 1; route < USAGE_PATHS.length; route += 1) await send('usage');
    // The warm-up's jobs end before the first minute, which the last is compared with: it should
    // time the traffic, not the set-up.
    progress(`soak: waiting for the warm-up's ${jobs.length} jobs to end`);
    await awaitJobEnds(jobs);

    // --- The traffic.
    keepServedRequests(false);
    const schedule = minuteSchedule(settings.mix);
    const intervalMs = 60_000 / schedule.length;
    const offeredPerSecond = schedule.length / 60;
    progress(
      `soak: ${minutes} min at ${round(offeredPerSecond)} requests/s offered (${schedule.length} a minute), open loop`,
    );
    const cpuBefore = await cpuTicks();
    const startedAt = performance.now();
    const collectGarbage = fullGarbageCollection();
    let firstMinuteMemory: Promise<MemorySample> | undefined;
    // Only the sends not settled yet, and any that failed (kept for Promise.all to report): holding
    // every one until the end would grow the memory measured.
    const inFlight = new Set<Promise<void>>();
    for (let slot = 0; slot < schedule.length * minutes; slot += 1) {
      const scheduledAt = startedAt + slot * intervalMs;
      const minute = Math.floor(slot / schedule.length);
      const wait = scheduledAt - performance.now();
      if (wait > 0) await sleep(wait);
      if (minute === 1 && !firstMinuteMemory) firstMinuteMemory = memorySample(collectGarbage, inFlightCount);
      const sent = send(schedule[slot % schedule.length]!, { scheduledAt, minute });
      inFlight.add(sent);
      sent.then(
        () => inFlight.delete(sent),
        () => {},
      );
      if (slot % schedule.length === schedule.length - 1) progress(`soak: minute ${minute + 1} of ${minutes} sent`);
    }
    await sleep(Math.max(0, startedAt + minutes * 60_000 - performance.now()));
    const cpu = cpuPercentages(cpuBefore, await cpuTicks());
    const lastMemory = await memorySample(collectGarbage, inFlightCount);
    const firstMemory = (await firstMinuteMemory) ?? lastMemory;
    await Promise.all([...inFlight]);
    const trafficEndedAt = performance.now();

    progress(`soak: waiting up to ${settings.jobEndTimeoutMs / 1000} s for ${jobs.length} jobs to end`);
    await awaitJobEnds(jobs);
    const jobsEndedAt = performance.now();
    failures.push(...jobFailures(jobs));
    const mainJobIds = new Set(jobs.filter((job) => job.caller === 'main' && ended(job)).map((job) => job.jobId));
    progress(`soak: waiting up to ${settings.deliveryTimeoutMs / 1000} s for the webhook deliveries`);
    const webhooks = await awaitDeliveries(receiver.receipts, testEventIds, mainJobIds);
    failures.push(...webhooks.failures);
    for (const [label, { count, example }] of undocumented) {
      failures.push(`${label} ${count} times, not a documented answer (e.g. ${example})`);
    }

    // --- Figures.
    const perMinute = perMinuteFigures(samples, minutes);
    const jobsOfType = (type: JobType) => jobs.filter((job) => job.type === type);
    const jobFigures = (type: JobType) => ({
      created: jobsOfType(type).length,
      ended: jobsOfType(type).filter(ended).length,
      final_statuses: countBy(jobsOfType(type), (job) => job.final ?? 'not found'),
    });
    const lagPercentiles = latencyPercentiles(sendLagsMs);
    return {
      minutes,
      mix_per_minute: settings.mix,
      offered_rps: round(offeredPerSecond, 2),
      achieved_rps: round(samples.length / ((lastAnswerAt - startedAt) / 1000), 2),
      requests: samples.length,
      send_lag_p99_ms: lagPercentiles.p99_ms,
      per_minute: perMinute,
      p99_last_over_first: round(perMinute[minutes - 1]!.p99_ms / perMinute[0]!.p99_ms, 2),
      target_p99_ratio: settings.targetP99Ratio,
      statuses: {
        main: countBy(
          samples.filter((sample) => sample.caller === 'main'),
          (sample) => sample.status,
        ),
        limited: countBy(
          samples.filter((sample) => sample.caller === 'limited'),
          (sample) => sample.status,
        ),
      },
      jobs: {
        video: jobFigures('video'),
        split: jobFigures('split'),
        traffic_end_to_last_end_s: round((jobsEndedAt - trafficEndedAt) / 1000, 1),
      },
      webhooks: webhooks.figures,
      memory: {
        first_minute: firstMemory,
        end: lastMemory,
        growth_percent: memoryGrowth(firstMemory, lastMemory),
        target_growth_percent: settings.targetMemoryGrowthPercent,
      },
      cpu,
      failures,
    };
  } finally {
    keepServedRequests(true);
    await receiver.stop();
  }
}

export type SoakFigures = Awaited<ReturnType<typeof measureSoak>>;
