import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import ffprobe from '@ffprobe-installer/ffprobe';
import type { AspectRatio } from '#contract/types';
import { probeVideo } from '#domain/assets/video-probe';
import { LUMA_RAY2, NOVA_REEL_1_1 } from '#domain/models/model-registry';
import type { DurationSeconds } from '#domain/video-jobs/providers/port';
import { finishingArgs, finishVideo } from '#domain/video-jobs/video-finishing';
import { MediaToolError } from '#platform/media-tools';
import { TransientFailure } from '#platform/task-failures';
import { frameDifference, greyFramesOf } from '../support/frames';
import { serveCutting } from '../support/range-server';

const run = promisify(execFile);
// Real ffmpeg runs take seconds each; set here because a testTimeout inside Jest `projects` is ignored.
jest.setTimeout(180_000);

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'video-finishing-test-'));
});
afterAll(() => rm(workDir, { recursive: true, force: true }));

const made = new Map<string, Promise<string>>();

/** Made once per file: finishing reads a render and never changes it. */
function once(name: string, make: (path: string) => Promise<void>): Promise<string> {
  let video = made.get(name);
  if (!video) {
    const path = join(workDir, name);
    video = make(path).then(() => path);
    made.set(name, video);
  }
  return video;
}

/**
 * Frames `from` to `to` (excluded) of one moving test pattern at 24 fps in `frame`: cut from the
 * same pattern, consecutive pieces are what a perfect chain of renders delivers, each starting on
 * the last frame of the one before.
 */
