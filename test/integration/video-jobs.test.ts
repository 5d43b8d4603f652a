import type { UploadUrlResponse } from '#contract/types';
import {
  call,
  createOrganization,
  getOrganization,
  listEvents,
  putToUploadUrl,
  type ErrorBody,
  type TestOrganization,
} from './support/stack';
import { largeMediaChunks, makeMedia, probeMedia } from './support/media';
import { inStageOrder, waitForJob, type VideoJob } from './support/jobs';

interface VideoResult {
  job_id: string;
  status: string;
  asset: { asset_id: string; content_type: string; download_url: string; expires_at: string };
}

function probe(bytes: Buffer) {
  const { streams, format } = probeMedia(bytes);
  return { ...streams[0], duration: Number(format.duration) };
}

async function downloadResult(org: TestOrganization, jobId: string) {
  const result = await call<VideoResult>('GET', `/video-jobs/${jobId}/result`, { key: org.key });
  expect(result.status).toBe(200);
  const file = await fetch(result.body.asset.download_url);
  expect(file.status).toBe(200);
  return { result: result.body, bytes: Buffer.from(await file.arrayBuffer()) };
}

async function uploadImage(org: TestOrganization, purpose = 'image_source', confirm = true) {
  const png = makeMedia('png', { width: 320, height: 240 });
  const upload = await call<{ asset_id: string; upload_url: string }>('POST', '/assets/upload-url', {
    key: org.key,
    body: { filename: 'still.png', content_type: 'image/png', size_bytes: png.length, purpose },
  });
  await fetch(upload.body.upload_url, { method: 'PUT', headers: { 'Content-Type': 'image/png' }, body: png });
  if (confirm) await call('POST', '/assets/confirm-upload', { key: org.key, body: { asset_id: upload.body.asset_id } });
  return upload.body.asset_id;
}

