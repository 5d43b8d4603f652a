import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import ffprobe from '@ffprobe-installer/ffprobe';
import { LUMA_RAY2, NOVA_REEL_1_1, type RenderFrame } from '#domain/models/model-registry';
import {
  SOURCE_IMAGE_SIDES_MESSAGE,
  extractLastFrame,
  fittedSize,
  prepareSourceKeyframe,
} from '#domain/video-jobs/keyframes';
import { RENDER_FAILURE_MESSAGES } from '#domain/video-jobs/providers/port';
import { TransientFailure } from '#platform/task-failures';

const run = promisify(execFile);
// Real ffmpeg runs; set here because a testTimeout inside Jest `projects` is ignored.
jest.setTimeout(60_000);

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'keyframes-test-'));
});
afterAll(() => rm(workDir, { recursive: true, force: true }));

const tools = () => ({ ffmpegPath: ffmpeg.path, ffprobePath: ffprobe.path, timeoutMs: 30_000 });

/** An image as users upload them: `source` is a lavfi picture, `extra` its encoder options. */
async function image(name: string, source: string, extra: string[] = []): Promise<string> {
  const path = join(workDir, name);
  await run(ffmpeg.path, ['-v', 'error', '-y', '-f', 'lavfi', '-i', source, ...extra, '-frames:v', '1', path]);
  return path;
}

async function prepare(input: string, frame: RenderFrame) {
  const directory = await mkdtemp(join(workDir, 'out-'));
  return prepareSourceKeyframe({ ...tools(), input, frame, directory });
}

async function pixels(path: string): Promise<{ width: number; height: number; rgb: Buffer }> {
  const { stdout } = await run(ffprobe.path, [
    '-v',
    'error',
    '-show_entries',
    'stream=width,height,codec_name',
    '-of',
    'json',
    path,
  ]);
  const stream = (JSON.parse(stdout) as { streams: { width: number; height: number; codec_name: string }[] })
    .streams[0]!;
  expect(stream.codec_name).toBe('mjpeg');
  const raw = await run(ffmpeg.path, ['-v', 'error', '-i', path, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], {
    encoding: 'buffer',
    maxBuffer: 64 * 1024 * 1024,
  });
  return { width: stream.width, height: stream.height, rgb: raw.stdout };
}

const pixelAt = ({ width, rgb }: { width: number; rgb: Buffer }, x: number, y: number): [number, number, number] => {
  const at = (y * width + x) * 3;
  return [rgb[at]!, rgb[at + 1]!, rgb[at + 2]!];
};

