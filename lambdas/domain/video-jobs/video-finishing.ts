import { join } from 'node:path';
import type { AspectRatio } from '#contract/types';
import { probeVideo } from '#domain/assets/video-probe';
import { framingFilterGraph } from '#domain/framing/framing';
import { assertRanToEnd, MediaToolError, runMediaTool } from '#platform/media-tools';
import { OUTPUT_DIMENSIONS, type DurationSeconds } from './providers/port';

/**
 * The finishing step of a video job: the video the model delivered, made into exactly what the
 * job asked for. Nova Reel makes 1280x720 at 24 fps in 6 s shots (providers/nova-reel.ts), so a
 * 5 s 9:16 job gets 6 s of 16:9; this step keeps the first `duration_seconds` of it, frame-exact,
 * and puts it in the requested frame with the blurred fill split clips use (framing/framing.ts:
 * nothing the model drew is cut away or enlarged). It runs in AWS on the media-tools layer and on
 * the local stack alike, and the file it writes is measured before it is delivered: a video
 * whose length or frame is not the one asked for is never handed over.
 */

export const FINISHED_FPS = 24;
/** How far the finished file's duration may be from the requested one. */
export const DURATION_TOLERANCE_SECONDS = 0.05;
export const FINISHED_FILE_NAME = 'finished.mp4';

export interface FinishingRequest {
  /** Local path or presigned GET URL of the delivered video. */
  input: string;
  /** The delivered video's frame. */
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

export function finishingArgs(request: FinishingRequest): string[] {
  const frames = request.durationSeconds * FINISHED_FPS;
  return [
    ...['-nostdin', '-hide_banner', '-loglevel', 'error', '-nostats', '-y'],
    ...['-i', request.input],
    ...['-filter_complex', framingFilterGraph(request.aspectRatio, request.source, `fps=${FINISHED_FPS}`)],
    ...['-map', '[v]', '-map', '0:a:0?'],
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
 * ffmpeg fails, runs out of time, or the file is not the requested length and frame.
 */
export async function finishVideo(
  request: FinishingRequest & { ffmpegPath: string; ffprobePath: string; timeoutMs: number },
): Promise<FinishedVideo> {
  const path = join(request.outputDirectory, FINISHED_FILE_NAME);
  const run = await runMediaTool(request.ffmpegPath, finishingArgs(request), { timeoutMs: request.timeoutMs });
  assertRanToEnd(run, 'Finishing the video', request.input, request.timeoutMs);
  const verdict = await probeVideo(request.ffprobePath, path, request.timeoutMs);
  if (verdict.kind !== 'video')
    throw new MediaToolError('ffmpeg', `The finished video is unreadable: ${verdict.reason}`);
  const { durationSeconds, width, height } = verdict.probe;
  const wanted = OUTPUT_DIMENSIONS[request.aspectRatio];
  if (
    Math.abs(durationSeconds - request.durationSeconds) > DURATION_TOLERANCE_SECONDS ||
    width !== wanted.width ||
    height !== wanted.height
  ) {
    throw new MediaToolError(
      'ffmpeg',
      `The finished video is ${width}x${height}, ${durationSeconds} s, not ${wanted.width}x${wanted.height}, ${request.durationSeconds} s: the delivered video was ${request.source.width}x${request.source.height}`,
    );
  }
  return { path, durationSeconds, width, height };
}
