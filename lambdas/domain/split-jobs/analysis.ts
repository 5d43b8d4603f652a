import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assertNotCutShort,
  assertRanToEnd,
  FFMPEG_LOG_OPTIONS,
  ffmpegThreadOptions,
  filterGraphPath,
  networkInputOptions,
  progressSeconds,
  runMediaTool,
} from '#platform/media-tools';
import { SUBJECT_SAMPLE_RATE } from '#domain/framing/subject-window';
import {
  ANALYSIS_WINDOW_SECONDS,
  LOUDNESS_FLOOR_DB,
  SILENCE_THRESHOLD_DB,
  type SegmentAnalysis,
  type SourceAnalysis,
  type TimeRange,
} from './source-analysis';

/**
 * Measures a source for clip selection in one ffmpeg decoding pass per time segment: scene
 * changes and motion from a small, slow copy of the picture, loudness and silences from a mono
 * 8 kHz copy of the sound. Long sources are cut into segments (analysisSegments) analysed in
 * parallel and merged in order (mergeSegmentAnalyses).
 */

/**
 * About as many frames a second are scored for scene changes: a cut is placed within about 0.1 s,
 * and a 30 fps source has a third of its frames scaled and scored.
 */
export const ANALYSIS_FRAME_RATE = 10;
/**
 * A decoded frame is scored when at least this share of 1 / ANALYSIS_FRAME_RATE has passed since
 * the last one scored: every second frame of 25 fps (12.5 a second), every third of 30 fps (10),
 * every fifth of 60 fps (12). The whole interval would keep every third frame of 25 fps (8.3 a
 * second), and rounding could make it every fourth of 30 fps.
 */
const ANALYSIS_FRAME_INTERVAL_SLACK = 0.75;
/** Width frames are scaled to before scoring: a cut changes most pixels at any size, and scoring cost grows with area. */
export const ANALYSIS_FRAME_WIDTH = 320;
/**
 * The scaler that shrinks them: `area` averages each output pixel's block of source pixels, which
 * is all a score needs, at a third of the default bicubic's cost; on grainy 1080p that was a tenth
 * of the analysis' CPU time. Pictures people see are scaled with the default.
 */
const ANALYSIS_SCALER = 'area';
/** Sample rate loudness is measured at: enough for speech and music energy, cheap to resample to. */
export const ANALYSIS_SAMPLE_RATE = 8000;
/** Loudness is measured on windows this long: silence edges are placed to within it. */
export const LOUDNESS_STEP_SECONDS = 0.1;
/**
 * A frame whose scene score (ffmpeg's select filter, 0 to 1) exceeds this starts a new shot. Hard
 * cuts score 0.5 and up; fast pans and flashes stay mostly below.
 */
export const SCENE_CUT_THRESHOLD = 0.35;
/** Cuts closer than this to the previous one are dropped: a flash or a dissolve counts once. */
export const MIN_SCENE_CUT_GAP_SECONDS = 1;
/** Quieter stretches shorter than this are pauses between words, not silences worth cutting at. */
export const MIN_SILENCE_SECONDS = 0.4;

const SCENE_SCORE_KEY = 'lavfi.scene_score';
/**
 * The pixel format frames are scene-scored in. The select filter of ffmpeg 4.1 takes packed RGB
 * only, and scores the difference over all three colours; that of 5.1 also takes YUV, and then
 * scores the luma alone, so that a cut from blue to green scores 1 on one and 0.4 on the other.
 * Given RGB, both compute the same score (to the last digit printed), on which the cut threshold
 * and the motion measure were set.
 */
const SCENE_PIXEL_FORMAT = 'rgb24';
const RMS_LEVEL_KEY = 'lavfi.astats.Overall.RMS_level';
/** Float slack for times built from sums of 0.1 s steps. */
const TIME_EPSILON = 1e-6;
/** A segment whose picture or sound decoded to this close to its end decoded to its end. */
const DECODED_END_TOLERANCE_SECONDS = ANALYSIS_WINDOW_SECONDS;

export interface AnalyseSegmentOptions {
  ffmpegPath: string;
  /** A local file path or an http(s) presigned GET URL of the source (ffmpeg reads it with range requests). */
  input: string;
  /** The part of the source to analyse. */
  range: TimeRange;
  /** From ffprobe; without audio, loudness is LOUDNESS_FLOOR_DB throughout and there are no silences. */
  hasAudio: boolean;
  timeoutMs: number;
  /** Source seconds analysed so far within the range (monotonic), called as ffmpeg reports progress. */
  onProgress?: (analysedSeconds: number) => void;
  /**
   * Where to write frames sampled for subject framing, SUBJECT_SAMPLE_RATE a second from the
   * range's start, as consecutive rgb24 frames of the given size; none when omitted.
   */
  subjectFrames?: { path: string; width: number; height: number };
  /** The threads its decoder and filters may use (see coreShare); ffmpeg's own choice when omitted. */
  threads?: number;
  /** Stops the analysis (ffmpeg killed, the reason thrown) when aborted: its job ended. */
  signal?: AbortSignal;
}