function patternPiece(
  frame: { width: number; height: number },
  from: number,
  to: number,
  options: { sound?: boolean } = {},
): Promise<string> {
  const name = `pattern-${frame.width}x${frame.height}-${from}-${to}${options.sound ? '-sound' : ''}.mp4`;
  return once(name, async (path) => {
    const seconds = to / 24 + 1;
    const sound = options.sound ? ['-f', 'lavfi', '-i', `sine=frequency=440:duration=${(to - from) / 24}`] : [];
    await run(ffmpeg.path, [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=s=${frame.width}x${frame.height}:r=24:d=${seconds}`],
      ...sound,
      ...['-vf', `trim=start_frame=${from}:end_frame=${to},setpts=PTS-STARTPTS`],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '12', '-pix_fmt', 'yuv420p'],
      ...(options.sound ? ['-c:a', 'aac'] : []),
      path,
    ]);
  });
}

/** Ray2's render of `seconds` in the ratio's native frame, as the model registry describes it. */
const ray2Render = (aspectRatio: AspectRatio, seconds: number, from = 0) =>
  patternPiece(LUMA_RAY2.renders.frames[aspectRatio], from, from + seconds * 24);

async function finish(inputs: string[], durationSeconds: DurationSeconds, aspectRatio: AspectRatio) {
  const outputDirectory = await mkdtemp(join(workDir, 'out-'));
  return finishVideo({
    ffmpegPath: ffmpeg.path,
    ffprobePath: ffprobe.path,
    inputs,
    durationSeconds,
    aspectRatio,
    outputDirectory,
    timeoutMs: 60_000,
  });
}

describe('the finishing step of a video job', () => {
  it("makes Ray2's 5 s render of a 5 s 9:16 job exactly that, 720x1280, scaled and never framed", async () => {
    const finished = await finish([await ray2Render('9:16', 5)], 5, '9:16');

    expect(finished).toMatchObject({ width: 720, height: 1280 });
    expect(Math.abs(finished.durationSeconds - 5)).toBeLessThanOrEqual(0.05);
    const measured = await probeVideo(ffprobe.path, finished.path, 10_000);
    expect(measured).toMatchObject({
      kind: 'video',
      probe: { width: 720, height: 1280, videoCodec: 'h264', hasAudio: false },
    });
  });

  it.each([
    ['1:1', 720, 720],
    ['16:9', 1280, 720],
  ] as const)(
    'scales a render in the %s ratio to the contract frame, %ix%i, and never frames it',
    (aspectRatio, width, height) => {
      const filter = finishingArgs({
        inputs: ['render.mp4'],
        source: LUMA_RAY2.renders.frames[aspectRatio],
        durationSeconds: 5,
        aspectRatio,
        outputDirectory: '/tmp/out',
      }).join(' ');
      expect(filter).toContain(`scale=${width}:${height},setsar=1`);
      expect(filter).not.toContain('boxblur');
    },
  );

  it('joins a chain of Ray2 renders into one continuous video: each join drops the repeated start frame', async () => {
    // Two 9 s renders as the plan of a 15 s job asks: the second starts on the first's last frame
    // (215). At half Ray2's frame, the same shape, to keep the test quick: finishing scales it.
    const frame = { width: 360, height: 640 };
    const [first, second, reference] = await Promise.all([
      patternPiece(frame, 0, 216),
      patternPiece(frame, 215, 431),
      patternPiece(frame, 0, 360),
    ]);

    const finished = await finish([first, second], 15, '9:16');

    expect(finished).toMatchObject({ width: 720, height: 1280 });
    expect(Math.abs(finished.durationSeconds - 15)).toBeLessThanOrEqual(0.05);
    const [frames, expected] = [greyFramesOf(finished.path), greyFramesOf(reference)];
    expect(frames).toHaveLength(360);
    // Around the join, frame for frame the pattern itself: no frame repeated, none missing.
    for (let index = 210; index < 222; index += 1) {
      expect(frameDifference(frames[index]!, expected[index]!)).toBeLessThan(
        frameDifference(expected[index]!, expected[index - 1]!),
      );
    }
    const steps = frames.slice(1).map((picture, index) => frameDifference(picture, frames[index]!));
    expect(Math.min(...steps)).toBeGreaterThan(0);
  }, 120_000);

  it("frames Nova Reel's 1280x720 render of a 9:16 job whole over a blurred fill", async () => {
    const novaFrame = NOVA_REEL_1_1.renders.frames['9:16'];
    // Nova Reel's 16:9 at a quarter of its size: the framing depends on the ratio only.
    const render = await patternPiece({ width: novaFrame.width / 4, height: novaFrame.height / 4 }, 0, 6 * 24);

    const finished = await finish([render], 5, '9:16');

    expect(finished).toMatchObject({ width: 720, height: 1280 });
    expect(
      finishingArgs({
        inputs: [render],
        source: novaFrame,
        durationSeconds: 5,
        aspectRatio: '9:16',
        outputDirectory: '/tmp/out',
      }).join(' '),
    ).toContain('boxblur');
  });

  it('cuts the sound track of a single render to the same length as the picture', async () => {
    // The sound's handling does not depend on the frame: a small square keeps the test quick.
    const render = await patternPiece({ width: 240, height: 240 }, 0, 12 * 24, { sound: true });

    const finished = await finish([render], 10, '1:1');

    const { stdout } = await run(ffprobe.path, [
      ...['-v', 'error', '-show_entries', 'stream=codec_type,duration', '-of', 'json', finished.path],
    ]);
    const streams = (JSON.parse(stdout) as { streams: { codec_type: string; duration: string }[] }).streams;
    expect(streams.map((stream) => stream.codec_type).sort()).toEqual(['audio', 'video']);
    for (const stream of streams) expect(Math.abs(Number(stream.duration) - 10)).toBeLessThanOrEqual(0.05);
  });

  it('refuses to deliver a video shorter than asked for, rather than a shorter file', async () => {
    const failure = await finish([await patternPiece({ width: 320, height: 180 }, 0, 5 * 24)], 10, '16:9').catch(
      (error: unknown) => error,
    );

    expect(failure).toBeInstanceOf(MediaToolError);
    expect((failure as Error).message).toMatch(/^The finished video is 1280x720, 5(\.\d+)? s, not 1280x720, 10 s/);
  });

  it('fails with MediaToolError when a render is not a video', async () => {
    const garbage = join(workDir, 'garbage.mp4');
    await writeFile(garbage, Buffer.alloc(64 * 1024, 7));

    await expect(finish([garbage], 5, '9:16')).rejects.toBeInstanceOf(MediaToolError);
  });

  it('fails retryably, naming no URL, when a render cannot be reached', async () => {
    const failure = await finish(
      ['http://127.0.0.1:9/renders/1/video_job_x/1/output.mp4?X-Amz-Signature=abc'],
      5,
      '9:16',
    ).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(TransientFailure);
    expect((failure as Error).message).not.toContain('X-Amz-Signature');
  });

  it('fails retryably, not as a short render, when the connection to a render drops for good', async () => {
    const render = await ray2Render('9:16', 5);
    const indexFirst = join(workDir, 'index-first.mp4');
    await run(ffmpeg.path, ['-v', 'error', '-y', '-i', render, '-c', 'copy', '-movflags', '+faststart', indexFirst]);
    const server = await serveCutting(indexFirst, { cutAtFraction: 0.5, cut: 'always' });
    try {
      const failure = await finish([server.url], 5, '9:16').catch((error: unknown) => error);

      expect(server.cuts()).toBeGreaterThan(1);
      expect(failure).toBeInstanceOf(TransientFailure);
      expect((failure as Error).message).toMatch(/^The finished video stopped at/);
    } finally {
      await server.close();
    }
  });

  it('reads each render once and writes one frame-exact, web-ready H.264 file', () => {
    const args = finishingArgs({
      inputs: ['1.mp4', '2.mp4'],
      source: { width: 720, height: 1280 },
      durationSeconds: 10,
      aspectRatio: '9:16',
      outputDirectory: '/tmp/out',
    });
    expect(args.filter((arg) => arg === '-i')).toHaveLength(2);
    expect(args.slice(args.indexOf('-frames:v'), args.indexOf('-frames:v') + 2)).toEqual(['-frames:v', '240']);
    expect(args).toEqual(expect.arrayContaining(['libx264', '+faststart', '/tmp/out/finished.mp4']));
    const filter = args[args.indexOf('-filter_complex') + 1]!;
    expect(filter).toContain('[1:v]trim=start_frame=1,');
    expect(filter).toContain('concat=n=2:v=1:a=0[joined]');
    expect(filter).toContain('fps=24');
  });
});
