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
import { frameDifference } from '../support/frames';
import { greyFrames, largeMediaChunks, makeImage, makeMedia, probeMedia } from './support/media';
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

async function uploadImage(
  org: TestOrganization,
  options: { filename?: string; contentType?: string; bytes?: Buffer; confirm?: boolean } = {},
) {
  const { filename = 'still.png', contentType = 'image/png', confirm = true } = options;
  const bytes = options.bytes ?? makeMedia('png', { width: 320, height: 240 });
  const upload = await call<{ asset_id: string; upload_url: string }>('POST', '/assets/upload-url', {
    key: org.key,
    body: { filename, content_type: contentType, size_bytes: bytes.length, purpose: 'image_source' },
  });
  const put = await fetch(upload.body.upload_url, {
    method: 'PUT',
    headers: { 'Content-Type': contentType },
    body: bytes,
  });
  expect(put.status).toBe(200);
  if (confirm) {
    const confirmed = await call('POST', '/assets/confirm-upload', {
      key: org.key,
      body: { asset_id: upload.body.asset_id },
    });
    expect(confirmed.status).toBe(200);
  }
  return upload.body.asset_id;
}

/**
 * Where a 10 or 15 s job's renders join: its first render is Ray2's 9 s (render-plan.ts), and the
 * second continues from its last frame, frame 215, which the join leaves out of the second.
 */
const JOIN_FRAME = 9 * 24;

/**
 * A join no viewer sees: no black frame and no frozen one at it, and no jump, the change from the
 * first render's last frame to the next no larger than three times the usual change between
 * frames on either side of it.
 */