/** One value a metadata filter printed for one frame, at the frame's time (seconds from the range start). */
export interface FrameValue {
  timeSeconds: number;
  value: number;
}

const roundToMilliseconds = (seconds: number) => Math.round(seconds * 1000) / 1000;

const windowCount = (lengthSeconds: number) =>
  Math.max(0, Math.ceil(lengthSeconds / ANALYSIS_WINDOW_SECONDS - TIME_EPSILON));

const windowIndex = (timeSeconds: number) => Math.floor((timeSeconds + TIME_EPSILON) / ANALYSIS_WINDOW_SECONDS);

function parseMetadataNumber(text: string): number {
  // astats prints `-inf` for digital silence, which Number() does not read.
  if (/^[+-]?inf$/i.test(text)) return text.startsWith('-') ? -Infinity : Infinity;
  return Number(text);
}

/**
 * Reads what the `metadata=print` / `ametadata=print` filters write: a `frame:N pts:P pts_time:T`
 * line per frame, then one `key=value` line per printed key. Frames without the key, or with a
 * value that is not a number, are left out.
 */
export function parseMetadataPrint(text: string, key: string): FrameValue[] {
  const values: FrameValue[] = [];
  let frameTime: number | undefined;
  for (const line of text.split('\n')) {
    const frame = /^frame:\d+\s+pts:\S+\s+pts_time:(\S+)/.exec(line);
    if (frame) {
      frameTime = Number(frame[1]);
      continue;
    }
    const separator = line.indexOf('=');
    if (frameTime === undefined || separator < 0 || line.slice(0, separator) !== key) continue;
    const value = parseMetadataNumber(line.slice(separator + 1).trim());
    if (Number.isFinite(frameTime) && !Number.isNaN(value)) values.push({ timeSeconds: frameTime, value });
  }
  return values;
}

/** Per analysis window, the RMS level of its loudness steps averaged as power, in dBFS, never below the floor. */
function loudnessWindows(levels: readonly FrameValue[], count: number): number[] {
  const power = new Array<number>(count).fill(0);
  const steps = new Array<number>(count).fill(0);
  for (const { timeSeconds, value } of levels) {
    const index = windowIndex(timeSeconds);
    if (index < 0 || index >= count) continue;
    power[index]! += 10 ** (value / 10);
    steps[index]! += 1;
  }
  return power.map((sum, index) => {
    const stepCount = steps[index]!;
    const level = stepCount > 0 ? 10 * Math.log10(sum / stepCount) : LOUDNESS_FLOOR_DB;
    return roundToMilliseconds(Math.max(LOUDNESS_FLOOR_DB, level));
  });
}

/** Per analysis window, the mean scene score of its frames (0 where no frame fell). */
function motionWindows(scores: readonly FrameValue[], count: number): number[] {
  const sums = new Array<number>(count).fill(0);
  const frames = new Array<number>(count).fill(0);
  for (const { timeSeconds, value } of scores) {
    const index = windowIndex(timeSeconds);
    if (index < 0 || index >= count) continue;
    sums[index]! += value;
    frames[index]! += 1;
  }
  return sums.map((sum, index) => (frames[index]! > 0 ? roundToMilliseconds(sum / frames[index]!) : 0));
}

/** Cut times in order, without those closer than the minimum gap to the last one kept. */
function spacedCuts(times: readonly number[]): number[] {
  const cuts: number[] = [];
  for (const time of times) {
    const previous = cuts.at(-1);
    if (previous === undefined || time - previous >= MIN_SCENE_CUT_GAP_SECONDS - TIME_EPSILON) cuts.push(time);
  }
  return cuts;
}

