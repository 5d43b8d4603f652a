import type { SubjectSample } from './subject-detection';

/**
 * The path of a subject-following crop window through a clip, from the subject found in frames
 * sampled SUBJECT_SAMPLE_RATE times a second (subject-detection.ts), and whether the clip should
 * follow its subject at all.
 *
 * The window moves like a camera operator would move it: it holds still while the subject stays
 * near the window's centre (HOLD_DISTANCE); when the subject leaves that zone, the window is
 * re-aimed at it, at no more than MAX_PAN_SPEED and easing in and out over EASE_SECONDS; a
 * subject seen in one sample only is ignored. The speed limit is run forwards and backwards and
 * the two averaged, so that the window starts moving before the subject leaves it, and still
 * never moves faster than the limit; easing is a moving average, which keeps that bound. Each
 * shot (between the scene cuts inside the clip) is framed on its own, as an editor would: the
 * window is placed on the new shot's subject at the cut, where the whole picture changes anyway,
 * instead of panning across the new shot to reach it.
 *
 * Under `auto`, a clip follows its subject when smartcrop found one on most of its sampled
 * frames (MIN_CONFIDENT_SHARE of them) and the smoothed window kept that subject on nearly all
 * (MIN_KEPT_SHARE): a slide, a wide shot or two people far apart have no window that holds most
 * of the picture's salience, and are fitted whole instead.
 */

/** Crop positions are given this many times a second: the clip's frame-rate cap. */
export const PATH_FRAME_RATE = 30;
/** The fastest the window pans, in shares of the sampled frame's extent along the axis per second. */
export const MAX_PAN_SPEED = 0.25;
/** The subject may drift this share of the window's length from its centre before the window follows. */
const HOLD_DISTANCE = 0.15;
/** Starts and stops of a pan are eased over this long. */
const EASE_SECONDS = 0.5;
/** A sampled frame has one subject when the best window holds at least this share of its salience. */
const MIN_WINDOW_SHARE = 0.6;
/** Below this mean salience per sample pixel, a frame is too plain to hold a subject (a black frame). */
const MIN_MEAN_SALIENCE = 0.02;
/** Under `auto`, a clip follows its subject when at least this share of its samples found one... */
const MIN_CONFIDENT_SHARE = 0.8;
/** ...and the window kept at least KEPT_SALIENCE of that subject's salience in this share of those samples. */
const MIN_KEPT_SHARE = 0.95;
const KEPT_SALIENCE = 0.85;

export interface PathRequest {
  samples: readonly SubjectSample[];
  samplesPerSecond: number;
  /** The window's and the sampled frame's length along the axis, in sample pixels. */
  windowLength: number;
  frameLength: number;
  durationSeconds: number;
  /** Seconds from the clip's start at which a new shot starts (scene cuts), in order. */
  shotStarts: readonly number[];
  /** `subject` follows the most salient window whatever the frames hold; `auto` judges first. */
  mode: 'auto' | 'subject';
}

export type SubjectPath =
  | { framing: 'fit' }
  | {
      framing: 'subject';
      /** Where the window starts along the axis, as a share (0 to 1) of how far it can slide, PATH_FRAME_RATE times a second. */
      positions: number[];
    };

const sum = (values: readonly number[], from = 0, to = values.length) => {
  let total = 0;
  for (let index = Math.max(0, from); index < Math.min(values.length, to); index += 1) total += values[index]!;
  return total;
};

function windowMass(profile: readonly number[], start: number, length: number): number {
  const first = Math.round(start);
  return sum(profile, first, first + Math.round(length));
}

function hasOneSubject(sample: SubjectSample, windowLength: number): boolean {
  if (sample.meanSalience < MIN_MEAN_SALIENCE) return false;
  return windowMass(sample.profile, sample.bestStart, windowLength) >= MIN_WINDOW_SHARE * sum(sample.profile);
}

const median3 = (a: number, b: number, c: number) => Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));

/** The best window's start per sample; samples without a subject keep the nearest one that has one. */
function aims(samples: readonly SubjectSample[], confident: readonly boolean[], travel: number): number[] {
  const firstConfident = confident.indexOf(true);
  let last = firstConfident < 0 ? travel / 2 : samples[firstConfident]!.bestStart;
  const raw = samples.map((sample, index) => {
    if (confident[index]) last = sample.bestStart;
    return last;
  });
  return raw.map((aim, index) => median3(raw[index - 1] ?? aim, aim, raw[index + 1] ?? aim));
}

/** Holds the window still until the aim leaves the hold zone, then re-aims it. */
function heldGoals(aimed: readonly number[], windowLength: number): number[] {
  let held = aimed[0] ?? 0;
  return aimed.map((aim) => {
    if (Math.abs(aim - held) > HOLD_DISTANCE * windowLength) held = aim;
    return held;
  });
}

