import type { CreateSplitJobRequest, SplitPlatform } from '#contract/types';
import { ANALYSIS_WINDOW_SECONDS, SILENCE_THRESHOLD_DB, type SourceAnalysis, type TimeRange } from './source-analysis';
import type { Transcript, TranscriptWord } from './transcription/port';

/**
 * Which parts of a source become clips: every stretch between two boundary points (0, the end,
 * scene cuts, silence edges) whose length fits the preset is a candidate; each candidate gets a
 * score from the analysis (and the transcript, when there is one); the best-scoring ones that do
 * not overlap are taken. Everything here is deterministic: the same analysis and options always
 * give the same clips.
 */

export type ClipLengthPreset = NonNullable<CreateSplitJobRequest['clip_length_preset']>;
export type ClipLengths = Exclude<ClipLengthPreset, 'auto'>;
export type ClipStyle = NonNullable<CreateSplitJobRequest['clip_style']>;

export interface ClipLengthRange {
  minSeconds: number;
  maxSeconds: number;
  /** The length that scores best on length fit, and the spacing of the fallback grid. */
  preferredSeconds: number;
}

/**
 * Clip lengths per preset. Every maximum is at least twice its minimum: with that, any source at
 * least the minimum long, with no stretch between boundary points longer than the maximum (the
 * fallback grid sees to that), has at least one candidate.
 */
export const CLIP_LENGTHS: Readonly<Record<ClipLengths, ClipLengthRange>> = {
  under_30: { minSeconds: 10, maxSeconds: 30, preferredSeconds: 20 },
  under_60: { minSeconds: 25, maxSeconds: 60, preferredSeconds: 40 },
  under_90: { minSeconds: 45, maxSeconds: 90, preferredSeconds: 60 },
};

/** `auto`: at least this many scene cuts per minute is a fast-cut source, made into under_30 clips. */
export const AUTO_FAST_CUTS_PER_MINUTE = 10;
/** `auto`: fewer cuts per minute than this, with sound through most of the source, is talk, made into under_90 clips. */
export const AUTO_SLOW_CUTS_PER_MINUTE = 2;
/** `auto`: the share of analysis windows above the silence threshold that counts as sound through most of the source. */
export const AUTO_AUDIBLE_SHARE = 0.7;
/** `auto`: styles whose clips need room to make a point are always under_90. */
export const AUTO_LONG_FORM_STYLES: readonly ClipStyle[] = ['podcast', 'educational'];

/** The hook compares the loudness of a clip's first seconds with the same span before it. */
export const HOOK_SECONDS = 3;
/** A loudness rise this large (dB) or larger scores a full hook. */
export const HOOK_FULL_RISE_DB = 15;
/** Speech density: this many transcribed words per second score 1 (brisk speech). */
export const FULL_SPEECH_WORDS_PER_SECOND = 3;
/** Scene rhythm: this many cuts per 10 seconds inside the clip score 1. */
export const FULL_RHYTHM_CUTS_PER_10_SECONDS = 2;
/** Motion: a clip moving this many times the source's mean motion, or more, scores 1. */
export const FULL_MOTION_MULTIPLE = 2;
/** Titles longer than this are cut at a word boundary and end with an ellipsis. */
export const TITLE_MAX_CHARACTERS = 80;

export type ClipSignal = 'energy' | 'hook' | 'speech' | 'rhythm' | 'motion' | 'lengthFit';

/**
 * Each signal is normalised to [0, 1]:
 * - energy: the clip's mean loudness between the source's quietest (0) and loudest (1) window;
 * - hook: the rise in mean loudness from the HOOK_SECONDS before the clip to its first
 *   HOOK_SECONDS, over HOOK_FULL_RISE_DB (before the source starts counts as its median loudness);
 * - speech: transcribed words per second over FULL_SPEECH_WORDS_PER_SECOND; without a transcript,
 *   the share of the clip's windows above the silence threshold;
 * - rhythm: scene cuts inside the clip per 10 s over FULL_RHYTHM_CUTS_PER_10_SECONDS;
 * - motion: the clip's mean motion over FULL_MOTION_MULTIPLE times the source's mean motion;
 * - lengthFit: 1 at the preferred length, falling linearly to 0 at the preset's farther limit.
 * A clip's score is the weighted mean of its signals, each row summing to 1.
 */
