import type { CreateSplitJobRequest, SplitPlatform } from '#contract/types';
import type { ClipIdea, ClipIdeasAnswer, LanguageFailureCause } from './language/port';
import { HOOK_LINE_MAX_CHARACTERS, TITLE_MAX_CHARACTERS } from './language/port';
import { hookCues, openingCueReason, openingStrength } from './opening-cues';
import { cutAtWord, type Sentence } from './sentences';
import { ANALYSIS_WINDOW_SECONDS, SILENCE_THRESHOLD_DB, type SourceAnalysis, type TimeRange } from './source-analysis';

/**
 * Which parts of a source become clips. Where words are spoken, a clip starts as a sentence starts
 * and ends as one ends (with an editor's breath of quiet at each end), so that it holds whole
 * thoughts; away from speech it starts and ends at scene cuts and silences. Every stretch between
 * such points whose length fits the preset is a candidate; each gets a score from its sound and
 * picture, its opening words and, where the language step answered, the score the language model
 * gave its range; the best-scoring ones that do not overlap are taken. Everything here is
 * deterministic: the same analysis, sentences, answer and options always give the same clips.
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

/** The hook's delivery compares the loudness of a clip's opening with the source's median. */
export const HOOK_SECONDS = 3;
/** A delivery this many dB above the source's median scores 1 (as far below scores 0; the median scores 0.5). */
export const DELIVERY_FULL_RANGE_DB = 10;
/** The hook's share from the opening sentence's words; the rest is its delivery. */
export const HOOK_WORDS_SHARE = 0.7;
/** Speech density: this many transcribed words per second score 1 (fast speech; ordinary talk is 2 to 3). */
export const FULL_SPEECH_WORDS_PER_SECOND = 4;
/** Scene rhythm: this many cuts per 10 seconds inside the clip score 1. */
export const FULL_RHYTHM_CUTS_PER_10_SECONDS = 2;
/** Motion: a clip moving this many times the source's mean motion, or more, scores 1. */
export const FULL_MOTION_MULTIPLE = 2;
/** A clip starts this long before its first sentence's first word, less where the pause before it is shorter. */
export const SENTENCE_LEAD_SECONDS = 0.2;
/** A clip ends this long after its last sentence's last word, less where the pause after it is shorter. */
export const SENTENCE_TAIL_SECONDS = 0.3;
/** Scene cuts and silences this near a sentence are not cut at: near speech, clips cut at sentences. */
export const SPEECH_NEIGHBOURHOOD_SECONDS = 1.5;

export type ClipSignal = 'energy' | 'hook' | 'speech' | 'rhythm' | 'motion' | 'lengthFit' | 'language';

/**
 * Each signal is normalised to [0, 1]:
 * - energy: the clip's mean loudness between the source's quietest (0) and loudest (1) window;
 * - hook: how the clip opens. With a sentence spoken in its first HOOK_SECONDS, HOOK_WORDS_SHARE of
 *   it is that sentence's words (opening-cues.ts: a question, a promise, a number, a contrast or a
 *   claim; a plain statement 0.3, filler 0) and the rest its delivery; without one, its delivery
 *   alone. Delivery: the opening's loudness against the source's median, 0.5 at the median, 0 and 1
 *   at DELIVERY_FULL_RANGE_DB below and above;
 * - speech: transcribed words per second over FULL_SPEECH_WORDS_PER_SECOND; without a transcript,
 *   the share of the clip's windows above the silence threshold;
 * - rhythm: scene cuts inside the clip per 10 s over FULL_RHYTHM_CUTS_PER_10_SECONDS;
 * - motion: the clip's mean motion over FULL_MOTION_MULTIPLE times the source's mean motion;
 * - lengthFit: 1 at the preferred length, falling linearly to 0 at the preset's farther limit;
 * - language: the score (0 to 100, over 100) the language model gave the clip's sentence range, 0
 *   for a range it did not propose.
 * A clip's score is the weighted mean of its signals. Each row sums to 1; where the language step
 * did not answer (no transcript, or a failure), `language` weighs 0 and the others are scaled up to
 * sum to 1.
 */
