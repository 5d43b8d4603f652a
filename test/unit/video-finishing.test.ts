import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ffmpeg from '@ffmpeg-installer/ffmpeg';
import ffprobe from '@ffprobe-installer/ffprobe';
import type { AspectRatio } from '#contract/types';
import { probeVideo } from '#domain/assets/video-probe';
import { novaReelOutput } from '#domain/video-jobs/providers/nova-reel';
import type { DurationSeconds } from '#domain/video-jobs/providers/port';
import { finishingArgs, finishVideo } from '#domain/video-jobs/video-finishing';
import { MediaToolError } from '#platform/media-tools';

const run = promisify(execFile);
// Real ffmpeg runs take seconds each; set here because a testTimeout inside Jest `projects` is ignored.
jest.setTimeout(60_000);

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'video-finishing-test-'));
});
afterAll(() => rm(workDir, { recursive: true, force: true }));

const novaReelVideos = new Map<string, Promise<string>>();

/**
 * A video shaped as Nova Reel delivers it for `requested` seconds (1280x720, 24 fps, whole shots
 * of 6 s), made once for the file: finishing reads it and never changes it.
 */
function novaReelShaped(requested: DurationSeconds, options: { sound?: boolean } = {}): Promise<string> {
  const name = `nova-${requested}-${options.sound ? 'sound' : 'silent'}.mp4`;
  let video = novaReelVideos.get(name);
  if (!video) {
    video = makeNovaReelShaped(requested, join(workDir, name), options);
    novaReelVideos.set(name, video);
  }
  return video;
}

async function makeNovaReelShaped(
  requested: DurationSeconds,
  path: string,
  options: { sound?: boolean },
): Promise<string> {
  const { width, height, fps, durationSeconds } = novaReelOutput(requested);
  const sound = options.sound ? ['-f', 'lavfi', '-i', `sine=frequency=440:duration=${durationSeconds}`] : [];
  await run(ffmpeg.path, [
    ...['-v', 'error', '-y', '-f', 'lavfi', '-i', `testsrc2=s=${width}x${height}:r=${fps}:d=${durationSeconds}`],
    ...sound,
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'],
    ...(options.sound ? ['-c:a', 'aac'] : []),
    path,
  ]);
  return path;
}

async function finish(input: string, durationSeconds: DurationSeconds, aspectRatio: AspectRatio) {
  const outputDirectory = await mkdtemp(join(workDir, 'out-'));
  return finishVideo({
    ffmpegPath: ffmpeg.path,
    ffprobePath: ffprobe.path,
    input,
    source: { width: 1280, height: 720 },
    durationSeconds,
    aspectRatio,
    outputDirectory,
    timeoutMs: 60_000,
  });
}

describe('the finishing step of a video job', () => {
  it.each([
    [5, '9:16', 720, 1280],
    [5, '1:1', 720, 720],
    [5, '16:9', 1280, 720],
    [15, '9:16', 720, 1280],
  ] as const)(
    "makes Nova Reel's video of a %i s %s request exactly that: %ix%i",
    async (durationSeconds, aspectRatio, width, height) => {
      const finished = await finish(await novaReelShaped(durationSeconds), durationSeconds, aspectRatio);

      expect(finished).toMatchObject({ width, height });
      expect(Math.abs(finished.durationSeconds - durationSeconds)).toBeLessThanOrEqual(0.05);
      const measured = await probeVideo(ffprobe.path, finished.path, 10_000);
      expect(measured).toMatchObject({ kind: 'video', probe: { width, height, videoCodec: 'h264', hasAudio: false } });
    },
  );

  it('cuts a sound track to the same length as the picture', async () => {
    const finished = await finish(await novaReelShaped(10, { sound: true }), 10, '1:1');

    const { stdout } = await run(ffprobe.path, [
      ...['-v', 'error', '-show_entries', 'stream=codec_type,duration', '-of', 'json', finished.path],
    ]);
    const streams = (JSON.parse(stdout) as { streams: { codec_type: string; duration: string }[] }).streams;
    expect(streams.map((stream) => stream.codec_type).sort()).toEqual(['audio', 'video']);
    for (const stream of streams) expect(Math.abs(Number(stream.duration) - 10)).toBeLessThanOrEqual(0.05);
  });

  it('refuses to deliver a video shorter than asked for, rather than a shorter file', async () => {
    const sixSeconds = await novaReelShaped(5);

    const failure = await finish(sixSeconds, 10, '16:9').catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(MediaToolError);
    expect((failure as Error).message).toMatch(/^The finished video is 1280x720, 6(\.\d+)? s, not 1280x720, 10 s/);
  });

  it('fails with MediaToolError, naming no URL, when the input cannot be read', async () => {
    const failure = await finish(
      'http://127.0.0.1:9/renders/1/video_job_x/output.mp4?X-Amz-Signature=abc',
      5,
      '9:16',
    ).catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(MediaToolError);
    expect((failure as Error).message).not.toContain('X-Amz-Signature');
  });

  it('reads the input once and writes one frame-exact, web-ready H.264 file', () => {
    const args = finishingArgs({
      input: 'in.mp4',
      source: { width: 1280, height: 720 },
      durationSeconds: 10,
      aspectRatio: '9:16',
      outputDirectory: '/tmp/out',
    });
    expect(args.filter((arg) => arg === '-i')).toHaveLength(1);
    expect(args.slice(args.indexOf('-frames:v'), args.indexOf('-frames:v') + 2)).toEqual(['-frames:v', '240']);
    expect(args).toEqual(expect.arrayContaining(['libx264', '+faststart', '/tmp/out/finished.mp4']));
    expect(args[args.indexOf('-filter_complex') + 1]).toContain('fps=24');
  });
});
