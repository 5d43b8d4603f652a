import type { AspectRatio } from '#contract/types';
import { OUTPUT_DIMENSIONS } from '#domain/video-jobs/providers/port';
import type { Detection, PeopleInFrame } from './people-detection';
import { planWindowPath, shotsOf, type MovingCrop } from './subject-path';
import { evenFloor, subjectCropWindow } from './subject-window';

/**
 * How a clip is framed from the people found in its sampled frames (people-detection.ts), the way
 * an editor reframes a talk for a vertical feed:
 *
 * - The detections are linked into tracks, one per person: a face close to where a person was
 *   seen in the last MAX_GAP_SECONDS continues that person; a body (MoveNet's box) continues one
 *   whose face is turned away or hidden; a person missing for a moment is held where last seen.
 * - `subject`: the window follows one person (the one on screen longest, per shot), their eyes on
 *   the window's upper third, their head and shoulders whole; the window is taken smaller than the
 *   source's height where that puts the eyes on the upper third (a presenter low in the picture)
 *   or a small head at MIN_HEAD_SHARE of the clip's height, never smaller than
 *   MIN_WINDOW_HEIGHT_SHARE of the source's height, which would enlarge the picture too much.
 * - `stacked`: two people far apart each get one half of the frame, the left one on top.
 * - `fit`: the whole picture (framing.ts).
 *
 * Under `auto` the clip follows one person when one is in most of it (MIN_PRESENCE), both of two
 * when they stand close enough for one window, stacks two far apart for a vertical or square clip,
 * and fits anything else (slides, screens, wide shots, a crowd). Every plan says why in a sentence.
 */

/** A face is trusted from this score (BlazeFace scores text and patterns up to about 0.45). */
const FACE_SCORE = 0.6;
/** MoveNet scores a person whose face it cannot see at about a third; a body narrower than MIN_BODY_WIDTH (of the frame) is noise. */
const BODY_SCORE = 0.3;
const MIN_BODY_WIDTH = 0.03;
/** A person unseen for up to this long (turned away, behind a gesture) is held where last seen... */
const MAX_GAP_SECONDS = 4;
/** ...and a sighting continues a person unseen for up to this long. */
const MEMORY_SECONDS = 10;
/** A sighting continues a person last seen within this many of its widths, or this share of the frame's width. */
const REACH_WIDTHS = 2.5;
const REACH_SHARE = 0.2;
/** Under `auto`, a person is in the clip when present in at least this share of its samples. */
const MIN_PRESENCE = 0.5;
/** A head should fill at least this share of the clip's height. */
const MIN_HEAD_SHARE = 0.15;
/** A closer window is never less than this share of the source's height. */
const MIN_WINDOW_HEIGHT_SHARE = 0.65;
/** A stacked half shows its person's head at about this share of the half's height. */
const STACKED_HEAD_SHARE = 0.3;
/** How far the window lets its person drift from its centre, as a share of its length, where the shoulders allow. */
const HOLD_SHARE = 0.15;
/** The smallest stacked crop, as a share of the source's height. */
const MIN_STACKED_HEIGHT_SHARE = 0.35;
/** BlazeFace's box runs from the brows to the chin: the head reaches this share of the box's height above it... */
const HAIR_SHARE = 0.35;
/** ...the eyes sit this far down the box... */
const EYE_SHARE = 0.3;
/** ...and head and shoulders are this many face widths wide. */
const SHOULDERS_FACE_WIDTHS = 3;
/** A body's head is about this share of its box's height, its eyes this far down the box. */
const BODY_HEAD_SHARE = 0.16;
const BODY_EYE_SHARE = 0.07;

export type FramingPlan =
  | { framing: 'fit'; reason: string }
  | { framing: 'subject'; reason: string; crop: MovingCrop }
  | { framing: 'stacked'; reason: string; crops: readonly [MovingCrop, MovingCrop] };

export interface FramingRequest {
  mode: 'auto' | 'subject' | 'stacked';
  aspectRatio: AspectRatio;
  source: { width: number; height: number };
  /** The people in frames sampled `samplesPerSecond` times a second from the clip's start. */
  samples: readonly PeopleInFrame[];
  samplesPerSecond: number;
  durationSeconds: number;
  /** Seconds from the clip's start at which a new shot starts (scene cuts), in order. */
  shotStarts: readonly number[];
}

