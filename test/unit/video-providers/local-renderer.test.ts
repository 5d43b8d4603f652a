import { execFile } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import ffprobe from '@ffprobe-installer/ffprobe';
import { LUMA_RAY2 } from '#domain/models/model-registry';
import { CAPTION_FONT_PACKAGE } from '#platform/caption-fonts';
import { LocalRenderer } from '#domain/video-jobs/providers/local-renderer';
import {
  RENDER_FAILURE_MESSAGES,
  type RenderRequest,
  type RenderStatus,
  type StartResult,
} from '#domain/video-jobs/providers/port';
import { frameDifference, greyFramesOf } from '../../support/frames';
import { captureMetrics, publishedValues } from '../support/metrics';

const run = promisify(execFile);
// Real ffmpeg renders take seconds each, tens of seconds on a loaded 2-core machine (a captioned
// render timed out at 30 s under a load average of 13); set here because a testTimeout inside
// Jest `projects` is ignored.
jest.setTimeout(120_000);
const s3Mock = mockClient(S3Client);
const BUCKET = 'media-test';

let workDir: string;
const previousLogLevel = process.env.LOG_LEVEL;

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'local-renderer-test-'));
  // The failure paths log on purpose; the assertions cover them.
  process.env.LOG_LEVEL = 'silent';
});

afterAll(async () => {
  process.env.LOG_LEVEL = previousLogLevel;
  await rm(workDir, { recursive: true, force: true });
});

beforeEach(() => {
  s3Mock.reset();
  s3Mock.on(PutObjectCommand).resolves({});
});

/** Whether `target` has a method `name`, private ones included, which jest.spyOn can then replace. */
function hasMethod<Name extends string>(
  target: object,
  name: Name,
): target is Record<Name, (...args: never[]) => unknown> {
  return typeof Reflect.get(target, name) === 'function';
}

function renderer(options: Partial<ConstructorParameters<typeof LocalRenderer>[0]> = {}) {
  return new LocalRenderer({
    s3: new S3Client({ region: 'us-east-1' }),
    ffmpegPath: ffmpeg.path,
    preset: 'ultrafast',
    fps: LUMA_RAY2.renders.fps,
    ...options,
  });
}

function request(overrides: Partial<RenderRequest> = {}): RenderRequest {
  const jobId = `video_job_${randomUUID()}`;
  return {
    renderId: jobId,
    jobId,
    prompt: 'A red fox runs through a snowy forest at dawn',
    renderSeconds: 5,
    frame: LUMA_RAY2.renders.frames['9:16'],
    output: { bucket: BUCKET, key: `renders/1/${jobId}/1/output.mp4` },
    ...overrides,
  };
}

function providerJobId(started: StartResult): string {
  if (started.state !== 'started') throw new Error(`render did not start: ${JSON.stringify(started)}`);
  return started.providerJobId;
}

async function pollUntilDone(provider: LocalRenderer, id: string, timeoutMs = 90_000) {
  const progress: number[] = [];
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const status: RenderStatus = await provider.poll(id);
    if (status.state !== 'in_progress') return { status, progress };
    progress.push(status.progress);
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
  throw new Error(`render ${id} did not finish in ${timeoutMs} ms`);
}

function uploadedBody(key: string): Buffer {
  const call = s3Mock.commandCalls(PutObjectCommand).find((c) => c.args[0].input.Key === key);
  if (!call) throw new Error(`nothing was uploaded to ${key}`);
  expect(call.args[0].input).toMatchObject({ Bucket: BUCKET, ContentType: 'video/mp4' });
  return call.args[0].input.Body as Buffer;
}

async function probe(video: Buffer) {
  const path = join(workDir, `${randomUUID()}.mp4`);
  await writeFile(path, video);
  const { stdout } = await run(ffprobe.path, [
    '-v',
    'error',
    '-show_entries',
    'stream=codec_name,width,height,pix_fmt:format=duration',
    '-of',
    'json',
    path,
  ]);
  const parsed = JSON.parse(stdout) as {
    streams: { codec_name: string; width: number; height: number; pix_fmt: string }[];
    format: { duration: string };
  };
  return { streams: parsed.streams, durationSeconds: Number(parsed.format.duration) };
}