function limitSpeed(goals: readonly number[], maxStep: number, backwards: boolean): number[] {
  const path = new Array<number>(goals.length);
  const order = goals.map((_, index) => (backwards ? goals.length - 1 - index : index));
  let position = goals[order[0]!]!;
  for (const index of order) {
    position += Math.max(-maxStep, Math.min(maxStep, goals[index]! - position));
    path[index] = position;
  }
  return path;
}

function movingAverage(values: readonly number[], radius: number): number[] {
  return values.map((_, index) => {
    const from = Math.max(0, index - radius);
    const to = Math.min(values.length, index + radius + 1);
    return sum(values, from, to) / (to - from);
  });
}

/** Each shot's first and last sample and frame (ends excluded): the shots cut the clip at its scene cuts. */
function shotsOf(request: PathRequest, frameCount: number) {
  const sampleAt = (seconds: number) => Math.round(seconds * request.samplesPerSecond);
  const frameAt = (seconds: number) => Math.round(seconds * PATH_FRAME_RATE);
  const starts = [0, ...request.shotStarts.filter((start) => frameAt(start) > 0 && frameAt(start) < frameCount)];
  return starts.map((start, index) => {
    const end = starts[index + 1];
    const firstSample = Math.min(request.samples.length - 1, sampleAt(start));
    return {
      firstSample,
      // A shot shorter than a sample's interval takes the sample nearest its start.
      endSample: Math.max(
        firstSample + 1,
        Math.min(request.samples.length, end === undefined ? Infinity : sampleAt(end)),
      ),
      firstFrame: frameAt(start),
      endFrame: end === undefined ? frameCount : frameAt(end),
    };
  });
}

/** The window's start per frame of one shot, in sample pixels, from the shot's samples. */
function shotPath(
  request: PathRequest,
  confident: readonly boolean[],
  shot: ReturnType<typeof shotsOf>[number],
): number[] {
  const { windowLength, frameLength } = request;
  const travel = frameLength - windowLength;
  const samples = request.samples.slice(shot.firstSample, shot.endSample);
  const goals = heldGoals(aims(samples, confident.slice(shot.firstSample, shot.endSample), travel), windowLength);
  const frameGoals = Array.from({ length: shot.endFrame - shot.firstFrame }, (_, index) => {
    const seconds = (shot.firstFrame + index) / PATH_FRAME_RATE;
    const sampleIndex = Math.round(seconds * request.samplesPerSecond) - shot.firstSample;
    return goals[Math.max(0, Math.min(goals.length - 1, sampleIndex))]!;
  });
  const maxStep = (MAX_PAN_SPEED * frameLength) / PATH_FRAME_RATE;
  const forwards = limitSpeed(frameGoals, maxStep, false);
  const backwards = limitSpeed(frameGoals, maxStep, true);
  const limited = forwards.map((position, index) => (position + backwards[index]!) / 2);
  return movingAverage(limited, Math.round((EASE_SECONDS * PATH_FRAME_RATE) / 2)).map((start) =>
    Math.max(0, Math.min(travel, start)),
  );
}

/** The clip's framing, and the window's path when it follows its subject. */
export function planSubjectPath(request: PathRequest): SubjectPath {
  const { samples, windowLength, frameLength } = request;
  const travel = frameLength - windowLength;
  if (samples.length === 0 || travel <= 0) return { framing: 'fit' };
  const confident = samples.map((sample) => hasOneSubject(sample, windowLength));
  const confidentCount = confident.filter(Boolean).length;
  if (request.mode === 'auto' && confidentCount < MIN_CONFIDENT_SHARE * samples.length) return { framing: 'fit' };

  const frameCount = Math.max(1, Math.round(request.durationSeconds * PATH_FRAME_RATE));
  const starts = shotsOf(request, frameCount).flatMap((shot) => shotPath(request, confident, shot));

  if (request.mode === 'auto') {
    let kept = 0;
    samples.forEach((sample, index) => {
      if (!confident[index]) return;
      const frame = Math.min(starts.length - 1, Math.round((index / request.samplesPerSecond) * PATH_FRAME_RATE));
      const best = windowMass(sample.profile, sample.bestStart, windowLength);
      if (windowMass(sample.profile, starts[frame]!, windowLength) >= KEPT_SALIENCE * best) kept += 1;
    });
    if (kept < MIN_KEPT_SHARE * confidentCount) return { framing: 'fit' };
  }
  return { framing: 'subject', positions: starts.map((start) => start / travel) };
}