/** One sighting of a person, in source pixels. */
interface Sighting {
  sample: number;
  centreX: number;
  eyeY: number;
  /** The head's height: from a face, or estimated from a body. */
  headHeight: number;
  width: number;
  fromFace: boolean;
}

interface Track {
  sightings: Sighting[];
  /** Per sample, the sighting there, if any. */
  at: (Sighting | undefined)[];
  /** Per sample, whether the person is there: seen, or unseen for no longer than MAX_GAP_SECONDS between two sightings. */
  present: boolean[];
}

/** Where the eyes and how tall the head are within a detection's box, as shares of its height. */
const FACE_BOX = { eyes: EYE_SHARE, head: 1 + HAIR_SHARE };
const BODY_BOX = { eyes: BODY_EYE_SHARE, head: BODY_HEAD_SHARE };

function sightingOf(sample: number, box: Detection, source: FramingRequest['source'], fromFace: boolean): Sighting {
  const proportions = fromFace ? FACE_BOX : BODY_BOX;
  const height = box.height * source.height;
  return {
    sample,
    centreX: (box.x + box.width / 2) * source.width,
    eyeY: box.y * source.height + proportions.eyes * height,
    headHeight: proportions.head * height,
    width: box.width * source.width,
    fromFace,
  };
}

/** The sightings of its face where there are any (a body's box only estimates the head), else all. */
function trusted(tracks: readonly Track[]): Sighting[] {
  const all = tracks.flatMap((track) => track.sightings);
  const faces = all.filter((sighting) => sighting.fromFace);
  return faces.length > 0 ? faces : all;
}

/** Links the sightings of each sample to the people seen before, nearest first. */
function trackPeople(request: FramingRequest): Track[] {
  const maxGap = Math.max(1, Math.round(MAX_GAP_SECONDS * request.samplesPerSecond));
  const memory = Math.max(1, Math.round(MEMORY_SECONDS * request.samplesPerSecond));
  const tracks: Sighting[][] = [];
  request.samples.forEach((frame, sample) => {
    const faces = frame.faces
      .filter((face) => face.score >= FACE_SCORE)
      .map((face) => sightingOf(sample, face, request.source, true));
    const bodies = frame.bodies
      .filter((body) => body.score >= BODY_SCORE && body.width >= MIN_BODY_WIDTH)
      .map((body) => sightingOf(sample, body, request.source, false));
    const taken = new Set<Sighting[]>();
    for (const sighting of [...faces, ...bodies]) {
      const reach = Math.max(REACH_WIDTHS * sighting.width, REACH_SHARE * request.source.width);
      const candidates = tracks
        .filter((track) => !taken.has(track) && sample - track.at(-1)!.sample <= memory)
        .map((track) => ({ track, distance: Math.abs(track.at(-1)!.centreX - sighting.centreX) }))
        .filter(({ distance }) => distance <= reach)
        .sort((a, b) => a.distance - b.distance);
      const track = candidates[0]?.track;
      // A body inside a face's track for this sample adds nothing: the face says more.
      if (!sighting.fromFace && !track && faces.some((face) => Math.abs(face.centreX - sighting.centreX) <= reach)) {
        continue;
      }
      if (track) {
        track.push(sighting);
        taken.add(track);
      } else {
        const created = [sighting];
        tracks.push(created);
        taken.add(created);
      }
    }
  });
  return tracks.map((sightings) => {
    const present = new Array<boolean>(request.samples.length).fill(false);
    const at = new Array<Sighting | undefined>(request.samples.length).fill(undefined);
    sightings.forEach((sighting, index) => {
      at[sighting.sample] = sighting;
      const next = sightings[index + 1];
      const until = next && next.sample - sighting.sample - 1 <= maxGap ? next.sample : sighting.sample + 1;
      for (let sample = sighting.sample; sample < until; sample += 1) present[sample] = true;
    });
    return { sightings, at, present };
  });
}