function expectSeamlessJoin(frames: Buffer[], join: number, about: object) {
  const steps = frames.slice(1).map((frame, index) => frameDifference(frame, frames[index]!));
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const usual = Math.max(median(steps.slice(join - 13, join - 1)), median(steps.slice(join, join + 12)));
  const atJoin = steps[join - 1]!;
  const brightness = (frame: Buffer) => frame.reduce((sum, value) => sum + value, 0) / frame.length;
  const blackFrames = frames.slice(join - 2, join + 2).filter((frame) => brightness(frame) < 16).length;
  expect({ ...about, blackFrames, frozen: atJoin < 0.01, jump: atJoin > 3 * usual }).toEqual({
    ...about,
    blackFrames: 0,
    frozen: false,
    jump: false,
  });
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

  it('delivers all 9 durations and aspect ratios exactly, each 10 and 15 s job one video across the join of its renders', async () => {
    // Polled every second for minutes: more requests than a Team key may make.
    const org = await createOrganization({
      plan: 'custom',
      credits: 1000,
      limits: { requests_per_minute_per_key: 1000, concurrent_video_jobs: 3 },
    });
    const frames = { '9:16': [720, 1280], '16:9': [1280, 720], '1:1': [720, 720] } as const;
    const requests = ([5, 10, 15] as const).flatMap((duration) =>
      (['9:16', '16:9', '1:1'] as const).map((aspectRatio) => ({ duration, aspectRatio })),
    );
    // Three at a time, one of each length: the renders are CPU-bound on a machine of 2 cores.
    const jobs: { request: (typeof requests)[number]; job: VideoJob }[] = [];
    for (const ratio of ['9:16', '16:9', '1:1'] as const) {
      const batch = requests.filter((request) => request.aspectRatio === ratio);
      const created = await Promise.all(
        batch.map((request) =>
          call<VideoJob>('POST', '/video-jobs', {
            key: org.key,
            body: { prompt: 'A kite over a beach', duration_seconds: request.duration, aspect_ratio: ratio },
          }),
        ),
      );
      expect(created.map((response) => response.status)).toEqual([201, 201, 201]);
      const done = await Promise.all(created.map((response) => waitForJob(org.key, response.body.id, 120_000)));
      batch.forEach((request, index) => jobs.push({ request, job: done[index]!.job }));
    }
    for (const { request, job } of jobs) {
      expect([job.status, request]).toEqual(['completed', request]);
      const { bytes } = await downloadResult(org, job.id);
      const video = probe(bytes);
      const [width, height] = frames[request.aspectRatio];
      expect({ ...request, width: video.width, height: video.height }).toEqual({ ...request, width, height });
      expect(Math.abs(video.duration - request.duration)).toBeLessThanOrEqual(0.05);
      const asset = await call<{ metadata: Record<string, unknown> }>('GET', `/assets/${job.result.asset_id}`, {
        key: org.key,
      });
      expect(asset.body.metadata).toMatchObject({ job_id: job.id, width, height });
      expect(Math.abs(Number(asset.body.metadata.duration_seconds) - request.duration)).toBeLessThanOrEqual(0.05);
      if (request.duration > 5) expectSeamlessJoin(greyFrames(bytes), JOIN_FRAME, request);
    }
  }, 400_000);

  it.each([
    ['a 1080x1920 portrait JPEG', 5, '9:16', 'portrait.jpg', 'image/jpeg', 'testsrc2=s=1080x1920', ['-q:v', '3']],
    ['a 64x64 PNG', 5, '16:9', 'tiny.png', 'image/png', 'testsrc2=s=64x64', []],
    ['a 6000x4000 JPEG', 5, '1:1', 'large.jpg', 'image/jpeg', 'testsrc2=s=6000x4000', ['-q:v', '4']],
    [
      'a WebP with alpha',
      10,
      '9:16',
      'cutout.webp',
      'image/webp',
      'testsrc2=s=800x600',
      // A still WebP (libwebp): ffmpeg before 7.1 decodes no animated one.
      ['-vf', "format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='if(lt(X,400),255,0)'", '-c:v', 'libwebp'],
    ],
  ] as const)(
    'animates %s into a %i s %s video at the image-to-video price',
    async (_, duration, aspectRatio, filename, contentType, source, encoderOptions) => {
      const org = await createOrganization({ credits: 100 });
      const bytes = makeImage(filename, source, encoderOptions);
      const assetId = await uploadImage(org, { filename, contentType, bytes });
      const created = await call<VideoJob>('POST', '/video-jobs', {
        key: org.key,
        body: {
          prompt: 'Slow zoom on the still',
          duration_seconds: duration,
          aspect_ratio: aspectRatio,
          source_asset_id: assetId,
        },
      });
      expect(created.status).toBe(201);
      expect(created.body.credits.charged).toBe(3 * duration);
      const { job } = await waitForJob(org.key, created.body.id, 90_000);
      expect(job).toMatchObject({ status: 'completed', error: null });
      const result = await downloadResult(org, job.id);
      const video = probe(result.bytes);
      const [width, height] = { '9:16': [720, 1280], '16:9': [1280, 720], '1:1': [720, 720] }[aspectRatio];
      expect(video).toMatchObject({ width, height });
      expect(Math.abs(video.duration - duration)).toBeLessThanOrEqual(0.05);
      if (duration > 5) expectSeamlessJoin(greyFrames(result.bytes), JOIN_FRAME, { duration, aspectRatio });
    },
    120_000,
  );

  it('fails an image too small for any model with SOURCE_IMAGE_UNSUPPORTED and refunds it in full', async () => {
    const org = await createOrganization({ credits: 100 });
    const assetId = await uploadImage(org, {
      filename: 'sliver.png',
      contentType: 'image/png',
      bytes: makeImage('sliver.png', 'testsrc2=s=40x400'),
    });
    const created = await call<VideoJob>('POST', '/video-jobs', {
      key: org.key,
      body: { prompt: 'A sliver', duration_seconds: 5, source_asset_id: assetId },
    });
    const { job } = await waitForJob(org.key, created.body.id);
    expect(job).toMatchObject({
      status: 'failed',
      error: { code: 'SOURCE_IMAGE_UNSUPPORTED', message: expect.stringContaining('64 to 8,000 pixels') },
      credits: { estimated: 15, charged: 15, refunded: 15 },
    });
    expect(await getOrganization(org.organizationId)).toMatchObject({ creditsBalance: 100, activeVideoJobs: 0 });
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

  it('counts an Idempotency-Key sent as UTF-8 in characters: 120 "€" pass (402, not 400), 121 are refused', async () => {
    // fetch sends each character of a header value as one byte: these are the key's UTF-8 bytes.
    const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    const send = (key: string) =>
      call<ErrorBody>('POST', '/video-jobs', {
        key: org.key,
        headers: { 'idempotency-key': utf8(key) },
        body: { prompt: 'p', duration_seconds: 5 },
      });
    const within = await send('€'.repeat(120));
    expect([within.status, within.body.error.code]).toEqual([402, 'INSUFFICIENT_CREDITS']);
    const over = await send('€'.repeat(121));
    expect([over.status, over.body.error.message]).toEqual([
      400,
      'Header Idempotency-Key must be at most 120 characters',
    ]);
  });

  it('checks the source asset: unknown, not yet uploaded, not an image', async () => {
    const rich = await createOrganization({ credits: 100 });
    const unknown = await call<ErrorBody>('POST', '/video-jobs', {
      key: rich.key,
      body: { prompt: 'p', duration_seconds: 5, source_asset_id: 'asset_0000000000000000000000zzzz' },
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'ASSET_NOT_FOUND']);

    const pendingId = await uploadImage(rich, { confirm: false });
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
