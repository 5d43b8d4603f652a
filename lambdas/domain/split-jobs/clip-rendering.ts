import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AspectRatio } from '#contract/types';
import {
  cropCommands,
  framingFilterGraph,
  STACKED_CROPS,
  stackedFramingFilterGraph,
  SUBJECT_CROP,
  subjectFramingFilterGraph,
} from '#domain/framing/framing';
import type { FramingPlan } from '#domain/framing/people-framing';
import type { MovingCrop } from '#domain/framing/subject-path';
import { captionFontEnvironment, type CaptionFontFiles } from '#platform/caption-fonts';
import {
  assertNotCutShort,
  assertRanToEnd,
  FFMPEG_LOG_OPTIONS,
  ffmpegThreadOptions,
  filterGraphPath,
  MediaToolError,
  networkInputOptions,
  progressSeconds,
  runMediaTool,
} from '#platform/media-tools';
import type { ClipLook } from './clip-store';
import type { TimeRange } from './source-analysis';

/**
 * Renders one clip of a split job: one ffmpeg run cuts, frames and encodes the clip, a second
 * picks its thumbnail from the encoded file. One Lambda invocation renders one clip.
 *
 * Framing: a crop window that follows a person, or two crops stacked for two people, along paths
 * planned beforehand (people-framing.ts), or else the blurred fill (framing.ts).
 *
 * Captions, when asked for: libass draws the ASS document (burnt-in-captions.ts) on the framed
 * picture with the shipped fonts only (lambdas/platform/caption-fonts.ts), before the conversion
 * to the output's pixel format.
 *
 * Cut. `-ss` before `-i` seeks in the input (over HTTP, ffmpeg reads only the ranges it needs);
 * since the clip is re-encoded, the cut is frame-accurate and the clip's timestamps start at 0.
 *
 * Encoding. H.264 High in yuv420p at no more than 30 fps, AAC stereo at 48 kHz, the index at the
 * front: what TikTok, Reels, Shorts, LinkedIn and X all accept as uploaded and browsers play as
 * they download. CRF 23 with preset veryfast and superfast's motion search keeps one clip well
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
  /** How the clip is framed (people-framing.ts): fitted whole when omitted. */
  framing?: FramingPlan;
  /** An existing empty directory; the clip and its thumbnail are written there. */
  outputDirectory: string;
  /** For both ffmpeg runs together. */
  timeoutMs: number;
  /** 0..1 of the clip encoded. */
  onProgress?: (fraction: number) => void;
  /** Captions to draw into the picture: an ASS document sized for the output frame, and its fonts. */
  burntInCaptions?: { assDocument: string; fonts: CaptionFontFiles };
  /** The threads each ffmpeg run may use (see coreShare); ffmpeg's own choice when omitted. */
  threads?: number;
  /** Stops the render (ffmpeg killed, the reason thrown) when aborted: its job ended. */
  signal?: AbortSignal;
}

export interface RenderedClip extends ClipLook {
  videoPath: string;
  thumbnailPath: string;
  durationSeconds: number;
}

export const CLIP_FILE_NAME = 'clip.mp4';
export const THUMBNAIL_FILE_NAME = 'thumbnail.jpg';
/** A crop window's moves, for ffmpeg's sendcmd. */
const cropCommandsFileName = (crop: string) => `crop-path-${crop}.txt`;
/** The burnt-in captions' ASS document, written beside the clip for ffmpeg to read. */
export const BURNT_IN_CAPTIONS_FILE_NAME = 'captions.ass';

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

/** The filter graph from input video to the `[v]` output: frame-rate cap, framing, captions, pixel format. */
function videoFilterGraph(
  request: Pick<ClipRenderRequest, 'aspectRatio' | 'source' | 'framing' | 'outputDirectory' | 'burntInCaptions'>,
): string {
  const capFrameRate = `select='isnan(prev_selected_t)+gte(t-prev_selected_t,${MIN_FRAME_INTERVAL_SECONDS})'`;
  const captions = request.burntInCaptions;
  const overlays = captions
    ? [
        `ass=filename=${filterGraphPath(join(request.outputDirectory, BURNT_IN_CAPTIONS_FILE_NAME))}` +
          `:fontsdir=${filterGraphPath(captions.fonts.fontsDirectory)}`,
      ]
    : [];
  const { framing } = request;
  if (framing?.framing === 'subject') {
    const commandsPath = join(request.outputDirectory, cropCommandsFileName(SUBJECT_CROP));
    return subjectFramingFilterGraph(request.aspectRatio, framing.crop, commandsPath, capFrameRate, overlays);
  }
  if (framing?.framing === 'stacked') {
    const paths = STACKED_CROPS.map((name) => join(request.outputDirectory, cropCommandsFileName(name)));
    return stackedFramingFilterGraph(
      request.aspectRatio,
      framing.crops,
      [paths[0]!, paths[1]!],
      capFrameRate,
      overlays,
    );
  }
  return framingFilterGraph(request.aspectRatio, request.source, capFrameRate, overlays);
}

/** The moving crops of the framing, by the names of their crop filters. */
function movingCrops(framing: FramingPlan | undefined): [string, MovingCrop][] {
  if (framing?.framing === 'subject') return [[SUBJECT_CROP, framing.crop]];
  if (framing?.framing === 'stacked') {
    return [
      [STACKED_CROPS[0], framing.crops[0]],
      [STACKED_CROPS[1], framing.crops[1]],
    ];
  }
  return [];
}