export const CLIP_STYLE_WEIGHTS: Readonly<Record<ClipStyle, Readonly<Record<ClipSignal, number>>>> = {
  viral_hooks: { energy: 0.25, hook: 0.35, speech: 0.1, rhythm: 0.1, motion: 0.1, lengthFit: 0.1 },
  educational: { energy: 0.1, hook: 0.1, speech: 0.45, rhythm: 0.1, motion: 0.1, lengthFit: 0.15 },
  podcast: { energy: 0.15, hook: 0.15, speech: 0.45, rhythm: 0.05, motion: 0.05, lengthFit: 0.15 },
  highlights: { energy: 0.25, hook: 0.1, speech: 0.05, rhythm: 0.25, motion: 0.3, lengthFit: 0.05 },
  balanced: { energy: 1 / 6, hook: 1 / 6, speech: 1 / 6, rhythm: 1 / 6, motion: 1 / 6, lengthFit: 1 / 6 },
};

/**
 * Added to a style's weights for the target platforms before they are normalised again: feeds
 * that scroll on within a second reward a hook, professional feeds reward what is said. Each
 * signal gets the largest bonus among the platforms, so naming all four feeds counts once.
 */
export const PLATFORM_WEIGHT_BONUSES: Readonly<Record<SplitPlatform, Partial<Record<ClipSignal, number>>>> = {
  tiktok: { hook: 0.1 },
  instagram_reels: { hook: 0.1 },
  youtube_shorts: { hook: 0.1 },
  facebook_reels: { hook: 0.1 },
  linkedin: { speech: 0.1 },
  x: { speech: 0.1 },
};

const SIGNALS = Object.keys(CLIP_STYLE_WEIGHTS.balanced) as ClipSignal[];

export interface ClipChoiceOptions {
  preset: ClipLengthPreset;
  clipStyle: ClipStyle;
  platforms: readonly SplitPlatform[];
  maxClips: number;
}

/** One signal of a clip's score: its value in [0, 1] and the weight the job's style and platforms gave it. */
export interface SignalContribution {
  value: number;
  weight: number;
}

export type ScoreBreakdown = Record<ClipSignal, SignalContribution>;

export interface ChosenClip {
  startSeconds: number;
  endSeconds: number;
  /** 0 to 1, three decimals: the weighted mean of the clip's signals. */
  score: number;
  /** The first sentence spoken in the clip, when there is a transcript and a word in the clip. */
  title: string | null;
  /** Each signal's value and weight, both to three or four decimals: Σ value × weight is the score within 0.002. */
  breakdown: ScoreBreakdown;
  /** Short sentences naming what made the clip score, strongest first. */
  reasons: string[];
}

const roundTo3 = (value: number) => Math.round(value * 1000) / 1000;
const roundTo4 = (value: number) => Math.round(value * 10_000) / 10_000;
const clamp01 = (value: number) => (value < 0 ? 0 : value > 1 ? 1 : value);

/** The style's weights with the platforms' bonuses, normalised to sum to 1. */
export function signalWeights(clipStyle: ClipStyle, platforms: readonly SplitPlatform[]): Record<ClipSignal, number> {
  const bonus = (signal: ClipSignal) =>
    Math.max(0, ...platforms.map((platform) => PLATFORM_WEIGHT_BONUSES[platform][signal] ?? 0));
  const raw = SIGNALS.map((signal) => [signal, CLIP_STYLE_WEIGHTS[clipStyle][signal] + bonus(signal)] as const);
  const total = raw.reduce((sum, [, weight]) => sum + weight, 0);
  return Object.fromEntries(raw.map(([signal, weight]) => [signal, weight / total])) as Record<ClipSignal, number>;
}

/**
 * The lengths `auto` stands for, in this order: podcast and educational styles → under_90; at
 * least AUTO_FAST_CUTS_PER_MINUTE scene cuts per minute → under_30; fewer than
 * AUTO_SLOW_CUTS_PER_MINUTE with at least AUTO_AUDIBLE_SHARE of the source above the silence
 * threshold (talk) → under_90; otherwise under_60.
 */
export function autoClipLengths(analysis: SourceAnalysis, clipStyle: ClipStyle): ClipLengths {
  if (AUTO_LONG_FORM_STYLES.includes(clipStyle)) return 'under_90';
  const cutsPerMinute = analysis.durationSeconds > 0 ? analysis.sceneCuts.length / (analysis.durationSeconds / 60) : 0;
  if (cutsPerMinute >= AUTO_FAST_CUTS_PER_MINUTE) return 'under_30';
  const audible = analysis.loudnessDb.filter((level) => level >= SILENCE_THRESHOLD_DB).length;
  const audibleShare = analysis.loudnessDb.length > 0 ? audible / analysis.loudnessDb.length : 0;
  if (cutsPerMinute < AUTO_SLOW_CUTS_PER_MINUTE && audibleShare >= AUTO_AUDIBLE_SHARE) return 'under_90';
  return 'under_60';
}