/** Runs of consecutive loudness steps below the silence threshold, at least the minimum long, within [0, length]. */
function silenceRanges(levels: readonly FrameValue[], lengthSeconds: number): TimeRange[] {
  const silences: TimeRange[] = [];
  let run: TimeRange | undefined;
  const close = () => {
    if (run && run.endSeconds - run.startSeconds >= MIN_SILENCE_SECONDS - TIME_EPSILON) silences.push(run);
    run = undefined;
  };
  for (const { timeSeconds, value } of levels) {
    const quiet = value < SILENCE_THRESHOLD_DB;
    // A gap in the steps (audio missing for a while) ends a run: missing sound is not known silence.
    const contiguous = run !== undefined && timeSeconds - run.endSeconds <= LOUDNESS_STEP_SECONDS / 2;
    if (!quiet || !contiguous) close();
    if (!quiet) continue;
    const endSeconds = Math.min(lengthSeconds, timeSeconds + LOUDNESS_STEP_SECONDS);
    run = run ? { ...run, endSeconds } : { startSeconds: timeSeconds, endSeconds };
  }
  close();
  return silences;
}

/**
 * Where the scored frames show the picture reaching (seconds from the range start): the last one's
 * time plus the source's usual interval between them (their median gap), so that a source of one
 * frame a second, a still picture under a podcast, reaches its end as a 30 fps one does.
 */
function pictureEnd(scores: readonly FrameValue[]): number {
  const last = scores.at(-1);
  if (!last) return 0;
  const gaps = scores
    .slice(1)
    .map((frame, index) => frame.timeSeconds - scores[index]!.timeSeconds)
    .sort((a, b) => a - b);
  const usualGap = gaps.length > 0 ? gaps[Math.floor(gaps.length / 2)]! : 0;
  return last.timeSeconds + Math.max(1 / ANALYSIS_FRAME_RATE, usualGap);
}

/**
 * A segment's analysis from the metadata ffmpeg printed for it (times relative to the range
 * start), in source time. `loudnessText` is ignored for a source without audio.
 */
export function segmentAnalysisFromMetadata(input: {
  range: TimeRange;
  hasAudio: boolean;
  sceneText: string;
  loudnessText: string;
}): SegmentAnalysis {
  const { range, hasAudio } = input;
  const lengthSeconds = range.endSeconds - range.startSeconds;
  const count = windowCount(lengthSeconds);
  // The first audio frame may start a few milliseconds early (encoder priming): it is left out.
  const inRange = (frame: FrameValue) => frame.timeSeconds >= -TIME_EPSILON && frame.timeSeconds < lengthSeconds;
  const scores = parseMetadataPrint(input.sceneText, SCENE_SCORE_KEY).filter(inRange);
  const levels = hasAudio ? parseMetadataPrint(input.loudnessText, RMS_LEVEL_KEY).filter(inRange) : [];
  const inSource = (seconds: number) => roundToMilliseconds(range.startSeconds + seconds);
  const decodedSeconds = Math.max(
    pictureEnd(scores),
    levels.length > 0 ? levels.at(-1)!.timeSeconds + LOUDNESS_STEP_SECONDS : 0,
  );
  return {
    startSeconds: range.startSeconds,
    endSeconds: range.endSeconds,
    loudnessDb: hasAudio ? loudnessWindows(levels, count) : new Array<number>(count).fill(LOUDNESS_FLOOR_DB),
    motion: motionWindows(scores, count),
    sceneCuts: spacedCuts(
      scores.filter((frame) => frame.value > SCENE_CUT_THRESHOLD).map((frame) => frame.timeSeconds),
    ).map(inSource),
    silences: silenceRanges(levels, lengthSeconds).map((silence) => ({
      startSeconds: inSource(silence.startSeconds),
      endSeconds: inSource(silence.endSeconds),
    })),
    hasAudio,
    decodedEndSeconds:
      decodedSeconds >= lengthSeconds - DECODED_END_TOLERANCE_SECONDS ? range.endSeconds : inSource(decodedSeconds),
  };
}

/**
 * A listener for the `-progress pipe:1` lines of a run over `lengthSeconds`: calls `onProgress`
 * with the seconds analysed, only when they grew, never beyond the length.
 */
export function progressListener(
  lengthSeconds: number,
  onProgress: (analysedSeconds: number) => void,
): (line: string) => void {
  let reported = 0;
  return (line) => {
    const seconds = progressSeconds(line);
    if (seconds === undefined) return;
    const analysed = Math.min(lengthSeconds, seconds);
    if (analysed <= reported) return;
    reported = analysed;
    onProgress(analysed);
  };
}