const share = (flags: readonly boolean[]) => (flags.length === 0 ? 0 : flags.filter(Boolean).length / flags.length);
const percent = (value: number) => `${Math.round(value * 100)}%`;
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};

/** A window of `size` aimed, per sample, at `aims` (where one is known), moved along its paths. */
function movingCrop(
  request: FramingRequest,
  size: { width: number; height: number },
  aims: readonly ({ x: number; y: number } | undefined)[],
  hold?: { x: number; y: number },
): MovingCrop {
  const travelX = evenFloor(request.source.width) - size.width;
  const travelY = evenFloor(request.source.height) - size.height;
  const along = (axis: 'x' | 'y') =>
    planWindowPath({
      aims: aims.map((aim) => aim?.[axis]),
      samplesPerSecond: request.samplesPerSecond,
      windowLength: axis === 'x' ? size.width : size.height,
      frameLength: axis === 'x' ? request.source.width : request.source.height,
      durationSeconds: request.durationSeconds,
      shotStarts: request.shotStarts,
      holdDistance: hold?.[axis],
    });
  return { ...size, travelX: Math.max(0, travelX), travelY: Math.max(0, travelY), xs: along('x'), ys: along('y') };
}

/** The even-sized window of `aspect` (width / height) and `height`, shrunk to fit the source. */
function windowOf(aspect: number, height: number, source: FramingRequest['source']) {
  const fitted = Math.min(height, source.height, source.width / aspect);
  return { width: evenFloor(fitted * aspect), height: evenFloor(fitted) };
}

/** Where a window of `size` starts to put these sightings' eyes on its upper third and their middle on its centre. */
function aimAt(sightings: readonly Sighting[], size: { width: number; height: number }) {
  const left = Math.min(...sightings.map((sighting) => sighting.centreX - sighting.width / 2));
  const right = Math.max(...sightings.map((sighting) => sighting.centreX + sighting.width / 2));
  const eyeY = Math.min(...sightings.map((sighting) => sighting.eyeY));
  return { x: (left + right) / 2 - size.width / 2, y: eyeY - size.height / 3 };
}

/** The crop following `tracks` (one person, or two side by side) through the clip, each shot on its own. */
function followingCrop(request: FramingRequest, tracks: readonly Track[], others: readonly Track[]): MovingCrop {
  const full = subjectCropWindow(request.aspectRatio, request.source)!;
  const aspect = full.width / full.height;
  const faces = trusted(tracks);
  const headHeight = median(faces.map((sighting) => sighting.headHeight));
  // Closer in for a small head, and for eyes low in the picture: a window whose upper third is
  // at eye level reaches no further than twice a third of its height below the eyes.
  const closer = headHeight > 0 ? headHeight / MIN_HEAD_SHARE : full.height;
  const eyeLevel = median(tracks.flatMap((track) => track.sightings.map((sighting) => sighting.eyeY)));
  const eyesOnThird = 1.5 * (request.source.height - eyeLevel);
  // Never so close that the shoulders no longer fit across.
  const faceWidth = median(faces.filter((sighting) => sighting.fromFace).map((sighting) => sighting.width));
  const shoulders = SHOULDERS_FACE_WIDTHS * faceWidth;
  const height = Math.max(
    MIN_WINDOW_HEIGHT_SHARE * request.source.height,
    Math.min(full.height, Math.max(shoulders / aspect, Math.min(closer, eyesOnThird))),
  );
  const size = windowOf(aspect, height, request.source);
  // The person may drift off centre only as far as the shoulders stay inside.
  const hold = { x: Math.max(0, (size.width - shoulders) / 2), y: HOLD_SHARE * size.height };
  const aims = new Array<{ x: number; y: number } | undefined>(request.samples.length).fill(undefined);
  for (const shot of shotsOf(request, request.samples.length)) {
    // Each shot follows whom it shows: the clip's person where they are in it, else the shot's own.
    const inShot = (track: Track) => share(track.present.slice(shot.firstSample, shot.endSample));
    const shotsOwn = [...others].sort((a, b) => inShot(b) - inShot(a)).slice(0, 1);
    const followed = tracks.some((track) => inShot(track) > 0) ? tracks : shotsOwn;
    for (let sample = shot.firstSample; sample < shot.endSample; sample += 1) {
      const seen = followed.flatMap((track) => track.at[sample] ?? []);
      if (seen.length > 0) aims[sample] = aimAt(seen, size);
    }
  }
  return movingCrop(request, size, aims, hold);
}