describe('the start image of an image-to-video job', () => {
  it.each([
    ['a 1080x1920 portrait JPEG', '9:16', 'portrait.jpg', 'testsrc2=s=1080x1920', ['-q:v', '3']],
    ['a 64x64 PNG', '16:9', 'tiny.png', 'testsrc2=s=64x64', []],
    ['a 6000x4000 photograph-sized JPEG', '1:1', 'large.jpg', 'testsrc2=s=6000x4000', ['-q:v', '4']],
    ['a landscape WebP', '9:16', 'landscape.webp', 'testsrc2=s=1600x900', ['-c:v', 'libwebp']],
  ] as const)(
    'fits %s whole into the %s frame Ray2 renders, as a JPEG of exactly that frame',
    async (_, ratio, name, source, extra) => {
      const frame = LUMA_RAY2.renders.frames[ratio];

      const prepared = await prepare(await image(name, source, [...extra]), frame);

      expect(prepared).toMatchObject({ state: 'prepared' });
      const keyframe = await pixels((prepared as { path: string }).path);
      expect([keyframe.width, keyframe.height]).toEqual([frame.width, frame.height]);
    },
  );

  it('fills the frame around a picture of another shape with a blur of itself, never stretching it', () => {
    expect(fittedSize({ width: 6000, height: 4000 }, { width: 720, height: 720 })).toEqual({ width: 720, height: 480 });
    expect(fittedSize({ width: 1080, height: 1920 }, { width: 720, height: 1280 })).toEqual({
      width: 720,
      height: 1280,
    });
    expect(fittedSize({ width: 64, height: 64 }, { width: 1280, height: 720 })).toEqual({ width: 720, height: 720 });
  });

  it('flattens the transparent part of a WebP onto white, keeping the opaque part as it is', async () => {
    // Left half opaque red, right half fully transparent.
    const webp = await image('alpha.webp', 'color=c=red:s=400x400', [
      '-vf',
      "format=rgba,geq=r='255':g='0':b='0':a='if(lt(X,200),255,0)'",
      ...['-c:v', 'libwebp', '-lossless', '1'],
    ]);

    const prepared = await prepare(webp, LUMA_RAY2.renders.frames['1:1']);

    const keyframe = await pixels((prepared as { path: string }).path);
    expect(pixelAt(keyframe, 540, 360).every((value) => value > 240)).toBe(true);
    const [r, g, b] = pixelAt(keyframe, 180, 360);
    expect(r).toBeGreaterThan(220);
    expect(Math.max(g, b)).toBeLessThan(40);
  });

  it('prepares the 1280x720 image Nova Reel requires from any shape', async () => {
    const prepared = await prepare(
      await image('square.png', 'testsrc2=s=500x500'),
      NOVA_REEL_1_1.renders.frames['9:16'],
    );

    const keyframe = await pixels((prepared as { path: string }).path);
    expect([keyframe.width, keyframe.height]).toEqual([1280, 720]);
  });

  it.each([
    ['a side under 64 px', 'thin.png', 'testsrc2=s=63x200'],
    ['a side over 8,000 px', 'tall.png', 'color=c=blue:s=100x8010'],
  ])('refuses an image with %s as SOURCE_IMAGE_UNSUPPORTED, saying what is accepted', async (_, name, source) => {
    expect(await prepare(await image(name, source), LUMA_RAY2.renders.frames['9:16'])).toEqual({
      state: 'failed',
      code: 'SOURCE_IMAGE_UNSUPPORTED',
      message: SOURCE_IMAGE_SIDES_MESSAGE,
    });
  });

  it('refuses a file that is no image as SOURCE_IMAGE_UNSUPPORTED', async () => {
    const path = join(workDir, 'not-an-image.png');
    await writeFile(path, 'not an image at all');

    expect(await prepare(path, LUMA_RAY2.renders.frames['9:16'])).toEqual({
      state: 'failed',
      code: 'SOURCE_IMAGE_UNSUPPORTED',
      message: RENDER_FAILURE_MESSAGES.SOURCE_IMAGE_UNSUPPORTED,
    });
  });

  it('fails retryably, not as an unsupported image, when the image cannot be reached', async () => {
    const unreachable = 'http://127.0.0.1:9/assets/7/asset_01/original?X-Amz-Signature=secret-signature';

    await expect(prepare(unreachable, LUMA_RAY2.renders.frames['9:16'])).rejects.toBeInstanceOf(TransientFailure);
  });
});

describe('the start image of a chained render', () => {
  it('is the last frame of the render before, at the frame it renders', async () => {
    const video = join(workDir, 'render.mp4');
    // A render whose last frame (the 120th) is plain white after 119 black ones.
    await run(ffmpeg.path, [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=black:s=720x1280:r=24:d=5'],
      ...[
        '-vf',
        "geq=lum='if(eq(N,119),255,0)':cb=128:cr=128",
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-pix_fmt',
        'yuv420p',
        video,
      ],
    ]);
    const directory = await mkdtemp(join(workDir, 'last-'));

    const path = await extractLastFrame({
      ...tools(),
      input: video,
      frame: LUMA_RAY2.renders.frames['9:16'],
      directory,
    });

    const keyframe = await pixels(path);
    expect([keyframe.width, keyframe.height]).toEqual([720, 1280]);
    expect(pixelAt(keyframe, 360, 640).every((value) => value > 230)).toBe(true);
  });
});