export const CLIP_STYLE_WEIGHTS: Readonly<Record<ClipStyle, Readonly<Record<ClipSignal, number>>>> = {
  viral_hooks: { energy: 0.15, hook: 0.25, speech: 0.05, rhythm: 0.05, motion: 0.05, lengthFit: 0.1, language: 0.35 },
  educational: { energy: 0.05, hook: 0.1, speech: 0.2, rhythm: 0.05, motion: 0.05, lengthFit: 0.1, language: 0.45 },
  podcast: { energy: 0.1, hook: 0.15, speech: 0.2, rhythm: 0.05, motion: 0, lengthFit: 0.1, language: 0.4 },
  highlights: { energy: 0.2, hook: 0.1, speech: 0.05, rhythm: 0.2, motion: 0.25, lengthFit: 0.05, language: 0.15 },
  balanced: { energy: 0.1, hook: 0.15, speech: 0.1, rhythm: 0.1, motion: 0.1, lengthFit: 0.1, language: 0.35 },
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
  linkedin: { language: 0.1 },
  x: { language: 0.1 },
};

const SIGNALS = Object.keys(CLIP_STYLE_WEIGHTS.balanced) as ClipSignal[];

export interface ClipChoiceOptions {
  preset: ClipLengthPreset;
  clipStyle: ClipStyle;
  platforms: readonly SplitPlatform[];
  maxClips: number;
}

/** What was said in the source: its sentences and what the language step made of them. */
export interface SpokenContent {
  sentences: readonly Sentence[];
  /** The language step's answer and the model that gave it; null when it was not asked. */
  language: { modelId: string | null; answer: ClipIdeasAnswer } | null;
}

/** One signal of a clip's score: its value in [0, 1] and the weight the job's style and platforms gave it. */
export interface SignalContribution {
  value: number;
  weight: number;
}

export type ScoreBreakdown = Record<ClipSignal, SignalContribution>;

/** How the clips were ranked: with what the language model read, or by sound and picture alone, and why. */
export interface ClipRanking {
  source: 'language_and_signals' | 'signals';
  languageModel: string | null;
  /** Why the language step was not used, in a sentence; null when it was. */
  fallbackReason: string | null;
}

export interface ChosenClip {
  startSeconds: number;
  endSeconds: number;
  /** 0 to 1, three decimals: the weighted mean of the clip's signals. */
  score: number;
  /** A headline of at most TITLE_MAX_CHARACTERS: the language model's, else the opening sentence's words; null without words. */
  title: string | null;
  /** The clip's opening line as spoken (the language model's choice where it proposed the clip); null without words. */
  hookLine: string | null;
  /** Each signal's value and weight, both to three or four decimals: Σ value × weight is the score within 0.002. */
  breakdown: ScoreBreakdown;
  /** Short sentences naming what in this clip made it score, strongest first. */
  reasons: string[];
  ranking: ClipRanking;
}

const roundTo3 = (value: number) => Math.round(value * 1000) / 1000;
const roundTo4 = (value: number) => Math.round(value * 10_000) / 10_000;
const clamp01 = (value: number) => (value < 0 ? 0 : value > 1 ? 1 : value);