/** One half of a stacked clip, following one person. */
function stackedCrop(request: FramingRequest, track: Track): MovingCrop {
  const { width, height } = OUTPUT_DIMENSIONS[request.aspectRatio];
  const halfAspect = width / (height / 2);
  const headHeight = median(trusted([track]).map((sighting) => sighting.headHeight));
  const cropHeight = Math.max(MIN_STACKED_HEIGHT_SHARE * request.source.height, headHeight / STACKED_HEAD_SHARE);
  const size = windowOf(halfAspect, cropHeight, request.source);
  const aims = track.at.map((sighting) => (sighting ? aimAt([sighting], size) : undefined));
  return movingCrop(request, size, aims);
}

/** Whether both people's heads and shoulders fit across one window of the widest size. */
function fitSideBySide(first: Track, second: Track, windowWidth: number): boolean {
  const span = (track: Track) => {
    const used = trusted([track]);
    const centre = median(used.map((sighting) => sighting.centreX));
    const widths = used.map((sighting) => (sighting.fromFace ? SHOULDERS_FACE_WIDTHS : 1) * sighting.width);
    return [centre - median(widths) / 2, centre + median(widths) / 2] as const;
  };
  const [a, b] = [span(first), span(second)];
  return Math.max(a[1], b[1]) - Math.min(a[0], b[0]) <= windowWidth;
}

const together = (first: Track, second: Track) =>
  first.present.map((present, index) => present && second.present[index]!);

/** How the clip is framed, and why. */
export function planClipFraming(request: FramingRequest): FramingPlan {
  const full = subjectCropWindow(request.aspectRatio, request.source);
  if (!full) return { framing: 'fit', reason: "The source already has the clip's shape." };
  const tracks = trackPeople(request).sort((a, b) => share(b.present) - share(a.present));
  const main = tracks[0];
  if (!main)
    return {
      framing: 'fit',
      reason: 'No person in the clip (a slide, a screen or a wide shot): the whole picture is shown.',
    };
  const people = tracks.filter((track) => share(track.present) >= MIN_PRESENCE);
  const second = people[1];
  const canStack = full.axis === 'x' && request.aspectRatio !== '16:9';

  if (request.mode !== 'subject' && second) {
    const both = share(together(main, second));
    if (both >= MIN_PRESENCE) {
      if (fitSideBySide(main, second, full.width)) {
        return {
          framing: 'subject',
          reason: `Two people side by side in ${percent(both)} of the clip: the frame holds both.`,
          crop: followingCrop(request, [main, second], tracks.slice(2)),
        };
      }
      if (people.length === 2 && canStack) {
        const [left, right] = [main, second].sort(
          (a, b) => median(a.sightings.map((s) => s.centreX)) - median(b.sightings.map((s) => s.centreX)),
        );
        return {
          framing: 'stacked',
          reason: `Two people far apart in ${percent(both)} of the clip: one in each half of the frame, the left one on top.`,
          crops: [stackedCrop(request, left!), stackedCrop(request, right!)],
        };
      }
      if (request.mode === 'auto') {
        return {
          framing: 'fit',
          reason: `${people.length} people across the picture in ${percent(both)} of the clip: the whole picture is shown.`,
        };
      }
    }
  }
  const presence = share(main.present);
  if (request.mode === 'auto' && presence < MIN_PRESENCE) {
    return {
      framing: 'fit',
      reason: `A person in only ${percent(presence)} of the clip (slides, a screen or a wide shot the rest): the whole picture is shown.`,
    };
  }
  return {
    framing: 'subject',
    reason: `One person in ${percent(presence)} of the clip: the frame follows them.`,
    crop: followingCrop(request, [main], tracks.slice(1)),
  };
}
