import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { operationResponses } from './support/api-document';
import { inStageOrder, waitForJob, waitForSplitJob } from './support/jobs';
import {
  makeMedia,
  makePodcastSource,
  makeSplitSource,
  probeMedia,
  SHORT_SPLIT_SOURCE,
  type SplitSourcePlan,
} from './support/media';
import {
  call,
  createOrganization,
  getOrganization,
  listEvents,
  type ApiResponse,
  type ErrorBody,
  type TestOrganization,
} from './support/stack';

interface Clip {
  id: string;
  status: string;
  title: string | null;
  start_time_seconds: number;
  end_time_seconds: number;
  duration_seconds: number;
  score: number | null;
  score_breakdown: Record<string, { value: number; weight: number }> | null;
  reasons: string[];
  download_url: string | null;
  thumbnail_url: string | null;
  captions_url: string | null;
  framing: 'subject' | 'fit' | null;
  captions_burned_in: boolean | null;
  expires_at: string | null;
}

interface SplitJob {
  id: string;
  status: string;
  stage: string | null;
  progress: number;
  credits: { estimated: number; charged: number; refunded: number };
  input: Record<string, unknown>;
  result: { available: boolean; asset_id: string | null; clips_count: number | null; clips_available: boolean };
  error: { code: string; message: string } | null;
}

/** Scene cuts at 12, 27, 41, 55 and 66 s; silences at 20–21 s and 47.5–48.5 s. */
const SOURCE: SplitSourcePlan = {
  durationSeconds: 75,
  width: 320,
  height: 180,
  scenes: [
    { colour: 'red', startSeconds: 0 },
    { colour: 'green', startSeconds: 12 },
    { colour: 'blue', startSeconds: 27 },
    { colour: 'yellow', startSeconds: 41 },
    { colour: 'magenta', startSeconds: 55 },
    { colour: 'cyan', startSeconds: 66 },
  ],
  silences: [
    { startSeconds: 20, endSeconds: 21 },
    { startSeconds: 47.5, endSeconds: 48.5 },
  ],
};
const BOUNDARIES = [0, 12, 20, 21, 27, 41, 47.5, 48.5, 55, 66, 75];

const sourceBytes = makeSplitSource(SOURCE);
const shortSourceBytes = makeSplitSource(SHORT_SPLIT_SOURCE);

async function uploadAsset(
  org: TestOrganization,
  bytes: Buffer,
  options: { purpose?: string; confirm?: boolean; filename?: string } = {},
): Promise<string> {
  const upload = await call<{ asset_id: string; upload_url: string }>('POST', '/assets/upload-url', {
    key: org.key,
    body: {
      filename: options.filename ?? 'talk.mp4',
      content_type: 'video/mp4',
      size_bytes: bytes.length,
      purpose: options.purpose ?? 'split_source',
    },
  });
  expect(upload.status).toBe(201);
  const put = await fetch(upload.body.upload_url, {
    method: 'PUT',
    headers: { 'Content-Type': 'video/mp4' },
    body: bytes,
  });
  expect(put.status).toBe(200);
  if (options.confirm !== false) {
    const confirmed = await call('POST', '/assets/confirm-upload', {
      key: org.key,
      body: { asset_id: upload.body.asset_id },
    });
    expect(confirmed.status).toBe(200);
  }
  return upload.body.asset_id;
}

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

function expectShape(operationId: string, status: number, body: unknown) {
  const validate = operationResponses(operationId).get(status)?.validateBody;
  if (!validate) throw new Error(`${operationId} documents no ${status} body`);
  expect(validate(body) ? [] : validate.errors).toEqual([]);
}

const near = (value: number, targets: readonly number[], tolerance: number) =>
  targets.some((target) => Math.abs(target - value) <= tolerance);