/** The style's weights with the platforms' bonuses, normalised to sum to 1; `language` 0 when the language step did not answer. */
export function signalWeights(
  clipStyle: ClipStyle,
  platforms: readonly SplitPlatform[],
  withLanguage = true,
): Record<ClipSignal, number> {
  const bonus = (signal: ClipSignal) =>
    Math.max(0, ...platforms.map((platform) => PLATFORM_WEIGHT_BONUSES[platform][signal] ?? 0));
  const raw = SIGNALS.map(
    (signal) =>
      [
        signal,
        signal === 'language' && !withLanguage ? 0 : CLIP_STYLE_WEIGHTS[clipStyle][signal] + bonus(signal),
      ] as const,
  );
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

/** The lengths a job's clips have: its preset, or what `auto` stands for on this source. */
export function clipLengthsOf(analysis: SourceAnalysis, options: ClipChoiceOptions): ClipLengths {
  return options.preset === 'auto' ? autoClipLengths(analysis, options.clipStyle) : options.preset;
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

/** A place a clip may start or end, in seconds rounded to milliseconds. */
export interface BoundaryPoint {
  seconds: number;
  canStart: boolean;
  canEnd: boolean;
  /** The sentence a clip starting here opens with, or ending here closes with. */
  startsSentence?: number;
  endsSentence?: number;
}

/** Where a clip holding sentence `index` first may start, and where one holding it last may end. */
export function sentenceEdges(sentences: readonly Sentence[], index: number, duration: number): [number, number] {
  const sentence = sentences[index]!;
  const previousEnd = sentences[index - 1]?.endSeconds ?? -Infinity;
  const nextStart = sentences[index + 1]?.startSeconds ?? Infinity;
  const lead = Math.min(SENTENCE_LEAD_SECONDS, Math.max(0, (sentence.startSeconds - previousEnd) / 2));
  const tail = Math.min(SENTENCE_TAIL_SECONDS, Math.max(0, (nextStart - sentence.endSeconds) / 2));
  return [
    roundTo3(Math.max(0, sentence.startSeconds - lead)),
    roundTo3(Math.min(duration, sentence.endSeconds + tail)),
  ];
}

/**
 * Where clips may start and end. Near speech (within SPEECH_NEIGHBOURHOOD_SECONDS of a sentence):
 * only at sentence edges (sentenceEdges), and never after a sentence that leaves its thought open.
 * Elsewhere: 0, the end, every scene cut and the cut points of every silence (silenceCutPoints).
 * Fallback: wherever two consecutive points are more than the maximum length apart (a single shot,
 * a screen recording, a steady tone, one sentence running on), the multiples of the preferred
 * length between them are points too.
 */
export function boundaryPoints(
  analysis: SourceAnalysis,
  lengths: ClipLengthRange,
  sentences: readonly Sentence[] = [],
): BoundaryPoint[] {
  const duration = roundTo3(analysis.durationSeconds);
  const clampToSource = (seconds: number) => Math.min(duration, Math.max(0, roundTo3(seconds)));
  const nearSpeech = (seconds: number) =>
    sentences.some(
      (sentence) =>
        seconds > sentence.startSeconds - SPEECH_NEIGHBOURHOOD_SECONDS &&
        seconds < sentence.endSeconds + SPEECH_NEIGHBOURHOOD_SECONDS,
    );
  const byTime = new Map<number, BoundaryPoint>();
  const add = (point: BoundaryPoint) => {
    const existing = byTime.get(point.seconds);
    byTime.set(
      point.seconds,
      existing
        ? {
            ...existing,
            ...point,
            canStart: existing.canStart || point.canStart,
            canEnd: existing.canEnd || point.canEnd,
          }
        : point,
    );
  };
  const content = [0, duration, ...analysis.sceneCuts, ...analysis.silences.flatMap(silenceCutPoints)].map(
    clampToSource,
  );
  for (const seconds of content) {
    if (!nearSpeech(seconds)) add({ seconds, canStart: true, canEnd: true });
  }
  sentences.forEach((sentence, index) => {
    const [start, end] = sentenceEdges(sentences, index, duration);
    add({ seconds: start, canStart: true, canEnd: false, startsSentence: index });
    if (!sentence.dangling) add({ seconds: end, canStart: false, canEnd: true, endsSentence: index });
  });
  // Speech left open to the very end (a recording cut off mid-sentence) still ends where the source does.
  if (sentences.at(-1)?.dangling) add({ seconds: duration, canStart: false, canEnd: true });
  const points = [...byTime.values()].sort((a, b) => a.seconds - b.seconds);
  const grid: BoundaryPoint[] = [];
  points.forEach((point, index) => {
    const next = points[index + 1];
    if (next === undefined || next.seconds - point.seconds <= lengths.maxSeconds) return;
    const step = lengths.preferredSeconds;
    for (let multiple = (Math.floor(point.seconds / step) + 1) * step; multiple < next.seconds; multiple += step) {
      grid.push({ seconds: multiple, canStart: true, canEnd: true });
    }
  });
  return [...points, ...grid].sort((a, b) => a.seconds - b.seconds);
}

interface Candidate {
  startSeconds: number;
  endSeconds: number;
  score: number;
}

interface Opening {
  sentence: Sentence | undefined;
  /** The hook signal of a clip opening so. */
  hook: number;
}

/**
 * Measures the signals of any [start, end) of the source, each clamped to [0, 1]; everything
 * per-source is computed once, each measure in O(log n).
 */
function clipSignals(
  analysis: SourceAnalysis,
  sentences: readonly Sentence[],
  transcribed: boolean,
  lengths: ClipLengthRange,
  languageScore: (startSeconds: number, endSeconds: number) => number,
) {
  const loudness = windowMeans(analysis.loudnessDb);
  const audible = windowMeans(analysis.loudnessDb.map((level) => (level >= SILENCE_THRESHOLD_DB ? 1 : 0)));
  const motion = windowMeans(analysis.motion);
  const sortedLoudness = [...analysis.loudnessDb].sort((a, b) => a - b);
  const quietest = sortedLoudness[0] ?? 0;
  const loudnessRange = (sortedLoudness.at(-1) ?? 0) - quietest;
  const medianLoudness = sortedLoudness[Math.floor(sortedLoudness.length / 2)] ?? 0;
  const sourceMotion = motion(0, analysis.durationSeconds) ?? 0;
  const cuts = [...analysis.sceneCuts].sort((a, b) => a - b);
  const sentenceStarts = sentences.map((sentence) => sentence.startSeconds);
  const wordCounts = sentences.map((sentence) => sentence.text.split(/\s+/).filter(Boolean).length);
  const lengthTolerance = Math.max(
    lengths.preferredSeconds - lengths.minSeconds,
    lengths.maxSeconds - lengths.preferredSeconds,
  );
  const wordsBetween = (startSeconds: number, endSeconds: number) => {
    let words = 0;
    for (let index = countBefore(sentenceStarts, startSeconds); index < sentences.length; index += 1) {
      if (sentences[index]!.startSeconds >= endSeconds) break;
      words += wordCounts[index]!;
    }
    return words;
  };

  /**
   * The sentence that opens a clip starting here (one starting in its first HOOK_SECONDS) and how its
   * opening sounds. Clips are longer than the opening, so it depends on the start alone: the
   * candidates of one start, enumerated together, share it.
   */
  let lastOpening: { startSeconds: number; opening: Opening } | undefined;
  const openingOf = (startSeconds: number): Opening => {
    if (lastOpening?.startSeconds === startSeconds) return lastOpening.opening;
    const first = sentences[countBefore(sentenceStarts, startSeconds)];
    const sentence = first && first.startSeconds < startSeconds + HOOK_SECONDS ? first : undefined;
    const openingEnd = Math.max(
      sentence ? sentence.endSeconds : startSeconds + HOOK_SECONDS,
      startSeconds + ANALYSIS_WINDOW_SECONDS,
    );
    const level = loudness(startSeconds, openingEnd);
    const delivery = level === undefined ? 0.5 : 0.5 + (level - medianLoudness) / (2 * DELIVERY_FULL_RANGE_DB);
    const hook = sentence
      ? HOOK_WORDS_SHARE * openingStrength(sentence.text) + (1 - HOOK_WORDS_SHARE) * clamp01(delivery)
      : clamp01(delivery);
    const opening = { sentence, hook: clamp01(hook) };
    lastOpening = { startSeconds, opening };
    return opening;
  };

  const measure = (startSeconds: number, endSeconds: number): Record<ClipSignal, number> => {
    const length = endSeconds - startSeconds;
    const meanLoudness = loudness(startSeconds, endSeconds) ?? quietest;
    const cutsInside = countBefore(cuts, endSeconds) - countBefore(cuts, startSeconds, true);
    const speech = transcribed
      ? wordsBetween(startSeconds, endSeconds) / length / FULL_SPEECH_WORDS_PER_SECOND
      : (audible(startSeconds, endSeconds) ?? 0);
    return {
      energy: clamp01(loudnessRange > 0 ? (meanLoudness - quietest) / loudnessRange : 0),
      hook: openingOf(startSeconds).hook,
      speech: clamp01(speech),
      rhythm: clamp01(cutsInside / (length / 10) / FULL_RHYTHM_CUTS_PER_10_SECONDS),
      motion: clamp01(
        sourceMotion > 0 ? (motion(startSeconds, endSeconds) ?? 0) / (FULL_MOTION_MULTIPLE * sourceMotion) : 0,
      ),
      lengthFit: clamp01(1 - Math.abs(length - lengths.preferredSeconds) / lengthTolerance),
      language: clamp01(languageScore(startSeconds, endSeconds)),
    };
  };

  /** Figures a clip's reasons quote: how much of the source is quieter, its cuts, its motion against the source's. */
  const figures = (startSeconds: number, endSeconds: number) => {
    const meanLoudness = loudness(startSeconds, endSeconds) ?? quietest;
    return {
      quieterShare: sortedLoudness.length > 0 ? countBefore(sortedLoudness, meanLoudness) / sortedLoudness.length : 0,
      cutsInside: countBefore(cuts, endSeconds) - countBefore(cuts, startSeconds, true),
      motionMultiple: sourceMotion > 0 ? (motion(startSeconds, endSeconds) ?? 0) / sourceMotion : 0,
      wordsPerSecond: wordsBetween(startSeconds, endSeconds) / (endSeconds - startSeconds),
      audibleShare: audible(startSeconds, endSeconds) ?? 0,
      opening: openingOf(startSeconds),
    };
  };
  return { measure, figures };
}

function weightedScore(signals: Record<ClipSignal, number>, weights: Record<ClipSignal, number>): number {
  return clamp01(roundTo3(SIGNALS.reduce((sum, signal) => sum + weights[signal] * signals[signal], 0)));
}

/** A signal at least this strong may be named as a reason. */
export const REASON_MIN_SIGNAL = 0.5;
/** At most this many reasons per clip. */
export const MAX_REASONS = 3;

/** The movement reason is given only to a clip moving at least this many times the source's average: "1.0×" says nothing. */
const MORE_MOVEMENT_THAN_MOST = 1.5;
/** The loudness reason is given only to a clip louder than this share of the source's windows. */
const LOUDER_THAN_MOST = 0.6;

const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, '0')}`;

type Figures = ReturnType<ReturnType<typeof clipSignals>['figures']>;

/** Sentences about what this clip holds, one per signal that may be named (language and length are said elsewhere). */
const REASON_SENTENCES: Partial<Record<ClipSignal, (figures: Figures, transcribed: boolean) => string | undefined>> = {
  hook: ({ opening }) => {
    const cue = opening.sentence && hookCues(opening.sentence.text)[0];
    if (!opening.sentence || !cue) return undefined;
    return `${openingCueReason(opening.sentence.text, cue)}.`;
  },
  energy: ({ quieterShare }) =>
    quieterShare >= LOUDER_THAN_MOST ? `Louder than ${Math.round(quieterShare * 100)}% of the source.` : undefined,
  speech: ({ wordsPerSecond, audibleShare }, transcribed) =>
    transcribed
      ? `${wordsPerSecond.toFixed(1)} words a second, spoken throughout.`
      : `Sound through ${Math.round(audibleShare * 100)}% of it.`,
  rhythm: ({ cutsInside }) => `${cutsInside} scene ${cutsInside === 1 ? 'change keeps' : 'changes keep'} it moving.`,
  motion: ({ motionMultiple }) =>
    motionMultiple >= MORE_MOVEMENT_THAN_MOST
      ? `${motionMultiple.toFixed(1)}× the source's average movement on screen.`
      : undefined,
};