/** How many elements of a sorted array come before `value` (or up to it, when `inclusive`). */
function countBefore(sorted: readonly number[], value: number, inclusive = false): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const element = sorted[middle]!;
    if (element < value || (inclusive && element === value)) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** Mean of a per-window series over [start, end) seconds, in O(1); undefined where no window falls. */
function windowMeans(values: readonly number[]): (startSeconds: number, endSeconds: number) => number | undefined {
  const prefix = new Float64Array(values.length + 1);
  values.forEach((value, index) => (prefix[index + 1] = prefix[index]! + value));
  return (startSeconds, endSeconds) => {
    const first = Math.max(0, Math.floor(startSeconds / ANALYSIS_WINDOW_SECONDS));
    const end = Math.min(values.length, Math.ceil(endSeconds / ANALYSIS_WINDOW_SECONDS));
    return end > first ? (prefix[end]! - prefix[first]!) / (end - first) : undefined;
  };
}

/**
 * How far inside a silence a clip starts or ends: the silence's edges are where the sound crosses
 * -40 dB over 0.1 s, which the soft start of a word ("f", "h", "s") often does only 0.05 to 0.2 s
 * after the word began. A clip cut at the edge would open on half a word, which its captions show
 * and its title leaves out; a fifth of a second of quiet at either end is what an editor leaves.
 */
export const SILENCE_EDGE_PAD_SECONDS = 0.2;

/**
 * Where in a silence clips may end (near its start) and start (near its end): SILENCE_EDGE_PAD_SECONDS
 * inside each edge, or its middle when it is shorter than two pads.
 */
export function silenceCutPoints(silence: TimeRange): [number, number] {
  const pad = Math.min(SILENCE_EDGE_PAD_SECONDS, (silence.endSeconds - silence.startSeconds) / 2);
  return [silence.startSeconds + pad, silence.endSeconds - pad];
}

/**
 * Where clips may start and end, rounded to milliseconds: 0, the end, every scene cut and the cut
 * points of every silence (silenceCutPoints). Fallback: wherever two consecutive points are more than the maximum
 * length apart (a single shot, a screen recording, a steady tone), the multiples of the preferred
 * length between them are points too.
 */
export function boundaryPoints(analysis: SourceAnalysis, lengths: ClipLengthRange): number[] {
  const duration = roundTo3(analysis.durationSeconds);
  const content = [0, duration, ...analysis.sceneCuts, ...analysis.silences.flatMap(silenceCutPoints)].map((seconds) =>
    Math.min(duration, Math.max(0, roundTo3(seconds))),
  );
  const points = [...new Set(content)].sort((a, b) => a - b);
  const grid: number[] = [];
  points.forEach((point, index) => {
    const next = points[index + 1];
    if (next === undefined || next - point <= lengths.maxSeconds) return;
    const step = lengths.preferredSeconds;
    for (let multiple = (Math.floor(point / step) + 1) * step; multiple < next; multiple += step) grid.push(multiple);
  });
  return [...points, ...grid].sort((a, b) => a - b);
}

interface Candidate {
  startSeconds: number;
  endSeconds: number;
  score: number;
}

/**
 * Measures the signals of any [start, end) of the source, each clamped to [0, 1]; everything
 * per-source is computed once, each measure in O(log n).
 */
