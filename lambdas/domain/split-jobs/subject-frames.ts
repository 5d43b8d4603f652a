import { readFile } from 'node:fs/promises';
import type { SplitJobInput } from '#contract/types';
import { peopleDetector, type Detection, type PeopleInFrame } from '#domain/framing/people-detection';
import { planClipFraming, type FramingPlan } from '#domain/framing/people-framing';
import { SUBJECT_SAMPLE_RATE, subjectCropWindow, subjectSampleSize } from '#domain/framing/subject-window';
import type { TimeRange } from './source-analysis';

/**
 * The frames each analysis segment samples for framing (analysis.ts writes them, SUBJECT_SAMPLE_RATE
 * a second), the people found in them (kept under work/, one object per segment), and what a
 * clip's render makes of those: how the clip is framed and why (people-framing.ts).
 */

/** The file the analysis writes the sampled frames to. */
export const SUBJECT_FRAMES_FILE_NAME = 'subject-frames.rgb';

export interface SubjectFrameSize {
  width: number;
  height: number;
}

/**
 * The size the analysis samples frames at, or undefined when no clip of the job can be cropped:
 * the job asked for `fit`, or the source already has the target's shape.
 */
export function subjectFramesToSample(
  input: Pick<SplitJobInput, 'framing' | 'aspect_ratio'>,
  source: { width: number; height: number },
): SubjectFrameSize | undefined {
  if (input.framing === 'fit' || !subjectCropWindow(input.aspect_ratio, source)) return undefined;
  return subjectSampleSize(source);
}

/** A detection as stored: x, y, width, height (shares of the frame) and score, to four decimals. */
type StoredDetection = [number, number, number, number, number];

/** The people in one segment's sampled frames, as stored under work/. */
export interface SegmentPeople {
  frames: { faces: StoredDetection[]; bodies: StoredDetection[] }[];
}

const stored = (detection: Detection): StoredDetection =>
  [detection.x, detection.y, detection.width, detection.height, detection.score].map(
    (value) => Math.round(value * 10_000) / 10_000,
  ) as StoredDetection;

const detection = ([x, y, width, height, score]: StoredDetection): Detection => ({ x, y, width, height, score });

/** The people in the frames the analysis sampled into `framesPath`; stops between frames when `signal` aborts. */
export async function findSegmentPeople(
  framesPath: string,
  size: SubjectFrameSize,
  signal?: AbortSignal,
): Promise<SegmentPeople> {
  const rgb = await readFile(framesPath);
  const detector = await peopleDetector();
  const frames = await detector.detectSampled({ rgb, ...size }, signal);
  return { frames: frames.map((frame) => ({ faces: frame.faces.map(stored), bodies: frame.bodies.map(stored) })) };
}

/** What decides a clip's framing, besides the people found. */
export interface ClipFramingRequest {
  framing: SplitJobInput['framing'];
  aspectRatio: SplitJobInput['aspect_ratio'];
  source: { width: number; height: number };
  clip: TimeRange;
  /** Source seconds of the scene cuts inside the clip. */
  sceneCuts: readonly number[];
  /** The analysis segments, and the people found in one of them (read when needed). */
  segments: readonly TimeRange[];
  peopleOf: (segmentIndex: number) => Promise<SegmentPeople>;
}

/** The people in the clip's frames, SUBJECT_SAMPLE_RATE a second from its start; fewer where the source ended. */
async function clipPeople(request: ClipFramingRequest): Promise<PeopleInFrame[]> {
  const { clip, segments } = request;
  const count = Math.ceil((clip.endSeconds - clip.startSeconds) * SUBJECT_SAMPLE_RATE);
  const wanted: { segment: number; frame: number }[] = [];
  for (let sample = 0; sample < count; sample += 1) {
    const time = clip.startSeconds + sample / SUBJECT_SAMPLE_RATE;
    const segment = segments.findIndex((range) => time < range.endSeconds);
    if (segment < 0) break;
    wanted.push({ segment, frame: Math.round((time - segments[segment]!.startSeconds) * SUBJECT_SAMPLE_RATE) });
  }
  const indexes = [...new Set(wanted.map(({ segment }) => segment))];
  const found = new Map(
    await Promise.all(indexes.map(async (index) => [index, await request.peopleOf(index)] as const)),
  );
  const people: PeopleInFrame[] = [];
  for (const { segment, frame } of wanted) {
    const stored = found.get(segment)!.frames[frame];
    // A segment holding fewer frames than asked for is where the decodable source ended.
    if (!stored) break;
    people.push({ faces: stored.faces.map(detection), bodies: stored.bodies.map(detection) });
  }
  return people;
}

/** How the clip is framed, and why. */
export async function clipFraming(request: ClipFramingRequest): Promise<FramingPlan> {
  if (request.framing === 'fit') return { framing: 'fit', reason: 'The whole picture is shown, as the job asked.' };
  return planClipFraming({
    mode: request.framing,
    aspectRatio: request.aspectRatio,
    source: request.source,
    samples: subjectCropWindow(request.aspectRatio, request.source) ? await clipPeople(request) : [],
    samplesPerSecond: SUBJECT_SAMPLE_RATE,
    durationSeconds: request.clip.endSeconds - request.clip.startSeconds,
    shotStarts: request.sceneCuts.map((cut) => cut - request.clip.startSeconds),
  });
}

/** How a clip of the whole of `clip` would be framed from frames sampled into `framesPath` from its start (the bench, the docs' stills). */
export async function framingOfSampledFrames(
  framesPath: string,
  size: SubjectFrameSize,
  request: Omit<ClipFramingRequest, 'segments' | 'peopleOf'>,
): Promise<FramingPlan> {
  const people = await findSegmentPeople(framesPath, size);
  return clipFraming({ ...request, segments: [request.clip], peopleOf: () => Promise.resolve(people) });
}