describe('video jobs end to end', () => {
  it('renders a text-to-video job into a real MP4 of the asked duration and size, and charges it', async () => {
    const org = await createOrganization({ credits: 100 });
    const created = await call<VideoJob>('POST', '/video-jobs', {
      key: org.key,
      body: {
        prompt: 'A lighthouse at dusk, waves rolling in',
        duration_seconds: 5,
        style: 'cinematic',
        metadata: { external_id: 'order-17' },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      id: expect.stringMatching(/^video_job_/),
      type: 'video',
      status: 'queued',
      stage: 'queued',
      progress: 0,
      credits: { estimated: 10, charged: 10, refunded: 0 },
      input: {
        prompt: 'A lighthouse at dusk, waves rolling in',
        duration_seconds: 5,
        aspect_ratio: '9:16',
        model: 'auto',
        style: 'cinematic',
      },
      result: { available: false, asset_id: null, download_url_available: false },
      error: null,
      metadata: { external_id: 'order-17' },
    });
    expect((await getOrganization(org.organizationId))?.creditsBalance).toBe(90);

    const { job, progress, stages } = await waitForJob(org.key, created.body.id);
    expect(job.status).toBe('completed');
    expect(job.progress).toBe(100);
    expect([stages, inStageOrder('video', stages)]).toEqual([stages, true]);
    expect(stages.at(-1)).toBeNull();
    expect(job.result).toMatchObject({
      available: true,
      asset_id: expect.stringMatching(/^asset_/),
      download_url_available: true,
    });
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);
    expect(JSON.stringify(job)).not.toMatch(/https?:\/\//);

    const { result, bytes } = await downloadResult(org, job.id);
    expect(result).toMatchObject({
      job_id: job.id,
      status: 'completed',
      asset: { asset_id: job.result.asset_id, content_type: 'video/mp4' },
    });
    const video = probe(bytes);
    expect(video).toMatchObject({ codec_name: 'h264', width: 720, height: 1280 });
    expect(Math.abs(video.duration - 5)).toBeLessThanOrEqual(0.05);

    const organization = await getOrganization(org.organizationId);
    expect(organization).toMatchObject({ creditsBalance: 90, activeVideoJobs: 0 });
    const asset = await call<{ status: string; content_type: string }>('GET', `/assets/${job.result.asset_id}`, {
      key: org.key,
    });
    expect(asset.body).toMatchObject({ status: 'uploaded', content_type: 'video/mp4' });

    const events = await listEvents(org.organizationId);
    expect(events).toHaveLength(1);
    expect(events[0]?.payload).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: 'job.completed',
      created_at: expect.any(String),
      data: {
        job: {
          id: job.id,
          type: 'video',
          status: 'completed',
          result_url: `/api/v1/developer/video-jobs/${job.id}/result`,
          asset_id: job.result.asset_id,
        },
      },
    });
    expect(JSON.stringify(events)).not.toMatch(/https?:\/\/|renders\/|assets\//);
  });

  it('delivers every duration and every aspect ratio exactly as asked, through the finishing step', async () => {
    // Polled every second for over a minute: more requests than a Team key may make.
    const org = await createOrganization({
      plan: 'custom',
      credits: 1000,
      limits: { requests_per_minute_per_key: 1000 },
    });
    // Each duration and each frame once, end to end, without a render per pair: the finishing
    // step's unit tests (test/unit/video-finishing.test.ts) take each frame on its own.
    const requests = [
      { duration: 5, aspectRatio: '16:9', width: 1280, height: 720 },
      { duration: 10, aspectRatio: '1:1', width: 720, height: 720 },
      { duration: 15, aspectRatio: '9:16', width: 720, height: 1280 },
    ] as const;
    const jobs: { request: (typeof requests)[number]; job: VideoJob }[] = [];
    // One job at a time: the renders are CPU-bound, so running them side by side on 2 cores would
    // save little and could push an 18 s render towards the test stack's 40 s render deadline.
    for (const request of requests) {
      const created = await call<VideoJob>('POST', '/video-jobs', {
        key: org.key,
        body: { prompt: 'A kite over a beach', duration_seconds: request.duration, aspect_ratio: request.aspectRatio },
      });
      expect(created.status).toBe(201);
      jobs.push({ request, job: (await waitForJob(org.key, created.body.id, 90_000)).job });
    }
    for (const { request, job } of jobs) {
      expect([job.status, request]).toEqual(['completed', request]);
      const video = probe((await downloadResult(org, job.id)).bytes);
      expect({ ...request, width: video.width, height: video.height }).toEqual(request);
      expect(Math.abs(video.duration - request.duration)).toBeLessThanOrEqual(0.05);
      const asset = await call<{ metadata: Record<string, unknown> }>('GET', `/assets/${job.result.asset_id}`, {
        key: org.key,
      });
      expect(asset.body.metadata).toMatchObject({ job_id: job.id, width: request.width, height: request.height });
      expect(Math.abs(Number(asset.body.metadata.duration_seconds) - request.duration)).toBeLessThanOrEqual(0.05);
    }
  }, 150_000);

  it('animates an uploaded image into a square video at the image-to-video price', async () => {
    const org = await createOrganization({ credits: 100 });
    const assetId = await uploadImage(org);
    const created = await call<VideoJob>('POST', '/video-jobs', {
      key: org.key,
      body: { prompt: 'Slow zoom on the still', duration_seconds: 5, aspect_ratio: '1:1', source_asset_id: assetId },
    });
    expect(created.status).toBe(201);
    expect(created.body.credits.charged).toBe(15);
    const { job } = await waitForJob(org.key, created.body.id);
    expect(job.status).toBe('completed');
    const video = probe((await downloadResult(org, job.id)).bytes);
    expect(video).toMatchObject({ width: 720, height: 720 });
    expect(video.duration).toBeCloseTo(5, 0);
  });

  it.each([
    ['a failed render', '[fault:fail]', 'failed', 'RENDER_FAILED'],
    ['an unexpected worker error', '[fault:crash]', 'failed', 'INTERNAL_ERROR'],
    ['a render that misses its deadline', '[fault:stall]', 'expired', 'RENDER_DEADLINE_EXCEEDED'],
  ])('ends %s terminally, refunds the charge once and releases the slot', async (_, fault, status, code) => {
    const org = await createOrganization({ credits: 50 });
    const created = await call<VideoJob>('POST', '/video-jobs', {
      key: org.key,
      body: { prompt: `A test ${fault}`, duration_seconds: 10 },
    });
    expect(created.status).toBe(201);
    expect((await getOrganization(org.organizationId))?.activeVideoJobs).toBe(1);
    const { job } = await waitForJob(org.key, created.body.id, 60_000);
    expect(job.status).toBe(status);
    expect(job.error).toEqual({ code, message: expect.any(String) });
    expect(job.credits).toEqual({ estimated: 20, charged: 20, refunded: 20 });
    expect(job.result.available).toBe(false);
    expect(await getOrganization(org.organizationId)).toMatchObject({ creditsBalance: 50, activeVideoJobs: 0 });
    const events = await listEvents(org.organizationId);
    expect(events.map((event) => event.payload)).toEqual([
      expect.objectContaining({
        type: 'job.failed',
        data: { job: { id: job.id, type: 'video', status, error: job.error } },
      }),
    ]);
    const result = await call<ErrorBody>('GET', `/video-jobs/${job.id}/result`, { key: org.key });
    expect(result.status).toBe(409);
    expect(result.body.error.code).toBe('JOB_FAILED');
  });

  it('answers the result of a job still running with 409 JOB_NOT_READY', async () => {
    const org = await createOrganization();
    const created = await call<VideoJob>('POST', '/video-jobs', {
      key: org.key,
      body: { prompt: 'Never done [fault:stall]', duration_seconds: 5 },
    });
    const result = await call<ErrorBody>('GET', `/video-jobs/${created.body.id}/result`, { key: org.key });
    expect(result.status).toBe(409);
    expect(result.body.error.code).toBe('JOB_NOT_READY');
  });
});