/**
 * Why a clip was chosen, strongest first, at most MAX_REASONS: the language model's reason where
 * it proposed the clip; then the sentences of the signals that added most to the score (value ×
 * weight, at least REASON_MIN_SIGNAL strong), each naming what is in this clip (its opening line,
 * its figures). A clip with nothing to name is placed in the source.
 */
function clipReasons(
  breakdown: ScoreBreakdown,
  figures: Figures,
  idea: ClipIdea | undefined,
  transcribed: boolean,
  range: { startSeconds: number; endSeconds: number },
): string[] {
  const named = SIGNALS.filter(
    (signal) =>
      REASON_SENTENCES[signal] && breakdown[signal].value >= REASON_MIN_SIGNAL && breakdown[signal].weight > 0,
  ).sort(
    (a, b) =>
      breakdown[b].value * breakdown[b].weight - breakdown[a].value * breakdown[a].weight ||
      SIGNALS.indexOf(a) - SIGNALS.indexOf(b),
  );
  // A proposal's reason speaks for the clip's words, its opening among them.
  const reasons = [
    ...(idea ? [idea.reason] : []),
    ...named
      .filter((signal) => !(idea && signal === 'hook'))
      .flatMap((signal) => REASON_SENTENCES[signal]!(figures, transcribed) ?? []),
  ];
  const unique = [...new Set(reasons)].slice(0, MAX_REASONS);
  if (unique.length > 0) return unique;
  return [
    `The strongest stretch left, ${clock(range.startSeconds)} to ${clock(range.endSeconds)}: nothing in it stands out.`,
  ];
}