function analysisFilterGraph(
  options: Pick<AnalyseSegmentOptions, 'hasAudio' | 'subjectFrames'>,
  sceneFile: string,
  loudnessFile: string,
): string {
  // The scene score is computed on whatever frames reach the second select: the first thins the
  // decoded frames (ANALYSIS_FRAME_INTERVAL_SLACK) and scale shrinks them, so it compares small
  // frames about a tenth of a second apart. Not the fps filter: where the decoder skipped frames
  // (see analysisArguments) it would repeat one to fill its grid, and the frame after a repeat
  // would score its whole motion as a change: a false cut in a fast pan. The quotes keep the
  // expressions' commas inside each select.
  const minimumInterval = ANALYSIS_FRAME_INTERVAL_SLACK / ANALYSIS_FRAME_RATE;
  const thinned = [
    `[0:v:0]select='isnan(prev_selected_t)+gte(t-prev_selected_t,${minimumInterval})'`,
    `scale=${ANALYSIS_FRAME_WIDTH}:-2:flags=${ANALYSIS_SCALER}`,
  ].join(',');
  const scored = [
    `format=${SCENE_PIXEL_FORMAT}`,
    `select='gte(scene,0)'`,
    `metadata=print:key=${SCENE_SCORE_KEY}:file=${filterGraphPath(sceneFile)}`,
  ];
  // The subject's frames are taken from the small copy already made: sampling them costs a few
  // scaled frames a second. The fps filter's grid from 0 puts frame k at k / SUBJECT_SAMPLE_RATE
  // seconds into the range; a repeated frame where the decoder skipped some does no harm there.
  const frames = options.subjectFrames;
  const video = frames
    ? `${thinned},split=2[scored][sampled];[scored]${scored.join(',')}[video];` +
      `[sampled]fps=fps=${SUBJECT_SAMPLE_RATE}:start_time=0,scale=${frames.width}:${frames.height},format=rgb24[subject]`
    : `${[thinned, ...scored].join(',')}[video]`;
  if (!options.hasAudio) return video;
  const samplesPerStep = Math.round(ANALYSIS_SAMPLE_RATE * LOUDNESS_STEP_SECONDS);
  // reset=1 makes astats measure each step on its own instead of everything so far.
  const audio = [
    `[0:a:0]aresample=${ANALYSIS_SAMPLE_RATE}`,
    'aformat=channel_layouts=mono',
    `asetnsamples=n=${samplesPerStep}:p=0`,
    'astats=metadata=1:reset=1',
    `ametadata=print:key=${RMS_LEVEL_KEY}:file=${filterGraphPath(loudnessFile)}[audio]`,
  ].join(',');
  return `${video};${audio}`;
}

function analysisArguments(options: AnalyseSegmentOptions, sceneFile: string, loudnessFile: string): string[] {
  const { range, hasAudio } = options;
  return [
    ...FFMPEG_LOG_OPTIONS,
    ...['-nostdin', '-progress', 'pipe:1'],
    // Skipping H.264/HEVC deblocking speeds decoding by 10–15%; the slight blockiness it leaves
    // is invisible at the analysis size. Skipping the frames no other frame refers to (most
    // B-frames) saves a tenth to a third more where a source has them, and leaves more frames
    // than the analysis scores: in a 25 or 30 fps source with B-frames, at least every third.
    ...['-skip_loop_filter', 'all', '-skip_frame', 'noref'],
    // Its outputs are a null muxer and raw frames: only the decoder and the filters have threads.
    ...ffmpegThreadOptions(options.threads).beforeInput,
    ...['-ss', range.startSeconds.toFixed(3), '-t', (range.endSeconds - range.startSeconds).toFixed(3)],
    ...networkInputOptions(options.input),
    ...['-i', options.input],
    ...['-filter_complex', analysisFilterGraph(options, sceneFile, loudnessFile)],
    ...['-map', '[video]', ...(hasAudio ? ['-map', '[audio]'] : [])],
    ...['-f', 'null', '-'],
    ...(options.subjectFrames ? ['-map', '[subject]', '-f', 'rawvideo', options.subjectFrames.path] : []),
  ];
}

/**
 * Analyses one time range of the source in one ffmpeg process. Throws MediaToolError when the
 * source does not decode, TransientFailure when it could not be read (a 5xx, a connection lost and
 * not regained, even where ffmpeg then ended as if the input had), MediaToolTimeout or
 * MediaToolUnavailable when ffmpeg ran out of time or could not start; no message contains the input.
 */