describe('video job validation', () => {
  let org: TestOrganization;
  beforeAll(async () => {
    org = await createOrganization({ credits: 0 });
  });

  it.each([
    ['prompt is missing', { duration_seconds: 5 }, 'prompt'],
    ['prompt is longer than 1000 characters', { prompt: 'x'.repeat(1001), duration_seconds: 5 }, 'prompt'],
    ['duration is not 5, 10 or 15', { prompt: 'p', duration_seconds: 7 }, 'duration_seconds'],
    ['aspect ratio is unknown', { prompt: 'p', duration_seconds: 5, aspect_ratio: '4:3' }, 'aspect_ratio'],
    ['model is not auto', { prompt: 'p', duration_seconds: 5, model: 'veo-3' }, 'model'],
    ['style is unknown', { prompt: 'p', duration_seconds: 5, style: 'noir' }, 'style'],
    [
      'source asset id has the wrong prefix',
      { prompt: 'p', duration_seconds: 5, source_asset_id: 'img_1' },
      'source_asset_id',
    ],
    ['metadata exceeds 8 KB', { prompt: 'p', duration_seconds: 5, metadata: { notes: 'x'.repeat(8200) } }, 'metadata'],
  ])('rejects a request where %s, before charging anything', async (_, body, field) => {
    const response = await call<ErrorBody>('POST', '/video-jobs', { key: org.key, body });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.message).toContain(field);
  });

  it('accepts a prompt of exactly 1000 characters as far as credits (402, not 400)', async () => {
    const response = await call<ErrorBody>('POST', '/video-jobs', {
      key: org.key,
      body: { prompt: 'x'.repeat(1000), duration_seconds: 5 },
    });
    expect(response.status).toBe(402);
    expect(response.body.error.code).toBe('INSUFFICIENT_CREDITS');
  });

  it('rejects an Idempotency-Key longer than 120 characters', async () => {
    const response = await call<ErrorBody>('POST', '/video-jobs', {
      key: org.key,
      headers: { 'idempotency-key': 'k'.repeat(121) },
      body: { prompt: 'p', duration_seconds: 5 },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message.toLowerCase()).toContain('idempotency-key');
  });

  it('checks the source asset: unknown, not yet uploaded, not an image', async () => {
    const rich = await createOrganization({ credits: 100 });
    const unknown = await call<ErrorBody>('POST', '/video-jobs', {
      key: rich.key,
      body: { prompt: 'p', duration_seconds: 5, source_asset_id: 'asset_0000000000000000000000zzzz' },
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'ASSET_NOT_FOUND']);

    const pendingId = await uploadImage(rich, 'image_source', false);
    const pending = await call<ErrorBody>('POST', '/video-jobs', {
      key: rich.key,
      body: { prompt: 'p', duration_seconds: 5, source_asset_id: pendingId },
    });
    expect([pending.status, pending.body.error.code]).toEqual([409, 'ASSET_NOT_READY']);

    const video = makeMedia('mp4');
    const upload = await call<{ asset_id: string; upload_url: string }>('POST', '/assets/upload-url', {
      key: rich.key,
      body: { filename: 'v.mp4', content_type: 'video/mp4', size_bytes: video.length, purpose: 'video_source' },
    });
    await fetch(upload.body.upload_url, { method: 'PUT', headers: { 'Content-Type': 'video/mp4' }, body: video });
    await call('POST', '/assets/confirm-upload', { key: rich.key, body: { asset_id: upload.body.asset_id } });
    const notImage = await call<ErrorBody>('POST', '/video-jobs', {
      key: rich.key,
      body: { prompt: 'p', duration_seconds: 5, source_asset_id: upload.body.asset_id },
    });
    expect([notImage.status, notImage.body.error.code]).toEqual([409, 'ASSET_NOT_READY']);
    expect(notImage.body.error.message).toContain('source_asset_id');
    expect((await getOrganization(rich.organizationId))?.creditsBalance).toBe(100);
  });

  it('refuses a source image above the 25 MB the video model reads with 400 VALIDATION_FAILED', async () => {
    const rich = await createOrganization({ credits: 100 });
    const sizeBytes = 25_000_001;
    const upload = await call<UploadUrlResponse>('POST', '/assets/upload-url', {
      key: rich.key,
      body: { filename: 'huge.png', content_type: 'image/png', size_bytes: sizeBytes, purpose: 'image_source' },
    });
    const put = await putToUploadUrl(
      upload.body.upload_url,
      upload.body.upload_headers,
      sizeBytes,
      largeMediaChunks('png', sizeBytes),
    );
    expect(put.status).toBe(200);
    const confirmed = await call('POST', '/assets/confirm-upload', {
      key: rich.key,
      body: { asset_id: upload.body.asset_id },
    });
    expect(confirmed.status).toBe(200);

    const tooLarge = await call<ErrorBody>('POST', '/video-jobs', {
      key: rich.key,
      body: { prompt: 'p', duration_seconds: 5, source_asset_id: upload.body.asset_id },
    });
    expect([tooLarge.status, tooLarge.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    expect(tooLarge.body.error.message).toContain(`source_asset_id ${upload.body.asset_id}`);
    expect(tooLarge.body.error.message).toContain('25000000');
    expect((await getOrganization(rich.organizationId))?.creditsBalance).toBe(100);
  });

  it("hides another organization's job behind 404", async () => {
    const owner = await createOrganization({ credits: 100 });
    const stranger = await createOrganization();
    const created = await call<VideoJob>('POST', '/video-jobs', {
      key: owner.key,
      body: { prompt: 'mine [fault:stall]', duration_seconds: 5 },
    });
    for (const path of [
      `/video-jobs/${created.body.id}`,
      `/video-jobs/${created.body.id}/result`,
      '/video-jobs/split_job_1',
    ]) {
      const response = await call<ErrorBody>('GET', path, { key: stranger.key });
      expect([response.status, response.body.error.code]).toEqual([404, 'JOB_NOT_FOUND']);
    }
  });
});

describe('creation races', () => {
  it('makes one job of 50 parallel creates with the same Idempotency-Key', async () => {
    const org = await createOrganization({ credits: 1000 });
    const body = { prompt: 'One of a kind [fault:stall]', duration_seconds: 5 };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () =>
        call<VideoJob>('POST', '/video-jobs', { key: org.key, body, headers: { 'idempotency-key': 'order-42' } }),
      ),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(201));
    expect(new Set(responses.map((response) => response.body.id)).size).toBe(1);
    expect(await getOrganization(org.organizationId)).toMatchObject({ creditsBalance: 990, activeVideoJobs: 1 });

    const replay = await call<VideoJob>('POST', '/video-jobs', {
      key: org.key,
      body: { ...body, aspect_ratio: '9:16' },
      headers: { 'idempotency-key': 'order-42' },
    });
    expect([replay.status, replay.body.id]).toEqual([201, responses[0]?.body.id]);
    const conflict = await call<ErrorBody>('POST', '/video-jobs', {
      key: org.key,
      body: { ...body, duration_seconds: 10 },
      headers: { 'idempotency-key': 'order-42' },
    });
    expect([conflict.status, conflict.body.error.code]).toEqual([409, 'IDEMPOTENCY_CONFLICT']);
  });

  it('accepts exactly 3 of 20 parallel creates at the Team concurrency cap', async () => {
    const org = await createOrganization({ credits: 1000 });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        call<ErrorBody>('POST', '/video-jobs', {
          key: org.key,
          body: { prompt: `Slot ${index} [fault:stall]`, duration_seconds: 5 },
        }),
      ),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(3);
    const refused = responses.filter((response) => response.status !== 201);
    expect(refused.map((response) => [response.status, response.body.error.code])).toEqual(
      Array(17).fill([429, 'CONCURRENT_JOB_LIMIT_EXCEEDED']),
    );
    expect(refused.map((response) => response.headers.get('retry-after'))).toEqual(Array(17).fill('30'));
    expect(await getOrganization(org.organizationId)).toMatchObject({ creditsBalance: 970, activeVideoJobs: 3 });
  });

  it('never lets parallel creates take the balance below zero', async () => {
    const org = await createOrganization({ plan: 'custom', credits: 35, limits: { concurrent_video_jobs: 50 } });
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        call<ErrorBody>('POST', '/video-jobs', {
          key: org.key,
          body: { prompt: `Budget ${index} [fault:stall]`, duration_seconds: 5 },
        }),
      ),
    );
    expect(responses.filter((response) => response.status === 201)).toHaveLength(3);
    expect(
      responses.filter((response) => response.status === 402 && response.body.error.code === 'INSUFFICIENT_CREDITS'),
    ).toHaveLength(9);
    expect(await getOrganization(org.organizationId)).toMatchObject({ creditsBalance: 5, activeVideoJobs: 3 });
  });
});
