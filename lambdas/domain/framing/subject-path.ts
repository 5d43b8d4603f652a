/**
 * The path of a crop window along one axis through a clip, from where the framing wants it in
 * frames sampled SUBJECT_SAMPLE_RATE times a second (people-framing.ts aims it at a person's head).
 *
 * The window moves like a camera operator would move it: it holds still while the subject stays
 * near the window's centre (HOLD_DISTANCE); when the subject leaves that zone, the window is
 * re-aimed at it, at no more than MAX_PAN_SPEED and easing in and out over EASE_SECONDS; an aim
 * seen in one sample only is ignored, and a sample without one keeps the nearest aim before it.
 * The speed limit is run forwards and backwards and the two averaged, so that the window starts
 * moving before the subject leaves it, and still never moves faster than the limit; easing is a
 * moving average, which keeps that bound. Each shot (between the scene cuts inside the clip) is
 * framed on its own, as an editor would: the window is placed on the new shot's subject at the
 * cut, where the whole picture changes anyway, instead of panning across the new shot to reach it.
 */

/** Crop positions are given this many times a second: the clip's frame-rate cap. */
export const PATH_FRAME_RATE = 30;
/** The fastest the window pans, in shares of the frame's extent along the axis per second. */
export const MAX_PAN_SPEED = 0.25;
/** The subject may drift this share of the window's length from its centre before the window follows. */
const HOLD_DISTANCE = 0.15;
/** Starts and stops of a pan are eased over this long. */
const EASE_SECONDS = 0.5;

/** A crop window that moves: its size in even source pixels, and per frame where it starts as shares of its travel. */
export interface MovingCrop {
  width: number;
  height: number;
  /** How far the window can slide along x and y, in source pixels. */
  travelX: number;
  travelY: number;
  /** Shares (0 to 1) of travelX and travelY, PATH_FRAME_RATE times a second. */
  xs: number[];
  ys: number[];
}

export interface PathRequest {
  /** Per sample, where the window should start along the axis (in the frame's units), or undefined where nothing was seen. */
  aims: readonly (number | undefined)[];
  samplesPerSecond: number;
  /** The window's and the frame's length along the axis, in the aims' units. */
  windowLength: number;
  frameLength: number;
  durationSeconds: number;
  /** Seconds from the clip's start at which a new shot starts (scene cuts), in order. */
  shotStarts: readonly number[];
  /** How far the aim may drift from where the window stands before it follows, in the aims' units; HOLD_DISTANCE of the window's length unless given. */
  holdDistance?: number;
}

const sum = (values: readonly number[], from = 0, to = values.length) => {
  let total = 0;
  for (let index = Math.max(0, from); index < Math.min(values.length, to); index += 1) total += values[index]!;
  return total;
};

const median3 = (a: number, b: number, c: number) => Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));

/**
 * The aim per sample. Samples without one between two that have one take the straight line
 * between them (a person who turned away kept walking: where they reappear is known, the clip
 * being framed after the fact); before the first and after the last, the nearest one.
 */
function filledAims(aims: readonly (number | undefined)[], travel: number): number[] {
  const known = aims.flatMap((aim, index) => (aim === undefined ? [] : [{ index, aim }]));
  if (known.length === 0) return aims.map(() => travel / 2);
  let next = 0;
  const raw = aims.map((aim, index) => {
    if (aim !== undefined) return aim;
    while (next < known.length && known[next]!.index < index) next += 1;
    const before = known[next - 1];
    const after = known[next];
    if (!before) return after!.aim;
    if (!after) return before.aim;
    return before.aim + ((after.aim - before.aim) * (index - before.index)) / (after.index - before.index);
  });
  return raw.map((aim, index) => median3(raw[index - 1] ?? aim, aim, raw[index + 1] ?? aim));
}

/** Holds the window still until the aim leaves the hold zone, then re-aims it. */
function heldGoals(aimed: readonly number[], holdDistance: number): number[] {
  let held = aimed[0] ?? 0;
  return aimed.map((aim) => {
    if (Math.abs(aim - held) > holdDistance) held = aim;
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

export interface Shot {
  firstSample: number;
  endSample: number;
  firstFrame: number;
  endFrame: number;
}

/** Each shot's first and last sample and frame (ends excluded): the shots cut the clip at its scene cuts. */
export function shotsOf(
  request: Pick<PathRequest, 'samplesPerSecond' | 'durationSeconds' | 'shotStarts'>,
  sampleCount: number,
): Shot[] {
  const frameCount = Math.max(1, Math.round(request.durationSeconds * PATH_FRAME_RATE));
  const sampleAt = (seconds: number) => Math.round(seconds * request.samplesPerSecond);
  const frameAt = (seconds: number) => Math.round(seconds * PATH_FRAME_RATE);
  const starts = [0, ...request.shotStarts.filter((start) => frameAt(start) > 0 && frameAt(start) < frameCount)];
  return starts.map((start, index) => {
    const end = starts[index + 1];
    const firstSample = Math.max(0, Math.min(sampleCount - 1, sampleAt(start)));
    return {
      firstSample,
      // A shot shorter than a sample's interval takes the sample nearest its start.
      endSample: Math.max(firstSample + 1, Math.min(sampleCount, end === undefined ? Infinity : sampleAt(end))),
      firstFrame: frameAt(start),
      endFrame: end === undefined ? frameCount : frameAt(end),
    };
  });
}

/** The window's start per frame of one shot, from the shot's aims. */
function shotPath(request: PathRequest, shot: Shot): number[] {
  const { windowLength, frameLength } = request;
  const travel = frameLength - windowLength;
  const goals = heldGoals(
    filledAims(request.aims.slice(shot.firstSample, shot.endSample), travel),
    request.holdDistance ?? HOLD_DISTANCE * windowLength,
  );
  // Between two samples the goal moves in a straight line: a subject walking at a steady pace is
  // followed at that pace, not in a step a sample.
  const frameGoals = Array.from({ length: shot.endFrame - shot.firstFrame }, (_, index) => {
    const seconds = (shot.firstFrame + index) / PATH_FRAME_RATE;
    const at = Math.max(0, Math.min(goals.length - 1, seconds * request.samplesPerSecond - shot.firstSample));
    const before = Math.floor(at);
    const after = Math.min(goals.length - 1, before + 1);
    return goals[before]! + (goals[after]! - goals[before]!) * (at - before);
  });
  const maxStep = (MAX_PAN_SPEED * frameLength) / PATH_FRAME_RATE;
  const forwards = limitSpeed(frameGoals, maxStep, false);
  const backwards = limitSpeed(frameGoals, maxStep, true);
  const limited = forwards.map((position, index) => (position + backwards[index]!) / 2);
  return movingAverage(limited, Math.round((EASE_SECONDS * PATH_FRAME_RATE) / 2)).map((start) =>
    Math.max(0, Math.min(travel, start)),
  );
}

/**
 * Where the window starts along the axis, as a share (0 to 1) of how far it can slide,
 * PATH_FRAME_RATE times a second; all 0 when it cannot slide.
 */
export function planWindowPath(request: PathRequest): number[] {
  const travel = request.frameLength - request.windowLength;
  const shots = shotsOf(request, request.aims.length);
  const frameCount = shots.at(-1)!.endFrame;
  if (travel <= 0 || request.aims.length === 0) return new Array<number>(frameCount).fill(0);
  return shots.flatMap((shot) => shotPath(request, shot)).map((start) => start / travel);
}