const FALLBACK_REASONS: Readonly<Record<LanguageFailureCause, string>> = {
  throttled: 'The language model was too busy to answer',
  timeout: 'The language model did not answer in time',
  invalid_answer: "The language model's answer was not valid",
  refused: 'The language model declined to answer',
  unavailable: 'No language model could read the transcript',
  error: 'The language model failed',
};

/** How clips of this job are ranked, from what the language step answered. */
export function clipRanking(spoken: SpokenContent | null): ClipRanking {
  const language = spoken?.language;
  if (!language) {
    return {
      source: 'signals',
      languageModel: null,
      fallbackReason: 'No words were transcribed: ranked by sound and picture alone.',
    };
  }
  if (language.answer.state === 'failed') {
    return {
      source: 'signals',
      languageModel: language.modelId,
      fallbackReason: `${FALLBACK_REASONS[language.answer.cause]}: ranked by sound and picture alone.`,
    };
  }
  return { source: 'language_and_signals', languageModel: language.modelId, fallbackReason: null };
}

/** A title from the clip's opening sentence, when the language model did not title it. */
function openingTitle(opening: Sentence | undefined): string | null {
  if (!opening) return null;
  const title = cutAtWord(opening.text, TITLE_MAX_CHARACTERS);
  return title.charAt(0).toUpperCase() + title.slice(1);
}