describe('a split job from start to clips', () => {
  let org: TestOrganization;
  let sourceId: string;
  let job: SplitJob;
  let progress: number[];
  let stages: (string | null)[];
  let created: ApiResponse<SplitJob>;
  let resultWhileRunning: ApiResponse<ErrorBody>;

  beforeAll(async () => {
    org = await createOrganization({ credits: 100 });
    sourceId = await uploadAsset(org, sourceBytes);
    created = await call<SplitJob>('POST', '/split-jobs', {
      key: org.key,
      body: { source_asset_id: sourceId, clip_length_preset: 'under_30', metadata: { external_id: 'talk-1' } },
    });
    resultWhileRunning = await call<ErrorBody>('GET', `/split-jobs/${created.body.id}/result`, { key: org.key });
    ({ job, progress, stages } = await waitForSplitJob(org.key, created.body.id, 120_000));
  }, 180_000);

  it('answers the create with the queued job, and the result with 409 JOB_NOT_READY until it completes', () => {
    expect(created.status).toBe(201);
    expectShape('createSplitJob', 201, created.body);
    expect(created.body).toMatchObject({
      status: 'queued',
      stage: 'queued',
      progress: 0,
      metadata: { external_id: 'talk-1' },
    });
    expect(resultWhileRunning.status).toBe(409);
    expect(resultWhileRunning.body.error.code).toBe('JOB_NOT_READY');
  });

  it('charges 5 credits per started minute of source at creation, with every default in its input', async () => {
    expect(job.credits.charged).toBe(10);
    expect(job.input).toEqual({
      source_asset_id: sourceId,
      target_platforms: [],
      clip_length_preset: 'under_30',
      aspect_ratio: '9:16',
      caption_style: 'clean',
      burn_captions: true,
      framing: 'auto',
      clip_style: 'balanced',
      max_clips: 5,
    });
    expect((await getOrganization(org.organizationId))?.activeSplitJobs).toBe(0);
  });

  it('completes with progress that only grows, and the clips count in the job and the job list', async () => {
    expect(job.status).toBe('completed');
    expect(job.progress).toBe(100);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect([stages, inStageOrder('split', stages)]).toEqual([stages, true]);
    expect(stages.at(-1)).toBeNull();
    expect(job.result.available).toBe(true);
    expect(job.result.clips_available).toBe(true);
    expect(job.result.asset_id).toBeNull();
    expect(job.result.clips_count).toBeGreaterThan(0);
    const listed = await call<{ data: { id: string; result: Record<string, unknown> }[] }>('GET', '/jobs?type=split', {
      key: org.key,
    });
    expect(listed.body.data.find((entry) => entry.id === job.id)?.result).toEqual({
      available: true,
      asset_id: null,
      clips_count: job.result.clips_count,
      result_url: `/api/v1/developer/split-jobs/${job.id}/result`,
      clips_url: `/api/v1/developer/split-jobs/${job.id}/clips`,
    });
  });

  it('cuts clips on the source scene cuts and silences, within the preset, not overlapping, best first', async () => {
    const response = await call<{ job_id: string; clips: Clip[] }>('GET', `/split-jobs/${job.id}/clips`, {
      key: org.key,
    });
    expect(response.status).toBe(200);
    expectShape('getSplitJobClips', 200, response.body);
    const { clips } = response.body;
    expect(clips.length).toBeGreaterThan(0);
    expect(clips.length).toBeLessThanOrEqual(5);
    for (const clip of clips) {
      expect(near(clip.start_time_seconds, BOUNDARIES, 0.5)).toBe(true);
      expect(near(clip.end_time_seconds, BOUNDARIES, 0.5)).toBe(true);
      expect(clip.duration_seconds).toBeCloseTo(clip.end_time_seconds - clip.start_time_seconds, 2);
      expect(clip.duration_seconds).toBeLessThanOrEqual(30);
      expect(clip.score).toBeGreaterThanOrEqual(0);
      expect(clip.score).toBeLessThanOrEqual(1);
    }
    const byStart = [...clips].sort((a, b) => a.start_time_seconds - b.start_time_seconds);
    byStart.slice(1).forEach((clip, index) => {
      expect(clip.start_time_seconds).toBeGreaterThanOrEqual(byStart[index]!.end_time_seconds);
    });
    const scores = clips.map((clip) => clip.score!);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('explains each score by signals and weights that recompute it, with reasons', async () => {
    const { body } = await call<{ clips: Clip[] }>('GET', `/split-jobs/${job.id}/clips`, { key: org.key });
    for (const clip of body.clips) {
      const contributions = Object.values(clip.score_breakdown!);
      expect(Object.keys(clip.score_breakdown!).sort()).toEqual(
        ['energy', 'hook', 'language', 'length_fit', 'motion', 'rhythm', 'speech'].sort(),
      );
      expect(contributions.reduce((sum, { weight }) => sum + weight, 0)).toBeCloseTo(1, 3);
      const recomputed = contributions.reduce((sum, { value, weight }) => sum + value * weight, 0);
      expect(Math.abs(recomputed - clip.score!)).toBeLessThanOrEqual(0.002);
      expect(clip.reasons.length).toBeGreaterThanOrEqual(1);
      expect(clip.reasons.length).toBeLessThanOrEqual(3);
    }
  });

  it('lists the same clips by start time with order=time, and by rank by default and with order=rank', async () => {
    const ids = (clips: Clip[]) => clips.map((clip) => clip.id);
    const list = async (query: string) =>
      (await call<{ clips: Clip[] }>('GET', `/split-jobs/${job.id}/clips${query}`, { key: org.key })).body.clips;
    const [byDefault, byRank, byTime] = await Promise.all([list(''), list('?order=rank'), list('?order=time')]);
    expect(ids(byRank)).toEqual(ids(byDefault));
    const starts = byTime.map((clip) => clip.start_time_seconds);
    expect(starts).toEqual([...starts].sort((a, b) => a - b));
    expect([...ids(byTime)].sort()).toEqual([...ids(byDefault)].sort());
    const refused = await call<ErrorBody>('GET', `/split-jobs/${job.id}/clips?order=score`, { key: org.key });
    expect([refused.status, refused.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('renders each clip as a playable 720x1280 H.264/AAC MP4 of its duration, with a JPEG thumbnail, and no captions or title where no word is heard', async () => {
    const { body } = await call<{ clips: Clip[] }>('GET', `/split-jobs/${job.id}/clips`, { key: org.key });
    for (const clip of body.clips) {
      expect(clip.status).toBe('completed');
      expect(clip.title).toBeNull();
      expect(clip.captions_url).toBeNull();
      expect(clip.captions_burned_in).toBe(false);
      // Plain colour fills every window alike: no subject to follow.
      expect(clip.framing).toBe('fit');
      expect(Date.parse(clip.expires_at!)).toBeGreaterThan(Date.now());
      const video = probeMedia(await download(clip.download_url!));
      const streams = Object.fromEntries(video.streams.map((stream) => [stream.codec_type, stream]));
      expect(streams.video).toMatchObject({ codec_name: 'h264', width: 720, height: 1280 });
      expect(streams.audio).toMatchObject({ codec_name: 'aac' });
      expect(Number(video.format.duration)).toBeCloseTo(clip.duration_seconds, 0);
      expect(Math.abs(Number(video.format.duration) - clip.duration_seconds)).toBeLessThanOrEqual(0.15);
      const thumbnail = probeMedia(await download(clip.thumbnail_url!));
      expect(thumbnail.streams[0]).toMatchObject({ codec_name: 'mjpeg', width: 720, height: 1280 });
    }
  });

  it('answers the result with the completed clips, and a job.completed event with the clips path', async () => {
    const result = await call<{ job_id: string; status: string; clips_count: number; clips: Clip[] }>(
      'GET',
      `/split-jobs/${job.id}/result`,
      { key: org.key },
    );
    expect(result.status).toBe(200);
    expectShape('getSplitJobResult', 200, result.body);
    expect(result.body.clips_count).toBe(job.result.clips_count);
    expect(result.body.clips.map((clip) => clip.status)).toEqual(
      Array.from({ length: result.body.clips_count }, () => 'completed'),
    );
    const events = await listEvents(org.organizationId);
    expect(events.map((event) => event.payload)).toContainEqual(
      expect.objectContaining({
        type: 'job.completed',
        data: {
          job: {
            id: job.id,
            type: 'split',
            status: 'completed',
            result_url: `/api/v1/developer/split-jobs/${job.id}/result`,
            clips_url: `/api/v1/developer/split-jobs/${job.id}/clips`,
          },
        },
      }),
    );
  });

  it('is found by another split job route only in its own organization', async () => {
    const other = await createOrganization();
    for (const path of [`/split-jobs/${job.id}`, `/split-jobs/${job.id}/clips`, `/split-jobs/${job.id}/result`]) {
      const response = await call<ErrorBody>('GET', path, { key: other.key });
      expect({ path, status: response.status, code: response.body.error.code }).toEqual({
        path,
        status: 404,
        code: 'JOB_NOT_FOUND',
      });
    }
    const unified = await call<{ type: string; input: unknown }>('GET', `/jobs/${job.id}`, { key: org.key });
    expect(unified.body).toMatchObject({ type: 'split', input: job.input });
  });
});

describe('creating a split job', () => {
  let org: TestOrganization;
  let sourceId: string;

  beforeAll(async () => {
    org = await createOrganization({ credits: 1000 });
    sourceId = await uploadAsset(org, shortSourceBytes);
  });

  it.each(['url', 'youtube_url', 'source_url', 'colour'])('refuses the unknown field %s, naming it', async (field) => {
    const response = await call<ErrorBody>('POST', '/split-jobs', {
      key: org.key,
      body: { source_asset_id: sourceId, [field]: 'https://example.com/video' },
    });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_FAILED');
    expect(response.body.error.message).toContain(field);
  });

  it('refuses max_clips above the Team cap of 5, and out of the 1 to 10 range', async () => {
    for (const maxClips of [6, 11, 0]) {
      const response = await call<ErrorBody>('POST', '/split-jobs', {
        key: org.key,
        body: { source_asset_id: sourceId, max_clips: maxClips },
      });
      expect({ maxClips, status: response.status, code: response.body.error.code }).toEqual({
        maxClips,
        status: 400,
        code: 'VALIDATION_FAILED',
      });
      expect(response.body.error.message).toContain('max_clips');
    }
  });

  it('refuses burn_captions with caption_style none, and an unknown framing', async () => {
    const refusals = [
      [{ caption_style: 'none', burn_captions: true }, 'burn_captions'],
      [{ framing: 'crop' }, 'framing'],
    ] as const;
    for (const [fields, named] of refusals) {
      const response = await call<ErrorBody>('POST', '/split-jobs', {
        key: org.key,
        body: { source_asset_id: sourceId, ...fields },
      });
      expect({ status: response.status, code: response.body.error.code }).toEqual({
        status: 400,
        code: 'VALIDATION_FAILED',
      });
      expect(response.body.error.message).toContain(named);
    }
  });

  it('accepts up to the cap negotiated for a Custom organization', async () => {
    const custom = await createOrganization({ plan: 'custom', limits: { max_clips_per_split_job: 8 } as object });
    const customSource = await uploadAsset(custom, shortSourceBytes);
    const accepted = await call<SplitJob>('POST', '/split-jobs', {
      key: custom.key,
      body: { source_asset_id: customSource, max_clips: 8 },
    });
    expect(accepted.status).toBe(201);
    expect(accepted.body.input.max_clips).toBe(8);
    const refused = await call<ErrorBody>('POST', '/split-jobs', {
      key: custom.key,
      body: { source_asset_id: customSource, max_clips: 9 },
    });
    expect(refused.status).toBe(400);
    const me = await call<{ limits: Record<string, number> }>('GET', '/me', { key: custom.key });
    expect(Object.keys(me.body.limits)).not.toContain('max_clips_per_split_job');
    await waitForJob(custom.key, accepted.body.id, 60_000);
  });

  it('needs a confirmed split_source asset of the organization', async () => {
    const other = await createOrganization();
    const foreign = await uploadAsset(other, shortSourceBytes);
    const pending = await uploadAsset(org, shortSourceBytes, { confirm: false });
    const wrongPurpose = await uploadAsset(org, shortSourceBytes, { purpose: 'video_source' });
    const cases: [string, number, string][] = [
      [foreign, 404, 'ASSET_NOT_FOUND'],
      ['asset_00000000000000000000000000', 404, 'ASSET_NOT_FOUND'],
      [pending, 409, 'ASSET_NOT_READY'],
      [wrongPurpose, 409, 'ASSET_NOT_READY'],
    ];
    for (const [assetId, status, code] of cases) {
      const response = await call<ErrorBody>('POST', '/split-jobs', {
        key: org.key,
        body: { source_asset_id: assetId },
      });
      expect({ assetId, status: response.status, code: response.body.error.code }).toEqual({ assetId, status, code });
    }
  });

  it('refuses a source without a video stream with 422 SOURCE_NOT_SUPPORTED, charging nothing', async () => {
    const soundOnly = await uploadAsset(org, makeMedia('sound-only-mp4', { seconds: 3 }));
    const before = (await getOrganization(org.organizationId))?.creditsBalance;
    const response = await call<ErrorBody>('POST', '/split-jobs', {
      key: org.key,
      body: { source_asset_id: soundOnly },
    });
    expect(response.status).toBe(422);
    expectShape('createSplitJob', 422, response.body);
    expect(response.body.error.code).toBe('SOURCE_NOT_SUPPORTED');
    expect(response.body.error.message).toContain('no video stream');
    expect((await getOrganization(org.organizationId))?.creditsBalance).toBe(before);
  });

  it('refuses when credits do not cover the price, before queueing anything', async () => {
    const poor = await createOrganization({ credits: 4 });
    const poorSource = await uploadAsset(poor, shortSourceBytes);
    const response = await call<ErrorBody>('POST', '/split-jobs', {
      key: poor.key,
      body: { source_asset_id: poorSource },
    });
    expect(response.status).toBe(402);
    expect(response.body.error.code).toBe('INSUFFICIENT_CREDITS');
    expect((await getOrganization(poor.organizationId))?.activeSplitJobs).toBe(0);
  });

  it('replays the same Idempotency-Key with the same job, and refuses it with another body', async () => {
    const headers = { 'Idempotency-Key': `split-${Date.now()}` };
    const first = await call<SplitJob>('POST', '/split-jobs', {
      key: org.key,
      headers,
      body: { source_asset_id: sourceId },
    });
    const again = await call<SplitJob>('POST', '/split-jobs', {
      key: org.key,
      headers,
      body: { source_asset_id: sourceId },
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    const conflict = await call<ErrorBody>('POST', '/split-jobs', {
      key: org.key,
      headers,
      body: { source_asset_id: sourceId, max_clips: 1 },
    });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    const { job } = await waitForSplitJob(org.key, first.body.id, 60_000);
    expect(job.status).toBe('completed');
  });

  it('refuses a job above the concurrency cap with 429 and Retry-After', async () => {
    const capped = await createOrganization({ plan: 'custom', limits: { concurrent_split_jobs: 1 } });
    const cappedSource = await uploadAsset(capped, shortSourceBytes);
    const first = await call<SplitJob>('POST', '/split-jobs', {
      key: capped.key,
      body: { source_asset_id: cappedSource },
    });
    expect(first.status).toBe(201);
    const second = await call<ErrorBody>('POST', '/split-jobs', {
      key: capped.key,
      body: { source_asset_id: cappedSource },
    });
    expect(second.status).toBe(429);
    expect(second.body.error.code).toBe('CONCURRENT_JOB_LIMIT_EXCEEDED');
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
    await waitForJob(capped.key, first.body.id, 60_000);
  }, 90_000);
});

describe('a short source', () => {
  it('still yields a clip: the whole source', async () => {
    const org = await createOrganization();
    const sourceId = await uploadAsset(org, shortSourceBytes);
    const created = await call<SplitJob>('POST', '/split-jobs', {
      key: org.key,
      body: { source_asset_id: sourceId, aspect_ratio: '1:1', clip_length_preset: 'under_60' },
    });
    const { job } = await waitForSplitJob(org.key, created.body.id, 60_000);
    expect(job.status).toBe('completed');
    const { body } = await call<{ clips: Clip[] }>('GET', `/split-jobs/${job.id}/clips`, { key: org.key });
    expect(body.clips).toHaveLength(1);
    expect(body.clips[0]).toMatchObject({ start_time_seconds: 0, end_time_seconds: 20, status: 'completed' });
    const video = probeMedia(await download(body.clips[0]!.download_url!));
    expect(video.streams.find((stream) => stream.codec_type === 'video')).toMatchObject({ width: 720, height: 720 });
  }, 90_000);
});

describe('a source of grainy footage', () => {
  it('keeps every chosen clip, each file larger than 11 MiB', async () => {
    // Two 15 s clips: the fewest that show that every chosen clip is kept, each over the size.
    const grainy = makeSplitSource({
      durationSeconds: 30,
      width: 1280,
      height: 720,
      scenes: [
        { colour: 'navy', startSeconds: 0 },
        { colour: 'olive', startSeconds: 15 },
      ],
      silences: [{ startSeconds: 14.5, endSeconds: 15.5 }],
      grain: true,
    });
    const org = await createOrganization();
    const sourceId = await uploadAsset(org, grainy);
    const created = await call<SplitJob>('POST', '/split-jobs', {
      key: org.key,
      body: { source_asset_id: sourceId, clip_length_preset: 'under_30' },
    });
    const { job } = await waitForSplitJob(org.key, created.body.id, 150_000);
    const { body } = await call<{ clips: Clip[] }>('GET', `/split-jobs/${job.id}/clips`, { key: org.key });

    expect(job.status).toBe('completed');
    expect(body.clips.length).toBeGreaterThanOrEqual(2);
    expect(body.clips.map((clip) => clip.status)).toEqual(body.clips.map(() => 'completed'));
    expect(job.result?.clips_count).toBe(body.clips.length);
    for (const clip of body.clips) {
      const file = await download(clip.download_url!);
      expect(file.length).toBeGreaterThan(11 * 1024 * 1024);
    }
  }, 300_000);
});

describe('a source that cannot be read any more', () => {
  it('fails the job with SOURCE_UNREADABLE and refunds it in full', async () => {
    const org = await createOrganization({ credits: 100 });
    const sourceId = await uploadAsset(org, shortSourceBytes);
    // A first job probes the source and keeps the verdict on the asset, so the next creation needs no read.
    const first = await call<SplitJob>('POST', '/split-jobs', { key: org.key, body: { source_asset_id: sourceId } });
    await waitForJob(org.key, first.body.id, 60_000);
    const environment = JSON.parse(process.env.IT_STACK_ENVIRONMENT!) as Record<string, string>;
    const s3 = new S3Client({
      endpoint: environment.AWS_ENDPOINT_URL_S3,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await s3.send(
      new DeleteObjectCommand({
        Bucket: environment.MEDIA_BUCKET_NAME,
        Key: `assets/${org.organizationId}/${sourceId}`,
      }),
    );
    s3.destroy();
    const before = (await getOrganization(org.organizationId))!.creditsBalance;
    const created = await call<SplitJob>('POST', '/split-jobs', { key: org.key, body: { source_asset_id: sourceId } });
    expect(created.status).toBe(201);
    const { job } = await waitForSplitJob(org.key, created.body.id, 60_000);
    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('SOURCE_UNREADABLE');
    expect(job.credits.refunded).toBe(job.credits.charged);
    expect((await getOrganization(org.organizationId))!.creditsBalance).toBe(before);
    const result = await call<ErrorBody>('GET', `/split-jobs/${job.id}/result`, { key: org.key });
    expect(result.body.error.code).toBe('JOB_FAILED');
    const clips = await call<{ clips: Clip[] }>('GET', `/split-jobs/${job.id}/clips`, { key: org.key });
    expect(clips.body.clips).toEqual([]);
  }, 90_000);
});

describe('a source that holds less than its header claims', () => {
  const LONG_SOURCE: SplitSourcePlan = {
    durationSeconds: 90,
    width: 320,
    height: 180,
    scenes: [0, 8, 17, 26, 40, 55, 70].map((startSeconds, index) => ({
      colour: ['red', 'green', 'blue', 'yellow', 'magenta', 'cyan', 'white'][index]!,
      startSeconds,
    })),
    silences: [{ startSeconds: 12, endSeconds: 13 }],
  };
  const whole = makeSplitSource(LONG_SOURCE);

  it('prices a truncated upload by what it decodes to, and claims no clip beyond it', async () => {
    // The first quarter of the file: its index, at the front, still says 90 s.
    const truncated = whole.subarray(0, Math.floor(whole.length / 4));
    const org = await createOrganization({ credits: 100 });
    const sourceId = await uploadAsset(org, truncated);
    const created = await call<SplitJob>('POST', '/split-jobs', { key: org.key, body: { source_asset_id: sourceId } });
    expect(created.body.credits).toMatchObject({ charged: 10 });

    const { job } = await waitForSplitJob(org.key, created.body.id, 120_000);
    const { body } = await call<{ clips: Clip[] }>('GET', `/split-jobs/${job.id}/clips`, { key: org.key });

    expect(job.status).toBe('completed');
    expect(job.credits).toEqual({ estimated: 10, charged: 10, refunded: 5 });
    expect((await getOrganization(org.organizationId))!.creditsBalance).toBe(95);
    expect(body.clips.length).toBeGreaterThan(0);
    for (const clip of body.clips) {
      expect(clip.status).toBe('completed');
      expect(clip.end_time_seconds).toBeLessThan(45);
      const played = Number(probeMedia(await download(clip.download_url!)).format.duration);
      expect(Math.abs(played - clip.duration_seconds)).toBeLessThanOrEqual(0.5);
      expect(Math.abs(clip.end_time_seconds - clip.start_time_seconds - clip.duration_seconds)).toBeLessThanOrEqual(
        0.5,
      );
    }
  }, 150_000);

  it('fails a source whose picture does not decode with SOURCE_UNREADABLE, refunded in full', async () => {
    // The index intact, the media data after it noise: ffprobe reads the header, nothing decodes.
    const mediaData = whole.indexOf('mdat') + 4;
    const corrupt = Buffer.concat([whole.subarray(0, mediaData), randomBytes(whole.length - mediaData)]);
    const org = await createOrganization({ credits: 100 });
    const sourceId = await uploadAsset(org, corrupt);
    const created = await call<SplitJob>('POST', '/split-jobs', { key: org.key, body: { source_asset_id: sourceId } });
    expect(created.status).toBe(201);

    const { job } = await waitForSplitJob(org.key, created.body.id, 120_000);

    expect(job.status).toBe('failed');
    expect(job.error?.code).toBe('SOURCE_UNREADABLE');
    expect(job.credits.refunded).toBe(job.credits.charged);
    expect((await getOrganization(org.organizationId))!.creditsBalance).toBe(100);
  }, 150_000);
});

describe('a podcast of one still picture a second', () => {
  it('is split from its whole length and priced whole, nothing refunded', async () => {
    const podcast = makePodcastSource({ durationSeconds: 610, width: 1280, height: 720 });
    const org = await createOrganization({ credits: 100 });
    const sourceId = await uploadAsset(org, podcast, { filename: 'episode-12.mp4' });
    // German: the local recognizer hears English only, so the job spends no time on a transcript
    // of a tone; what is measured here is the analysis of the picture and the sound.
    const created = await call<SplitJob>('POST', '/split-jobs', {
      key: org.key,
      body: { source_asset_id: sourceId, language: 'de-DE' },
    });
    expect(created.body.credits).toMatchObject({ charged: 55 });

    const { job } = await waitForSplitJob(org.key, created.body.id, 240_000);
    const { body } = await call<{ clips: Clip[] }>('GET', `/split-jobs/${job.id}/clips`, { key: org.key });

    expect(job.status).toBe('completed');
    expect(job.credits).toEqual({ estimated: 55, charged: 55, refunded: 0 });
    const completed = body.clips.filter((clip) => clip.status === 'completed');
    expect(completed.length).toBeGreaterThan(0);
    // Before a sparse picture counted as decoded, the source ended at its first segment (5 minutes).
    expect(Math.max(...completed.map((clip) => clip.end_time_seconds))).toBeGreaterThan(305);
    for (const clip of completed) expect(clip.end_time_seconds).toBeLessThanOrEqual(610);
  }, 300_000);
});
