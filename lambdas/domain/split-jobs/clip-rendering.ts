import { join } from 'node:path';
import type { AspectRatio } from '#contract/types';
import { OUTPUT_DIMENSIONS } from '#domain/video-jobs/providers/port';
import { MediaToolError, progressSeconds, runMediaTool, type MediaToolRun } from '#platform/media-tools';
import type { TimeRange } from './source-analysis';

/**
 * Renders one clip of a split job: one ffmpeg run cuts, frames and encodes the clip, a second
 * picks its thumbnail from the encoded file. One Lambda invocation renders one clip.
 *
 * Framing. A source whose aspect ratio is the target's (within 2%) is scaled to the target size.
 * Any other source is shown whole, scaled to fit and centred, over a blurred copy of itself that
 * fills the frame (a "blurred fill"). Cropping to the target would cut away half of a slide, one
 * of two people in an interview or the edge of on-screen text, and following the subject needs a
 * tracking pass; the blurred fill loses nothing. The blur is made at an eighth of the target size
 * and scaled back up: rendering 30 s of 1280x720 to 720x1280 took about a fifth more CPU time than
 * a plain crop this way, and three quarters more with the blur done at full size.
 *
 * Cut. `-ss` before `-i` seeks in the input (over HTTP, ffmpeg reads only the ranges it needs);
 * since the clip is re-encoded, the cut is frame-accurate and the clip's timestamps start at 0.
 *
 * Encoding. H.264 High in yuv420p at no more than 30 fps, AAC stereo at 48 kHz, the index at the
 * front: what TikTok, Reels, Shorts, LinkedIn and X all accept as uploaded and browsers play as
 * they download. CRF 23 with preset veryfast (and its diamond motion search) keeps one clip well
 * inside one invocation.
 */

export interface ClipRenderRequest {
  ffmpegPath: string;
  /** Local file path or http(s) presigned GET URL of the source (ffmpeg reads ranges of it). */
  input: string;
  /** In source seconds. */
  range: TimeRange;
  aspectRatio: AspectRatio;
  /** The frame as displayed (rotation applied, as video-probe.ts reports it), and whether there is sound. */
  source: { width: number; height: number; hasAudio: boolean };
  /** An existing empty directory; the clip and its thumbnail are written there. */
  outputDirectory: string;
  /** For both ffmpeg runs together. */
  timeoutMs: number;
  /** 0..1 of the clip encoded. */
  onProgress?: (fraction: number) => void;
}

export interface RenderedClip {
  videoPath: string;
  thumbnailPath: string;
  durationSeconds: number;
}

export const CLIP_FILE_NAME = 'clip.mp4';
export const THUMBNAIL_FILE_NAME = 'thumbnail.jpg';

/** Aspect ratios closer than this are the same layout: a 2% stretch is invisible, bars of 2% are not. */
const SAME_ASPECT_TOLERANCE = 0.02;
/** The blurred background is made at this fraction of the target size. */
const BACKGROUND_SCALE = 1 / 8;
/** Box blur radius (at the reduced size) and passes: the background is colour, not detail. */
const BACKGROUND_BLUR = '10:2';
/**
 * Frames closer together than this are dropped, which caps the frame rate at 30 fps without knowing
 * the source's: 60 fps keeps every other frame, 30 fps (timestamps jitter by a millisecond or so)
 * and lower keep them all. The `fps` filter would need the source rate, and `-fpsmax` is newer
 * than the ffmpeg 4.1 builds this runs on.
 */
const MIN_FRAME_INTERVAL_SECONDS = 1 / 32;
/** The thumbnail is the most representative frame of this span around the middle of the clip. */
const THUMBNAIL_SPAN_SECONDS = 2;
/** Frames the `thumbnail` filter compares: the whole span at the 30 fps cap. */
const THUMBNAIL_CANDIDATE_FRAMES = 60;
/**
 * The last `out_time` reports where the last packet was written, one video frame (or audio frame)
 * short of the clip's end; an encode that ended closer than this to the range's end reached it.
 */
const ENCODED_END_TOLERANCE_SECONDS = 0.5;

const even = (value: number) => Math.max(2, 2 * Math.round(value / 2));

/** The filter graph from input video to the `[v]` output: frame-rate cap, framing, pixel format. */
function videoFilterGraph(request: Pick<ClipRenderRequest, 'aspectRatio' | 'source'>): string {
  const { width, height } = OUTPUT_DIMENSIONS[request.aspectRatio];
  const capFrameRate = `select='isnan(prev_selected_t)+gte(t-prev_selected_t,${MIN_FRAME_INTERVAL_SECONDS})'`;
  const sourceAspect = request.source.width / request.source.height;
  const targetAspect = width / height;
  if (Math.abs(sourceAspect / targetAspect - 1) <= SAME_ASPECT_TOLERANCE) {
    return `[0:v]${capFrameRate},scale=${width}:${height},setsar=1,format=yuv420p[v]`;
  }
  const backgroundWidth = even(width * BACKGROUND_SCALE);
  const backgroundHeight = even(height * BACKGROUND_SCALE);
  // -2 keeps the source's proportions with an even size along the side that does not fill the target.
  const fit = sourceAspect > targetAspect ? `${width}:-2` : `-2:${height}`;
  return [
    `[0:v]${capFrameRate},split=2[background][foreground]`,
    `[background]scale=${backgroundWidth}:${backgroundHeight}:force_original_aspect_ratio=increase,` +
      `crop=${backgroundWidth}:${backgroundHeight},boxblur=${BACKGROUND_BLUR},` +
      // The cheapest scaler is enough for a picture that is a blur anyway.
      `scale=${width}:${height}:flags=fast_bilinear,setsar=1[blurred]`,
    `[foreground]scale=${fit},setsar=1[fitted]`,
    `[blurred][fitted]overlay=(W-w)/2:(H-h)/2,format=yuv420p[v]`,
  ].join(';');
}

