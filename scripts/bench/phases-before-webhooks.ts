import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SFNClient } from '@aws-sdk/client-sfn';
import { putToUploadUrl } from '@video-automation/client';
import { beyond, byCommand, callsBetween, snapshot, sum } from './call-counter';
import { stopExecutionOfJob } from './executions';
import { call, expectStatus, inParallel, type Reply } from './http';
import type { PhasesBeforeWebhooksFigures } from './report';
import { seedCaller, seedJobs } from './seeding';
import { BENCH_SETTINGS } from './settings';
import { latency, median, megabytes, round } from './statistics';
import { headerThenZeros, sha256Of, tapped } from './uploads';

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

/**
 * The phases a full run makes before the split jobs and the webhooks, in their order: GET /me,
 * creates, renders, GET /video-jobs/{id}, GET /jobs and the large confirmation. Any `--phase`
 * skips them.
 */
export async function measurePhasesBeforeWebhooks({
  apiUrl,
  key,
  stopExecutions,
  progress,
}: {
  apiUrl: string;
  key: string;
  stopExecutions: SFNClient;
  progress: (message: string) => void;
}): Promise<PhasesBeforeWebhooksFigures> {
  const meUrl = `${apiUrl}/me`;
  const videoJobsUrl = `${apiUrl}/video-jobs`;

  // --- GET /me
  const me = BENCH_SETTINGS.getMe;
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
  const create = BENCH_SETTINGS.createVideoJob;
  const stops: Promise<unknown>[] = [];
  const createStalled = async (index: number) => {
    const reply = expectStatus(
      await call(videoJobsUrl, 'POST', key, { prompt: `Benchmark job ${index} [fault:stall]`, duration_seconds: 5 }),
      201,
      'POST /video-jobs',
    );
    const jobId = (JSON.parse(reply.body) as { id: string }).id;
    stops.push(stopExecutionOfJob(stopExecutions, 'video', jobId).catch(() => undefined));
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
  const render = BENCH_SETTINGS.render;
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
  const getJob = BENCH_SETTINGS.getVideoJob;
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
  const listing = BENCH_SETTINGS.listJobs;
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
  const large = BENCH_SETTINGS.confirmLargeUpload;
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
    { 'Content-Type': 'video/mp4' },
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

  return {
    get_me: getMe,
    create_video_job: createVideoJob,
    get_video_job: getVideoJob,
    list_jobs: listJobs,
    render: renderFigures,
    confirm_large_upload: confirmLargeUpload,
  };
}
