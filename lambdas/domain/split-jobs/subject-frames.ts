import type { AspectRatio, SplitJobInput } from '#contract/types';
import { getObjectRange } from '#domain/assets/media';
import { findSubjects } from '#domain/framing/subject-detection';
import { planSubjectPath } from '#domain/framing/subject-path';
import {
  SUBJECT_SAMPLE_RATE,
  subjectCropWindow,
  subjectSampleSize,
  type CropWindow,
} from '#domain/framing/subject-window';
import type { TimeRange } from './source-analysis';

/**
 * The frames each analysis segment samples for subject framing (analysis.ts writes them, one
 * object per segment under work/), and what a clip's render makes of them: a crop window and its
 * path, or nothing (the clip is fitted whole).
 */

/** The file the analysis writes the sampled frames to, before they are stored. */
export const SUBJECT_FRAMES_FILE_NAME = 'subject-frames.rgb';

export interface SubjectFrameSize {
  width: number;
  height: number;
}

/**
 * The size the analysis samples frames at, or undefined when no clip of the job can follow a
 * subject: the job asked for `fit`, or the source already has the target's shape.
 */
export function subjectFramesToSample(
  input: Pick<SplitJobInput, 'framing' | 'aspect_ratio'>,
  source: { width: number; height: number },
): SubjectFrameSize | undefined {
  if (input.framing === 'fit' || !subjectCropWindow(input.aspect_ratio, source)) return undefined;
  return subjectSampleSize(source);
}

/**
 * The frames sampled at SUBJECT_SAMPLE_RATE a second from the clip's start, read from the
 * segments' objects (one ranged read per segment the clip spans); fewer where the source ended.
 */
async function readClipFrames(
  objectKeyOf: (segmentIndex: number) => string,
  segments: readonly TimeRange[],
  clip: TimeRange,
  size: SubjectFrameSize,
): Promise<Uint8Array> {
  const frameBytes = size.width * size.height * 3;
  const count = Math.ceil((clip.endSeconds - clip.startSeconds) * SUBJECT_SAMPLE_RATE);
  /** Per segment the clip spans, the first and last of its frames the clip's samples fall on. */
  const wanted = new Map<number, { first: number; last: number }>();
  for (let sample = 0; sample < count; sample += 1) {
    const time = clip.startSeconds + sample / SUBJECT_SAMPLE_RATE;
    const index = segments.findIndex((segment) => time < segment.endSeconds);
    if (index < 0) break;
    const frame = Math.round((time - segments[index]!.startSeconds) * SUBJECT_SAMPLE_RATE);
    const span = wanted.get(index);
    wanted.set(index, { first: span?.first ?? frame, last: frame });
  }
  const reads = await Promise.all(
    [...wanted].map(async ([index, { first, last }]) => ({
      bytes: await getObjectRange(objectKeyOf(index), first * frameBytes, (last + 1) * frameBytes - 1),
      askedBytes: (last - first + 1) * frameBytes,
    })),
  );
  const parts: Uint8Array[] = [];
  // A segment that holds fewer frames than asked for is where the decodable source ended: the
  // frames after it would not follow on in time.
  for (const { bytes, askedBytes } of reads) {
    parts.push(bytes.subarray(0, Math.floor(bytes.length / frameBytes) * frameBytes));
    if (bytes.length < askedBytes) break;
  }
  return Buffer.concat(parts);
}

/** What decides a clip's framing, besides its sampled frames. */
export interface ClipFramingRequest {
  framing: 'auto' | 'subject';
  aspectRatio: AspectRatio;
  source: { width: number; height: number };
  frameSize: SubjectFrameSize;
  clip: TimeRange;
  /** Source seconds of the scene cuts inside the clip. */
  sceneCuts: readonly number[];
}

export type SubjectCrop = { window: CropWindow; positions: number[] };

/**
 * The crop window and its path when the clip follows its subject in `rgb` (its frames sampled
 * SUBJECT_SAMPLE_RATE a second from its start); undefined when it is fitted whole.
 */
export async function subjectCropOf(rgb: Uint8Array, request: ClipFramingRequest): Promise<SubjectCrop | undefined> {
  const window = subjectCropWindow(request.aspectRatio, request.source);
  if (!window) return undefined;
  const { frameSize } = request;
  const scale = frameSize.width / request.source.width;
  const samples = await findSubjects(
    { rgb, ...frameSize },
    { axis: window.axis, width: window.width * scale, height: window.height * scale },
  );
  const along = window.axis === 'x' ? 'width' : 'height';
  const path = planSubjectPath({
    samples,
    samplesPerSecond: SUBJECT_SAMPLE_RATE,
    windowLength: window[along] * scale,
    frameLength: frameSize[along],
    durationSeconds: request.clip.endSeconds - request.clip.startSeconds,
    shotStarts: request.sceneCuts.map((cut) => cut - request.clip.startSeconds),
    mode: request.framing,
  });
  return path.framing === 'subject' ? { window, positions: path.positions } : undefined;
}

/** subjectCropOf the clip's frames, read from the analysis segments' objects. */
export async function clipSubjectCrop(
  request: ClipFramingRequest & {
    segments: readonly TimeRange[];
    objectKeyOf: (segmentIndex: number) => string;
  },
): Promise<SubjectCrop | undefined> {
  if (!subjectCropWindow(request.aspectRatio, request.source)) return undefined;
  const rgb = await readClipFrames(request.objectKeyOf, request.segments, request.clip, request.frameSize);
  return subjectCropOf(rgb, request);
}