const seconds = (value: number) => value.toFixed(3);

/** The arguments of the run that cuts, frames and encodes the clip into `clip.mp4`. */
export function clipEncodingArgs(
  request: Omit<ClipRenderRequest, 'ffmpegPath' | 'timeoutMs' | 'onProgress'>,
): string[] {
  const { range, source } = request;
  const audio = source.hasAudio ? ['-map', '0:a:0', '-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-ar', '48000'] : [];
  return [
    ...['-hide_banner', '-loglevel', 'error', '-nostats', '-progress', 'pipe:1', '-y'],
    ...['-ss', seconds(range.startSeconds), '-t', seconds(range.endSeconds - range.startSeconds)],
    ...['-i', request.input],
    ...['-filter_complex', videoFilterGraph(request), '-map', '[v]'],
    // Without vfr the muxer would duplicate the frames the frame-rate cap dropped.
    ...['-vsync', 'vfr'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-profile:v', 'high'],
    // Diamond motion search (superfast's) instead of veryfast's hexagon: encoding is most of a split
    // job's time, and at CRF 23 this saves about a tenth of it for the same file size.
    ...['-x264-params', 'me=dia'],
    ...audio,
    // A phone's recording carries where it was made; the clip is published, its metadata is not.
    ...['-map_metadata', '-1'],
    // The index first, so that a player starts before the whole file has arrived.
    ...['-movflags', '+faststart'],
    join(request.outputDirectory, CLIP_FILE_NAME),
  ];
}

/**
 * The arguments of the run that writes a JPEG of the most representative frame near the clip's
 * middle. It reads the rendered clip, not the source: a local file, already framed and sized.
 */
export function thumbnailArgs(videoPath: string, thumbnailPath: string, clipDurationSeconds: number): string[] {
  const spanStart = Math.max(0, (clipDurationSeconds - THUMBNAIL_SPAN_SECONDS) / 2);
  return [
    ...['-hide_banner', '-loglevel', 'error', '-nostats', '-y'],
    ...['-ss', seconds(spanStart), '-t', seconds(THUMBNAIL_SPAN_SECONDS), '-i', videoPath],
    ...['-vf', `thumbnail=${THUMBNAIL_CANDIDATE_FRAMES}`, '-frames:v', '1', '-q:v', '3'],
    thumbnailPath,
  ];
}

/** ffmpeg's last error line, without the input's name: a presigned URL is a credential. */
function failureDetail(run: MediaToolRun, input: string): string {
  const lastLine = run.stderrTail.split('\n').at(-1) ?? '';
  return lastLine
    .split(input)
    .join('<source>')
    .replace(/https?:\/\/\S+/g, '<url>')
    .slice(0, 200);
}

function assertSucceeded(run: MediaToolRun, task: string, input: string, timeoutMs: number) {
  if (run.timedOut) throw new MediaToolError('ffmpeg', `${task} timed out after ${timeoutMs} ms`);
  if (run.exitCode !== 0) {
    throw new MediaToolError('ffmpeg', `${task} failed (exit code ${run.exitCode}): ${failureDetail(run, input)}`);
  }
}

/**
 * Renders the clip and its thumbnail into the output directory; throws MediaToolError when ffmpeg
 * fails or runs out of time.
 *
 * The duration is not probed afterwards (one process fewer): it is the range's length when the
 * encode reached the range's end, and the encoded length when the source ended earlier.
 */
export async function renderClip(request: ClipRenderRequest): Promise<RenderedClip> {
  const deadline = Date.now() + request.timeoutMs;
  const videoPath = join(request.outputDirectory, CLIP_FILE_NAME);
  const thumbnailPath = join(request.outputDirectory, THUMBNAIL_FILE_NAME);
  const rangeSeconds = request.range.endSeconds - request.range.startSeconds;
  let encodedSeconds = 0;
  const encoding = await runMediaTool(request.ffmpegPath, clipEncodingArgs(request), {
    timeoutMs: request.timeoutMs,
    onStdoutLine: (line) => {
      const position = progressSeconds(line);
      if (position === undefined) return;
      encodedSeconds = Math.max(encodedSeconds, position);
      request.onProgress?.(Math.min(1, encodedSeconds / rangeSeconds));
    },
  });
  assertSucceeded(encoding, 'Rendering the clip', request.input, request.timeoutMs);
  if (encodedSeconds <= 0) throw new MediaToolError('ffmpeg', 'The clip range holds no frames of the source');
  const durationSeconds =
    encodedSeconds >= rangeSeconds - ENCODED_END_TOLERANCE_SECONDS ? rangeSeconds : encodedSeconds;

  const thumbnailTimeoutMs = Math.max(1, deadline - Date.now());
  const thumbnail = await runMediaTool(request.ffmpegPath, thumbnailArgs(videoPath, thumbnailPath, durationSeconds), {
    timeoutMs: thumbnailTimeoutMs,
  });
  assertSucceeded(thumbnail, 'Making the thumbnail', request.input, request.timeoutMs);
  return { videoPath, thumbnailPath, durationSeconds };
}