function clipSignals(
  analysis: SourceAnalysis,
  transcript: Transcript | null,
  lengths: ClipLengthRange,
): (startSeconds: number, endSeconds: number) => Record<ClipSignal, number> {
  const loudness = windowMeans(analysis.loudnessDb);
  const audible = windowMeans(analysis.loudnessDb.map((level) => (level >= SILENCE_THRESHOLD_DB ? 1 : 0)));
  const motion = windowMeans(analysis.motion);
  const sortedLoudness = [...analysis.loudnessDb].sort((a, b) => a - b);
  const quietest = sortedLoudness[0] ?? 0;
  const loudnessRange = (sortedLoudness.at(-1) ?? 0) - quietest;
  const medianLoudness = sortedLoudness[Math.floor(sortedLoudness.length / 2)] ?? 0;
  const sourceMotion = motion(0, analysis.durationSeconds) ?? 0;
  const cuts = [...analysis.sceneCuts].sort((a, b) => a - b);
  const wordStarts = transcript?.words.map((word) => word.startSeconds).sort((a, b) => a - b);
  const lengthTolerance = Math.max(
    lengths.preferredSeconds - lengths.minSeconds,
    lengths.maxSeconds - lengths.preferredSeconds,
  );

  return (startSeconds, endSeconds) => {
    const length = endSeconds - startSeconds;
    const meanLoudness = loudness(startSeconds, endSeconds) ?? quietest;
    const opening = loudness(startSeconds, Math.min(endSeconds, startSeconds + HOOK_SECONDS)) ?? meanLoudness;
    const before = loudness(startSeconds - HOOK_SECONDS, startSeconds) ?? medianLoudness;
    const cutsInside = countBefore(cuts, endSeconds) - countBefore(cuts, startSeconds, true);
    const speech = wordStarts
      ? (countBefore(wordStarts, endSeconds) - countBefore(wordStarts, startSeconds)) /
        length /
        FULL_SPEECH_WORDS_PER_SECOND
      : (audible(startSeconds, endSeconds) ?? 0);
    return {
      energy: clamp01(loudnessRange > 0 ? (meanLoudness - quietest) / loudnessRange : 0),
      hook: clamp01((opening - before) / HOOK_FULL_RISE_DB),
      speech: clamp01(speech),
      rhythm: clamp01(cutsInside / (length / 10) / FULL_RHYTHM_CUTS_PER_10_SECONDS),
      motion: clamp01(
        sourceMotion > 0 ? (motion(startSeconds, endSeconds) ?? 0) / (FULL_MOTION_MULTIPLE * sourceMotion) : 0,
      ),
      lengthFit: clamp01(1 - Math.abs(length - lengths.preferredSeconds) / lengthTolerance),
    };
  };
}

function weightedScore(signals: Record<ClipSignal, number>, weights: Record<ClipSignal, number>): number {
  return clamp01(roundTo3(SIGNALS.reduce((sum, signal) => sum + weights[signal] * signals[signal], 0)));
}

/** A signal at least this strong may be named as a reason. */
export const REASON_MIN_SIGNAL = 0.5;
/** At most this many reasons per clip. */
export const MAX_REASONS = 3;

type ReasonContext = { transcribed: boolean; preferredSeconds: number };

/** One sentence per signal, worded by how strong it is (at least REASON_MIN_SIGNAL). */
const REASON_SENTENCES: Readonly<Record<ClipSignal, (value: number, context: ReasonContext) => string>> = {
  energy: (value) =>
    value >= 0.8 ? 'Among the loudest, liveliest parts of the source.' : 'Louder and livelier than most of the source.',
  hook: (value) =>
    value >= 0.8
      ? `Opens with a sharp rise in sound in its first ${HOOK_SECONDS} seconds: a strong hook.`
      : `The sound picks up in its first ${HOOK_SECONDS} seconds.`,
  speech: (value, { transcribed }) =>
    transcribed
      ? value >= 0.8
        ? 'Brisk, continuous speech.'
        : 'Steady speech through most of it.'
      : value >= 0.8
        ? 'Sound all the way through, with hardly a pause.'
        : 'Sound through most of it.',
  rhythm: (value) =>
    value >= 0.8 ? 'Fast cutting: a new scene every few seconds.' : 'Several scene changes keep it moving.',
  motion: (value) =>
    value >= 0.8
      ? 'Much more movement on screen than the rest of the source.'
      : 'More movement than most of the source.',
  lengthFit: (_value, { preferredSeconds }) =>
    `Close to the ideal length of ${preferredSeconds} seconds for its preset.`,
};

const NOTHING_STANDS_OUT = 'No single signal stands out: chosen as the best remaining part of the source overall.';

/**
 * The sentences of the signals that added most to the score (value × weight), strongest first:
 * at most MAX_REASONS, each at least REASON_MIN_SIGNAL strong and with a weight of its own.
 */
export function clipReasons(breakdown: ScoreBreakdown, context: ReasonContext): string[] {
  const strongest = SIGNALS.filter(
    (signal) => breakdown[signal].value >= REASON_MIN_SIGNAL && breakdown[signal].weight > 0,
  )
    .sort(
      (a, b) =>
        breakdown[b].value * breakdown[b].weight - breakdown[a].value * breakdown[a].weight ||
        SIGNALS.indexOf(a) - SIGNALS.indexOf(b),
    )
    .slice(0, MAX_REASONS);
  if (strongest.length === 0) return [NOTHING_STANDS_OUT];
  return strongest.map((signal) => REASON_SENTENCES[signal](breakdown[signal].value, context));
}