export async function analyseSegment(options: AnalyseSegmentOptions): Promise<SegmentAnalysis> {
  const { range } = options;
  const lengthSeconds = range.endSeconds - range.startSeconds;
  const label = `The analysis of ${range.startSeconds}–${range.endSeconds} s`;
  const directory = await mkdtemp(join(tmpdir(), 'split-analysis-'));
  try {
    const sceneFile = join(directory, 'scene.txt');
    const loudnessFile = join(directory, 'loudness.txt');
    const run = await runMediaTool(options.ffmpegPath, analysisArguments(options, sceneFile, loudnessFile), {
      timeoutMs: options.timeoutMs,
      onStdoutLine: options.onProgress ? progressListener(lengthSeconds, options.onProgress) : undefined,
      signal: options.signal,
    });
    assertRanToEnd(run, label, options.input, options.timeoutMs);
    const [sceneText, loudnessText] = await Promise.all([
      readFile(sceneFile, 'utf8'),
      options.hasAudio ? readFile(loudnessFile, 'utf8') : '',
    ]);
    const analysis = segmentAnalysisFromMetadata({ range, hasAudio: options.hasAudio, sceneText, loudnessText });
    if (analysis.decodedEndSeconds < range.endSeconds) assertNotCutShort(run, label);
    options.onProgress?.(lengthSeconds);
    return analysis;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/**
 * Consecutive ranges covering [0, duration], as equal as the analysis window grid allows, none
 * longer than `maxSegmentSeconds`. Every range starts on the grid, so merged windows line up.
 */
export function analysisSegments(durationSeconds: number, maxSegmentSeconds: number): TimeRange[] {
  if (!(durationSeconds > 0)) return [];
  const windowsPerSegment = Math.floor(maxSegmentSeconds / ANALYSIS_WINDOW_SECONDS);
  if (windowsPerSegment < 1) {
    throw new RangeError(`A segment must hold at least one ${ANALYSIS_WINDOW_SECONDS} s analysis window`);
  }
  const totalWindows = windowCount(durationSeconds);
  const count = Math.ceil(totalWindows / windowsPerSegment);
  const boundary = (index: number) =>
    index === count ? durationSeconds : Math.floor((index * totalWindows) / count) * ANALYSIS_WINDOW_SECONDS;
  return Array.from({ length: count }, (_, index) => ({
    startSeconds: boundary(index),
    endSeconds: boundary(index + 1),
  }));
}

/**
 * The whole source from its segments, given in order, contiguous from 0, each starting on the
 * window grid (as analysisSegments makes them). A cut found on both sides of a seam counts once;
 * a silence running across a seam becomes one. The source ends where the last segment that
 * decoded anything stops: nothing after it is chosen, priced or claimed. A segment that stopped
 * short of its end with a later one decoding is a pause in the picture (a screen recording's
 * still, with no sound over it), not the end of the file.
 */
export function mergeSegmentAnalyses(segments: readonly SegmentAnalysis[]): SourceAnalysis {
  const last = segments.at(-1);
  if (!last) throw new RangeError('There are no segment analyses to merge');
  let expectedStart = 0;
  for (const { startSeconds, endSeconds } of segments) {
    const windows = startSeconds / ANALYSIS_WINDOW_SECONDS;
    if (
      Math.abs(startSeconds - expectedStart) > TIME_EPSILON ||
      Math.abs(windows - Math.round(windows)) > TIME_EPSILON
    ) {
      throw new RangeError(
        `Segment ${startSeconds}–${endSeconds} s does not continue the source at ${expectedStart} s on the analysis grid`,
      );
    }
    expectedStart = endSeconds;
  }
  const silences: TimeRange[] = [];
  for (const segment of segments) {
    segment.silences.forEach((silence, index) => {
      const previous = silences.at(-1);
      const acrossSeam =
        index === 0 &&
        previous !== undefined &&
        previous.endSeconds >= segment.startSeconds - LOUDNESS_STEP_SECONDS &&
        silence.startSeconds <= segment.startSeconds + LOUDNESS_STEP_SECONDS;
      if (acrossSeam) silences[silences.length - 1] = { ...previous, endSeconds: silence.endSeconds };
      else silences.push(silence);
    });
  }
  // Analyses written before decodedEndSeconds existed decoded whole.
  const decodedEnds = segments.map((segment) => segment.decodedEndSeconds ?? segment.endSeconds);
  const lastDecoding = decodedEnds.findLastIndex((decodedEnd, index) => decodedEnd > segments[index]!.startSeconds);
  const durationSeconds = lastDecoding < 0 ? 0 : decodedEnds[lastDecoding]!;
  const windows = windowCount(durationSeconds);
  return {
    durationSeconds,
    loudnessDb: segments.flatMap((segment) => segment.loudnessDb).slice(0, windows),
    motion: segments.flatMap((segment) => segment.motion).slice(0, windows),
    sceneCuts: spacedCuts(segments.flatMap((segment) => segment.sceneCuts)).filter((cut) => cut < durationSeconds),
    silences: silences
      .filter((silence) => silence.startSeconds < durationSeconds)
      .map((silence) => ({ ...silence, endSeconds: Math.min(silence.endSeconds, durationSeconds) })),
    hasAudio: segments.some((segment) => segment.hasAudio),
  };
}