describe('local renderer', () => {
  it('renders a 9 s render as Ray2 would, 216 frames of 720x1280 H.264, reporting measured progress that only goes up', async () => {
    const provider = renderer();
    const req = request({ renderSeconds: 9, style: 'realistic' });

    const { status, progress } = await pollUntilDone(provider, providerJobId(await provider.start(req)));

    expect(status).toEqual({
      state: 'completed',
      output: { bucket: BUCKET, key: req.output.key, contentType: 'video/mp4', sizeBytes: expect.any(Number) },
    });
    expect(progress.some((p) => p > 0 && p < 100)).toBe(true);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(Math.max(...progress)).toBeLessThanOrEqual(100);

    const body = uploadedBody(req.output.key);
    expect(status.state === 'completed' && status.output.sizeBytes).toBe(body.length);
    const video = await probe(body);
    expect(video.streams).toEqual([{ codec_name: 'h264', width: 720, height: 1280, pix_fmt: 'yuv420p' }]);
    expect(Math.abs(video.durationSeconds - 9)).toBeLessThanOrEqual(0.05);
  });

  it.each([
    ['1:1', 'cinematic', 720, 720],
    ['16:9', 'animated', 1280, 720],
  ] as const)(
    'renders 5 s at %s (%s style) natively, as Ray2 does: %ix%i',
    async (aspectRatio, style, width, height) => {
      const provider = renderer();
      const req = request({ frame: LUMA_RAY2.renders.frames[aspectRatio], style });

      const { status } = await pollUntilDone(provider, providerJobId(await provider.start(req)));

      expect(status).toMatchObject({ state: 'completed' });
      const video = await probe(uploadedBody(req.output.key));
      expect(video.streams).toEqual([{ codec_name: 'h264', width, height, pix_fmt: 'yuv420p' }]);
      expect(Math.abs(video.durationSeconds - 5)).toBeLessThanOrEqual(0.05);
    },
  );

  it('starts a render on its start image exactly, as a model given a keyframe does', async () => {
    const imagePath = join(workDir, 'keyframe.jpg');
    await run(ffmpeg.path, [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      'testsrc2=s=720x1280',
      '-frames:v',
      '1',
      '-q:v',
      '2',
      '-y',
      imagePath,
    ]);
    s3Mock
      .on(GetObjectCommand)
      .resolves({ Body: { transformToByteArray: async () => new Uint8Array(await readFile(imagePath)) } } as never);
    const provider = renderer();
    const req = request({
      startImage: { bucket: BUCKET, key: 'renders/1/video_job_1/2/keyframe.jpg', origin: 'chain' },
    });

    const { status } = await pollUntilDone(provider, providerJobId(await provider.start(req)));

    expect(status).toMatchObject({ state: 'completed' });
    expect(s3Mock.commandCalls(GetObjectCommand)[0]?.args[0].input).toEqual({
      Bucket: BUCKET,
      Key: 'renders/1/video_job_1/2/keyframe.jpg',
    });
    const videoPath = join(workDir, `${randomUUID()}.mp4`);
    await writeFile(videoPath, uploadedBody(req.output.key));
    const [first, second, last] = [
      ...greyFramesOf(videoPath, 36, 64).filter((_, i, all) => i < 2 || i === all.length - 1),
    ];
    const [image] = greyFramesOf(imagePath, 36, 64);
    // Frame 0 is the image (up to encoding); the picture then moves, a little each frame.
    expect(frameDifference(first!, image!)).toBeLessThan(3);
    expect(frameDifference(second!, first!)).toBeGreaterThan(0.05);
    expect(frameDifference(last!, first!)).toBeGreaterThan(5);
  });

  it('draws the prompt as a caption that is gone by the last frame, which the next render of a chain starts on', async () => {
    // Where the renderer takes it: a plain path, as filter graphs need (isFilterSafePath).
    const fontFile = join(workDir, 'caption-font.ttf');
    await copyFile(require.resolve(`${CAPTION_FONT_PACKAGE}/400Regular/Montserrat_400Regular.ttf`), fontFile);
    const rendered = async (captionFont: string | null) => {
      const req = request({ prompt: 'Steam rises from a cup of coffee' });
      const provider = renderer({ fontFile: captionFont });
      await pollUntilDone(provider, providerJobId(await provider.start(req)));
      const path = join(workDir, `${randomUUID()}.mp4`);
      await writeFile(path, uploadedBody(req.output.key));
      return greyFramesOf(path, 180, 320);
    };
    // The caption of a text-to-video render sits about the middle of the picture.
    const band = (frame: Buffer) => frame.subarray(180 * 130, 180 * 190);

    const [captioned, plain] = [await rendered(fontFile), await rendered(null)];

    const middle = Math.floor(captioned.length / 2);
    const withCaption = frameDifference(band(captioned[middle]!), band(plain[middle]!));
    expect(withCaption).toBeGreaterThan(5);
    // What is left is the encoder's noise, not a ghost of the caption.
    expect(frameDifference(band(captioned.at(-1)!), band(plain.at(-1)!))).toBeLessThan(withCaption / 20);
  });

  it('fails with a safe RENDER_FAILED when the upload to S3 fails', async () => {
    s3Mock.on(PutObjectCommand).rejects(new Error('connect ECONNREFUSED 127.0.0.1:4566'));
    const provider = renderer();

    const { status } = await pollUntilDone(
      provider,
      providerJobId(await provider.start(request({ frame: LUMA_RAY2.renders.frames['1:1'] }))),
    );

    expect(status).toEqual({ state: 'failed', code: 'RENDER_FAILED', message: RENDER_FAILURE_MESSAGES.RENDER_FAILED });
  });

  it('starts one render per render id when start is retried', async () => {
    const provider = renderer();
    const req = request({ prompt: 'same job twice [fault:stall]' });

    const first = await provider.start(req);
    const second = await provider.start(req);

    expect(second).toEqual(first);
  });

  describe('fault injection', () => {
    it('[fault:fail] makes ffmpeg fail and poll return RENDER_FAILED with a customer-safe message', async () => {
      const provider = renderer();

      const { status } = await pollUntilDone(
        provider,
        providerJobId(await provider.start(request({ prompt: 'a storm [fault:fail]' }))),
      );

      expect(status).toEqual({
        state: 'failed',
        code: 'RENDER_FAILED',
        message: RENDER_FAILURE_MESSAGES.RENDER_FAILED,
      });
      expect(JSON.stringify(status)).not.toMatch(/ffmpeg|filter|local-render|\//i);
      expect(s3Mock.commandCalls(PutObjectCommand)).toHaveLength(0);
    });

    it('[fault:stall] stays in progress at the same value and uploads nothing', async () => {
      // A render's progress and outcome change only as its run goes; start() launches the run before it returns.
      const prototype: object = LocalRenderer.prototype;
      if (!hasMethod(prototype, 'run')) throw new Error('LocalRenderer has no run method to watch');
      const runs = jest.spyOn(prototype, 'run');
      try {
        const provider = renderer();
        const id = providerJobId(await provider.start(request({ prompt: 'a calm lake [fault:stall]' })));

        const first = await provider.poll(id);
        const later = await provider.poll(id);

        expect(runs).not.toHaveBeenCalled();
        expect(first).toEqual({ state: 'in_progress', progress: 40 });
        expect(later).toEqual(first);
        expect(s3Mock.commandCalls(PutObjectCommand)).toHaveLength(0);
      } finally {
        runs.mockRestore();
      }
    });

    it('[fault:crash] makes poll throw an unexpected error', async () => {
      const provider = renderer();
      const id = providerJobId(await provider.start(request({ prompt: 'a volcano [fault:crash]' })));

      await expect(provider.poll(id)).rejects.toThrow('fault injection: crash');
    });

    it('times each start and poll as the local provider, a poll that throws included', async () => {
      const metrics = captureMetrics();
      const provider = renderer();
      const id = providerJobId(await provider.start(request({ prompt: 'a volcano [fault:crash]' })));
      await expect(provider.poll(id)).rejects.toThrow('fault injection: crash');

      expect(publishedValues(metrics, 'ProviderLatency')).toEqual([
        { Provider: 'local', Operation: 'start-render', value: expect.any(Number) },
        { Provider: 'local', Operation: 'poll-render', value: expect.any(Number) },
      ]);
    });

    it('LOCAL_RENDERER_FAULT applies a fault to every render', async () => {
      process.env.LOCAL_RENDERER_FAULT = 'stall';
      try {
        const provider = renderer();
        const id = providerJobId(await provider.start(request({ prompt: 'an ordinary prompt' })));

        expect(await provider.poll(id)).toEqual({ state: 'in_progress', progress: 40 });
      } finally {
        delete process.env.LOCAL_RENDERER_FAULT;
      }
    });

    it('rejects an unknown LOCAL_RENDERER_FAULT at construction', () => {
      process.env.LOCAL_RENDERER_FAULT = 'explode';
      try {
        expect(() => renderer()).toThrow('LOCAL_RENDERER_FAULT must be one of fail, stall, crash');
      } finally {
        delete process.env.LOCAL_RENDERER_FAULT;
      }
    });
  });

  it('throws for a render this process does not know (state is in memory only)', async () => {
    await expect(renderer().poll('local-render:video_job_unknown')).rejects.toThrow('Unknown local render');
  });
});