const SENTENCE_END = /[.!?]["'”’)\]]*$/;

/** The first sentence begun inside the clip, up to the clip's end, capped at TITLE_MAX_CHARACTERS. */
function clipTitle(words: readonly TranscriptWord[], startSeconds: number, endSeconds: number): string | null {
  const spoken: string[] = [];
  for (const word of words) {
    if (word.startSeconds < startSeconds) continue;
    if (word.startSeconds >= endSeconds) break;
    const text = word.text.trim();
    if (!text) continue;
    spoken.push(text);
    if (SENTENCE_END.test(text)) break;
  }
  if (spoken.length === 0) return null;
  const sentence = spoken.join(' ');
  if (sentence.length <= TITLE_MAX_CHARACTERS) return sentence;
  const room = sentence.slice(0, TITLE_MAX_CHARACTERS - 1);
  const wordBoundary = room.lastIndexOf(' ');
  const cut = wordBoundary > 0 ? room.slice(0, wordBoundary) : room;
  return `${cut.replace(/[\s,;:]+$/, '')}…`;
}

const byScoreThenStart = (a: Candidate, b: Candidate) =>
  b.score - a.score || a.startSeconds - b.startSeconds || a.endSeconds - b.endSeconds;

/**
 * Chooses up to `maxClips` non-overlapping clips, best first (ties: earlier start first). Every
 * candidate between two boundary points with a length within the preset is scored; the best ones
 * not overlapping a clip already taken are taken. A source shorter than the preset's minimum is
 * one clip of the whole source.
 */
export function chooseClips(
  analysis: SourceAnalysis,
  transcript: Transcript | null,
  options: ClipChoiceOptions,
): { lengths: ClipLengths; clips: ChosenClip[] } {
  const lengthsName = options.preset === 'auto' ? autoClipLengths(analysis, options.clipStyle) : options.preset;
  const lengths = CLIP_LENGTHS[lengthsName];
  const duration = roundTo3(analysis.durationSeconds);
  if (duration <= 0 || options.maxClips < 1) return { lengths: lengthsName, clips: [] };
  const weights = signalWeights(options.clipStyle, options.platforms);
  const signalsOf = clipSignals(analysis, transcript, lengths);
  const score = (startSeconds: number, endSeconds: number) =>
    weightedScore(signalsOf(startSeconds, endSeconds), weights);
  const reasonContext = { transcribed: transcript !== null, preferredSeconds: lengths.preferredSeconds };
  // Only the clips taken are explained: measuring their signals again is cheaper than keeping every candidate's.
  const titled = (candidate: Candidate): ChosenClip => {
    const signals = signalsOf(candidate.startSeconds, candidate.endSeconds);
    const breakdown = Object.fromEntries(
      SIGNALS.map((signal) => [signal, { value: roundTo3(signals[signal]), weight: roundTo4(weights[signal]) }]),
    ) as ScoreBreakdown;
    return {
      ...candidate,
      title: transcript ? clipTitle(transcript.words, candidate.startSeconds, candidate.endSeconds) : null,
      breakdown,
      reasons: clipReasons(breakdown, reasonContext),
    };
  };
  if (duration < lengths.minSeconds) {
    return {
      lengths: lengthsName,
      clips: [titled({ startSeconds: 0, endSeconds: duration, score: score(0, duration) })],
    };
  }

  const points = boundaryPoints(analysis, lengths);
  const candidates: Candidate[] = [];
  let firstLongEnough = 0;
  points.forEach((startSeconds) => {
    while (firstLongEnough < points.length && points[firstLongEnough]! - startSeconds < lengths.minSeconds) {
      firstLongEnough += 1;
    }
    for (let end = firstLongEnough; end < points.length; end += 1) {
      const endSeconds = points[end]!;
      if (endSeconds - startSeconds > lengths.maxSeconds) break;
      candidates.push({ startSeconds, endSeconds, score: score(startSeconds, endSeconds) });
    }
  });

  const taken: Candidate[] = [];
  for (const candidate of candidates.sort(byScoreThenStart)) {
    if (taken.length >= options.maxClips) break;
    const overlaps = taken.some(
      (clip) => candidate.startSeconds < clip.endSeconds && clip.startSeconds < candidate.endSeconds,
    );
    if (!overlaps) taken.push(candidate);
  }
  return { lengths: lengthsName, clips: taken.map(titled) };
}