const byScoreThenStart = (a: Candidate, b: Candidate) =>
  b.score - a.score || a.startSeconds - b.startSeconds || a.endSeconds - b.endSeconds;

const rangeKey = (startSeconds: number, endSeconds: number) => `${startSeconds}-${endSeconds}`;

/**
 * Chooses up to `maxClips` non-overlapping clips, best first (ties: earlier start first). Every
 * candidate between two boundary points with a length within the preset is scored, and so is every
 * range the language model proposed that fits the preset; the best ones not overlapping a clip
 * already taken are taken. A source shorter than the preset's minimum is one clip of the whole
 * source.
 */
export function chooseClips(
  analysis: SourceAnalysis,
  spoken: SpokenContent | null,
  options: ClipChoiceOptions,
): { lengths: ClipLengths; clips: ChosenClip[] } {
  const lengthsName = clipLengthsOf(analysis, options);
  const lengths = CLIP_LENGTHS[lengthsName];
  const duration = roundTo3(analysis.durationSeconds);
  if (duration <= 0 || options.maxClips < 1) return { lengths: lengthsName, clips: [] };
  const sentences = spoken?.sentences ?? [];
  const ranking = clipRanking(spoken);
  const answer = spoken?.language?.answer;
  const ideas = new Map<string, ClipIdea>();
  for (const idea of answer?.state === 'answered' ? answer.ideas : []) {
    // A proposal ending on a thought left open is not taken, as no candidate ends there.
    if (!sentences[idea.firstSentence] || !sentences[idea.lastSentence] || sentences[idea.lastSentence]!.dangling) {
      continue;
    }
    const startSeconds = sentenceEdges(sentences, idea.firstSentence, duration)[0];
    const endSeconds = sentenceEdges(sentences, idea.lastSentence, duration)[1];
    const length = endSeconds - startSeconds;
    if (length < lengths.minSeconds || length > lengths.maxSeconds) continue;
    const key = rangeKey(startSeconds, endSeconds);
    if ((ideas.get(key)?.score ?? -1) < idea.score) ideas.set(key, idea);
  }
  const weights = signalWeights(options.clipStyle, options.platforms, ranking.source === 'language_and_signals');
  const transcribed = spoken !== null;
  // Ranges are keyed only when there are proposals to look up: a three-hour source has millions of candidates.
  const signals = clipSignals(analysis, sentences, transcribed, lengths, (startSeconds, endSeconds) =>
    ideas.size > 0 ? (ideas.get(rangeKey(startSeconds, endSeconds))?.score ?? 0) / 100 : 0,
  );
  const score = (startSeconds: number, endSeconds: number) =>
    weightedScore(signals.measure(startSeconds, endSeconds), weights);
  // Only the clips taken are explained: measuring their signals again is cheaper than keeping every candidate's.
  const explained = (candidate: Candidate): ChosenClip => {
    const measured = signals.measure(candidate.startSeconds, candidate.endSeconds);
    const figures = signals.figures(candidate.startSeconds, candidate.endSeconds);
    const breakdown = Object.fromEntries(
      SIGNALS.map((signal) => [signal, { value: roundTo3(measured[signal]), weight: roundTo4(weights[signal]) }]),
    ) as ScoreBreakdown;
    const idea = ideas.get(rangeKey(candidate.startSeconds, candidate.endSeconds));
    const opening = figures.opening.sentence;
    return {
      ...candidate,
      title: idea?.title ?? openingTitle(opening),
      hookLine: idea?.hookLine ?? (opening ? cutAtWord(opening.text, HOOK_LINE_MAX_CHARACTERS) : null),
      breakdown,
      reasons: clipReasons(breakdown, figures, idea, transcribed, candidate),
      ranking,
    };
  };
  if (duration < lengths.minSeconds) {
    return {
      lengths: lengthsName,
      clips: [explained({ startSeconds: 0, endSeconds: duration, score: score(0, duration) })],
    };
  }

  const points = boundaryPoints(analysis, lengths, sentences);
  const candidates: Candidate[] = [];
  const seen = new Set<string>();
  let firstLongEnough = 0;
  points.forEach((start) => {
    while (firstLongEnough < points.length && points[firstLongEnough]!.seconds - start.seconds < lengths.minSeconds) {
      firstLongEnough += 1;
    }
    if (!start.canStart) return;
    for (let end = firstLongEnough; end < points.length; end += 1) {
      const endPoint = points[end]!;
      if (endPoint.seconds - start.seconds > lengths.maxSeconds) break;
      if (!endPoint.canEnd) continue;
      if (ideas.size > 0) seen.add(rangeKey(start.seconds, endPoint.seconds));
      candidates.push({
        startSeconds: start.seconds,
        endSeconds: endPoint.seconds,
        score: score(start.seconds, endPoint.seconds),
      });
    }
  });
  for (const [key, idea] of ideas) {
    if (seen.has(key)) continue;
    const startSeconds = sentenceEdges(sentences, idea.firstSentence, duration)[0];
    const endSeconds = sentenceEdges(sentences, idea.lastSentence, duration)[1];
    candidates.push({ startSeconds, endSeconds, score: score(startSeconds, endSeconds) });
  }

  const taken: Candidate[] = [];
  for (const candidate of candidates.sort(byScoreThenStart)) {
    if (taken.length >= options.maxClips) break;
    const overlaps = taken.some(
      (clip) => candidate.startSeconds < clip.endSeconds && clip.startSeconds < candidate.endSeconds,
    );
    if (!overlaps) taken.push(candidate);
  }
  return { lengths: lengthsName, clips: taken.map(explained) };
}
