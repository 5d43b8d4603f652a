import { join } from 'node:path';
import { framingFilterGraph } from '#domain/framing/framing';
import type { RenderFrame } from '#domain/models/model-registry';
import {
  assertInputReached,
  assertRanToEnd,
  FFMPEG_LOG_OPTIONS,
  MediaToolError,
  networkInputOptions,
  runMediaTool,
} from '#platform/media-tools';
import { renderFailed, type RenderFailed } from './providers/port';

/**
 * The images a render starts from, made by ffmpeg as JPEGs of exactly the render's frame, which
 * every model of the registry takes (JPEG, 512 to 4,096 px a side for Ray2, 1280x720 for Nova Reel):
 * - the customer's image, for the first render of an image-to-video job: any JPEG, PNG or WebP
 *   (portrait, square or landscape, transparent or not) of 64 to 8,000 px a side, fitted whole
 *   into the frame without distortion over a blurred, frame-filling copy of itself (the blurred
 *   fill of framing.ts), transparency flattened onto white (a logo or product cut-out reads on white, not on black);
 * - the last frame of a render, for the next render of a chain (render-plan.ts), so that the
 *   chain continues from exactly where the render before it stopped.
 */

/** The sides an image-to-video source may have, in pixels. */
export const SOURCE_IMAGE_SIDES = { min: 64, max: 8000 } as const;

export const SOURCE_IMAGE_SIDES_MESSAGE = `The source image must be a JPEG, PNG or WebP image from ${SOURCE_IMAGE_SIDES.min} to ${SOURCE_IMAGE_SIDES.max.toLocaleString('en-US')} pixels on each side.`;

export const KEYFRAME_FILE_NAME = 'keyframe.jpg';

/** JPEG at quality 2 on ffmpeg's scale of 2 to 31: the join shows no loss. */
const JPEG_QUALITY = ['-q:v', '2'];

interface MediaTools {
  ffmpegPath: string;
  ffprobePath: string;
  timeoutMs: number;
}

const even = (value: number) => Math.max(2, 2 * Math.round(value / 2));

/** The size of an image fitted whole inside the frame. */
export function fittedSize(image: { width: number; height: number }, frame: { width: number; height: number }) {
  const scale = Math.min(frame.width / image.width, frame.height / image.height);
  return {
    width: Math.min(frame.width, even(image.width * scale)),
    height: Math.min(frame.height, even(image.height * scale)),
  };
}

/**
 * The filter graph from the image (`[0:v]`) to the keyframe `[v]`: the image shrunk to fit the
 * frame (so that an 8,000 px picture is not flattened at full size), its transparency flattened
 * onto white, then fitted into the frame as split clips and finished videos are (framing.ts). The
 * flattening blends in RGB: in overlay's default (limited-range YUV) white comes out grey.
 */
export function sourceKeyframeFilter(image: { width: number; height: number }, frame: RenderFrame): string {
  const fitted = fittedSize(image, frame);
  return [
    `[0:v]format=rgba,scale=${fitted.width}:${fitted.height}:flags=bicubic[cutout]`,
    `color=c=white:s=${fitted.width}x${fitted.height}:d=1,format=rgba[paper]`,
    `[paper][cutout]overlay=shortest=1:format=rgb,format=rgb24[flat]`,
    framingFilterGraph(frame.aspectRatio, fitted, 'setsar=1', [], '[flat]'),
  ].join(';');
}

/** Width and height of the first picture of a file ffprobe can read, or undefined. */
async function imageSize(tools: MediaTools, input: string): Promise<{ width: number; height: number } | undefined> {
  const run = await runMediaTool(
    tools.ffprobePath,
    [
      ...['-v', 'warning', ...networkInputOptions(input), '-select_streams', 'v:0'],
      ...['-show_entries', 'stream=width,height', '-of', 'json', input],
    ],
    { timeoutMs: tools.timeoutMs, collectStdout: true, maxStdoutBytes: 64 * 1024 },
  );
  if (run.timedOut) throw new Error(`ffprobe did not answer within ${tools.timeoutMs} ms`);
  assertInputReached(run, 'Reading the size of the source image');
  if (run.exitCode !== 0) return undefined;
  const stream = (JSON.parse(run.stdout) as { streams?: { width?: number; height?: number }[] }).streams?.[0];
  return stream?.width && stream.height ? { width: stream.width, height: stream.height } : undefined;
}

/**
 * Writes the keyframe of a source image into `directory`. An image ffmpeg cannot read or decode,
 * or of sides out of bounds, is the customer's to change: SOURCE_IMAGE_UNSUPPORTED. An ffmpeg
 * that runs out of time is ours, and thrown.
 */
export async function prepareSourceKeyframe(
  request: MediaTools & { input: string; frame: RenderFrame; directory: string },
): Promise<{ state: 'prepared'; path: string } | RenderFailed> {
  const size = await imageSize(request, request.input);
  if (!size) return renderFailed('SOURCE_IMAGE_UNSUPPORTED');
  const { min, max } = SOURCE_IMAGE_SIDES;
  if (Math.min(size.width, size.height) < min || Math.max(size.width, size.height) > max) {
    return renderFailed('SOURCE_IMAGE_UNSUPPORTED', SOURCE_IMAGE_SIDES_MESSAGE);
  }
  const path = join(request.directory, KEYFRAME_FILE_NAME);
  const run = await runMediaTool(
    request.ffmpegPath,
    [
      ...FFMPEG_LOG_OPTIONS,
      ...['-nostdin', '-y'],
      ...networkInputOptions(request.input),
      ...['-i', request.input],
      ...['-filter_complex', sourceKeyframeFilter(size, request.frame), '-map', '[v]'],
      ...['-frames:v', '1', ...JPEG_QUALITY, path],
    ],
    { timeoutMs: request.timeoutMs },
  );
  try {
    assertRanToEnd(run, 'Preparing the source image', request.input, request.timeoutMs);
  } catch (error) {
    // Only an image that does not decode is the customer's; a lost connection is tried again.
    if (error instanceof MediaToolError) return renderFailed('SOURCE_IMAGE_UNSUPPORTED');
    throw error;
  }
  return { state: 'prepared', path };
}

/**
 * Writes the last frame of a render into `directory`, at the frame's size. ffmpeg decodes the
 * render's last second and overwrites one file with every frame, leaving the last.
 */
export async function extractLastFrame(
  request: MediaTools & { input: string; frame: RenderFrame; directory: string },
): Promise<string> {
  const path = join(request.directory, KEYFRAME_FILE_NAME);
  const run = await runMediaTool(
    request.ffmpegPath,
    [
      ...FFMPEG_LOG_OPTIONS,
      ...['-nostdin', '-y'],
      ...['-sseof', '-1', ...networkInputOptions(request.input), '-i', request.input],
      ...['-vf', `scale=${request.frame.width}:${request.frame.height},setsar=1,format=yuvj420p`],
      ...['-an', '-update', '1', ...JPEG_QUALITY, path],
    ],
    { timeoutMs: request.timeoutMs },
  );
  assertRanToEnd(run, 'Taking the last frame of a render', request.input, request.timeoutMs);
  return path;
}