const seconds = (value: number) => value.toFixed(3);

/** The arguments of the run that cuts, frames and encodes the clip into `clip.mp4`. */
export function clipEncodingArgs(
  request: Omit<ClipRenderRequest, 'ffmpegPath' | 'timeoutMs' | 'onProgress' | 'signal'>,
): string[] {
  const { range, source } = request;
  const threads = ffmpegThreadOptions(request.threads);
  const audio = source.hasAudio ? ['-map', '0:a:0', '-c:a', 'aac', '-b:a', '128k', '-ac', '2', '-ar', '48000'] : [];
  return [
    ...FFMPEG_LOG_OPTIONS,
    ...['-progress', 'pipe:1', '-y'],
    ...threads.beforeInput,
    ...['-ss', seconds(range.startSeconds), '-t', seconds(range.endSeconds - range.startSeconds)],
    ...networkInputOptions(request.input),
    ...['-i', request.input],
    ...['-filter_complex', videoFilterGraph(request), '-map', '[v]'],
    // Without vfr the muxer would duplicate the frames the frame-rate cap dropped.
    ...['-vsync', 'vfr'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '23', '-profile:v', 'high'],
    // superfast's motion search (diamond, sub-pixel refinement 1, no inter sub-partitions) with
    // veryfast's lookahead and macroblock tree kept: encoding is most of a split job's time, and
    // this takes a fifth to a quarter less of it than veryfast, for the same SSIM and files from 5%
    // smaller to 8% larger (docs/split-jobs.md, Rendering a clip). superfast itself drops the macroblock tree, and
    // its files at CRF 23 were 2.4 times as large on grainy footage.
    ...['-x264-params', 'me=dia:subme=1:partitions=i8x8,i4x4'],
    ...audio,
    // A phone's recording carries where it was made; the clip is published, its metadata is not.
    ...['-map_metadata', '-1'],
    // The index first, so that a player starts before the whole file has arrived.
    ...['-movflags', '+faststart'],
    ...threads.beforeOutput,
    join(request.outputDirectory, CLIP_FILE_NAME),
  ];
}

/**
 * The arguments of the run that writes a JPEG of the most representative frame near the clip's
 * middle. It reads the rendered clip, not the source: a local file, already framed and sized.
 */
export function thumbnailArgs(
  videoPath: string,
  thumbnailPath: string,
  clipDurationSeconds: number,
  threads?: number,
): string[] {
  const spanStart = Math.max(0, (clipDurationSeconds - THUMBNAIL_SPAN_SECONDS) / 2);
  const threadOptions = ffmpegThreadOptions(threads);
  return [
    ...['-hide_banner', '-loglevel', 'error', '-nostats', '-y'],
    ...threadOptions.beforeInput,
    ...['-ss', seconds(spanStart), '-t', seconds(THUMBNAIL_SPAN_SECONDS), '-i', videoPath],
    ...['-vf', `thumbnail=${THUMBNAIL_CANDIDATE_FRAMES}`, '-frames:v', '1', '-q:v', '3'],
    ...threadOptions.beforeOutput,
    thumbnailPath,
  ];
}

/**
 * Renders the clip and its thumbnail into the output directory; throws as assertRanToEnd does when
 * ffmpeg fails or runs out of time, and TransientFailure when it lost the source on the way.
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
  const crops = movingCrops(request.framing);
  for (const [name, crop] of crops) {
    await writeFile(join(request.outputDirectory, cropCommandsFileName(name)), cropCommands(name, crop), 'utf8');
  }
  const captions = request.burntInCaptions;
  if (captions) {
    await writeFile(join(request.outputDirectory, BURNT_IN_CAPTIONS_FILE_NAME), captions.assDocument, 'utf8');
  }
  const encoding = await runMediaTool(request.ffmpegPath, clipEncodingArgs(request), {
    timeoutMs: request.timeoutMs,
    signal: request.signal,
    environment: captions ? captionFontEnvironment(captions.fonts) : undefined,
    onStdoutLine: (line) => {
      const position = progressSeconds(line);
      if (position === undefined) return;
      encodedSeconds = Math.max(encodedSeconds, position);
      request.onProgress?.(Math.min(1, encodedSeconds / rangeSeconds));
    },
  });
  assertRanToEnd(encoding, 'Rendering the clip', request.input, request.timeoutMs);
  const reachedEnd = encodedSeconds >= rangeSeconds - ENCODED_END_TOLERANCE_SECONDS;
  if (!reachedEnd) assertNotCutShort(encoding, `Rendering the clip stopped at ${encodedSeconds} of ${rangeSeconds} s`);
  if (encodedSeconds <= 0) throw new MediaToolError('ffmpeg', 'The clip range holds no frames of the source');
  const durationSeconds = reachedEnd ? rangeSeconds : encodedSeconds;

  const thumbnailCommand = thumbnailArgs(videoPath, thumbnailPath, durationSeconds, request.threads);
  const thumbnail = await runMediaTool(request.ffmpegPath, thumbnailCommand, {
    timeoutMs: Math.max(1, deadline - Date.now()),
    signal: request.signal,
  });
  assertRanToEnd(thumbnail, 'Making the thumbnail', request.input, request.timeoutMs);
  return {
    videoPath,
    thumbnailPath,
    durationSeconds,
    framing: request.framing?.framing ?? 'fit',
    framingReason: request.framing?.reason ?? null,
    captionsBurnedIn: captions !== undefined,
  };
}
