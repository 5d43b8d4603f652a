import { join } from 'node:path';
import type { AspectRatio } from '#contract/types';
import { probeVideo } from '#domain/assets/video-probe';
import { framingFilterGraph } from '#domain/framing/framing';
import {
  assertNotCutShort,
  assertRanToEnd,
  FFMPEG_LOG_OPTIONS,
  MediaToolError,
  networkInputOptions,
  runMediaTool,
} from '#platform/media-tools';
import { OUTPUT_DIMENSIONS, type DurationSeconds } from './providers/port';

/**
 * The finishing step of a video job: the renders the model delivered, made into exactly what the
 * job asked for. A chain of renders (render-plan.ts) is joined into one video: each render after
 * the first starts on the last frame of the one before, so its first frame is dropped and the
 * join shows neither a repeated frame nor a jump. The first `duration_seconds` of the whole are
 * kept, frame-exact at 24 fps, in the requested frame: scaled when the model rendered the ratio
 * natively (Luma Ray2), else shown whole over the blurred fill split clips use (framing/framing.ts;
 * Nova Reel renders 16:9 only). It runs in AWS on the media-tools layer and on the local stack
 * alike, and the file it writes is measured before it is delivered: a video whose length or frame
 * is not the one asked for is never handed over.
 */

export const FINISHED_FPS = 24;
/** How far the finished file's duration may be from the requested one. */
export const DURATION_TOLERANCE_SECONDS = 0.05;
export const FINISHED_FILE_NAME = 'finished.mp4';

export interface FinishingRequest {
  /** Local paths or presigned GET URLs of the delivered renders, in order. */
  inputs: readonly string[];
  /** The renders' frame, as probed from the first. */
  source: { width: number; height: number };
  durationSeconds: DurationSeconds;
  aspectRatio: AspectRatio;
  outputDirectory: string;
}

export interface FinishedVideo {
  path: string;
  durationSeconds: number;
  width: number;
  height: number;
}

/**
 * The renders as one stream `[joined]`: every render at the first's frame, each after the first
 * without its first frame (the start image it was given, which the render before ends on).
 */
export function joinFilter(renders: number, source: { width: number; height: number }): string {
  const parts = Array.from({ length: renders }, (_, index) => {
    const trim = index === 0 ? '' : 'trim=start_frame=1,';
    return `[${index}:v]${trim}setpts=PTS-STARTPTS,scale=${source.width}:${source.height},setsar=1[part${index}]`;
  });
  const pads = parts.map((_, index) => `[part${index}]`).join('');
  return `${parts.join(';')};${pads}concat=n=${renders}:v=1:a=0[joined]`;
}

export function finishingArgs(request: FinishingRequest): string[] {
  const frames = request.durationSeconds * FINISHED_FPS;
  const rate = `fps=${FINISHED_FPS}`;
  const chained = request.inputs.length > 1;
  const filter = chained
    ? `${joinFilter(request.inputs.length, request.source)};${framingFilterGraph(request.aspectRatio, request.source, rate, [], '[joined]')}`
    : framingFilterGraph(request.aspectRatio, request.source, rate);
  return [
    ...FFMPEG_LOG_OPTIONS,
    ...['-nostdin', '-y'],
    ...request.inputs.flatMap((input) => [...networkInputOptions(input), '-i', input]),
    ...['-filter_complex', filter],
    // A sound track, when a model delivers one with a single render, is kept; no model of the
    // registry delivers one, and a chain's sound would not join.
    ...['-map', '[v]', ...(chained ? [] : ['-map', '0:a:0?'])],
    // Both bounds: the frame count makes the video exact, the time bounds a sound track if any.
    ...['-frames:v', String(frames), '-t', String(request.durationSeconds)],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-profile:v', 'high'],
    ...['-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-ar', '48000'],
    ...['-map_metadata', '-1', '-movflags', '+faststart'],
    join(request.outputDirectory, FINISHED_FILE_NAME),
  ];
}

/**
 * Writes the finished video into the output directory and measures it; throws MediaToolError when
 * a render cannot be read or the file is not the requested length and frame, TransientFailure when
 * a render's connection was lost on the way (the file then stops short), and as assertRanToEnd
 * does when ffmpeg fails or runs out of time.
 */
export async function finishVideo(
  request: Omit<FinishingRequest, 'source'> & { ffmpegPath: string; ffprobePath: string; timeoutMs: number },
): Promise<FinishedVideo> {
  const [first] = request.inputs;
  if (first === undefined) throw new Error('A video is finished from one render at least');
  const delivered = await probeVideo(request.ffprobePath, first, request.timeoutMs);
  if (delivered.kind !== 'video') throw new MediaToolError('ffprobe', `The render is unreadable: ${delivered.reason}`);
  const source = { width: delivered.probe.width, height: delivered.probe.height };
  const path = join(request.outputDirectory, FINISHED_FILE_NAME);
  const run = await runMediaTool(request.ffmpegPath, finishingArgs({ ...request, source }), {
    timeoutMs: request.timeoutMs,
  });
  assertRanToEnd(run, 'Finishing the video', first, request.timeoutMs);
  const verdict = await probeVideo(request.ffprobePath, path, request.timeoutMs);
  if (verdict.kind !== 'video')
    throw new MediaToolError('ffmpeg', `The finished video is unreadable: ${verdict.reason}`);
  const { durationSeconds, width, height } = verdict.probe;
  const wanted = OUTPUT_DIMENSIONS[request.aspectRatio];
  if (durationSeconds < request.durationSeconds - DURATION_TOLERANCE_SECONDS) {
    assertNotCutShort(run, `The finished video stopped at ${durationSeconds} of ${request.durationSeconds} s`);
  }
  if (
    Math.abs(durationSeconds - request.durationSeconds) > DURATION_TOLERANCE_SECONDS ||
    width !== wanted.width ||
    height !== wanted.height
  ) {
    throw new MediaToolError(
      'ffmpeg',
      `The finished video is ${width}x${height}, ${durationSeconds} s, not ${wanted.width}x${wanted.height}, ${request.durationSeconds} s: ${request.inputs.length} render(s) of ${source.width}x${source.height}`,
    );
  }
  return { path, durationSeconds, width, height };
}
