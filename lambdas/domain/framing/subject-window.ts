import type { AspectRatio } from '#contract/types';
import { OUTPUT_DIMENSIONS } from '#domain/video-jobs/providers/port';

/**
 * The crop window of subject framing at its widest: the largest window of the target's shape
 * inside the source frame, which slides along the source's longer side (`x` for a landscape
 * source cut to 9:16 or 1:1, `y` for a portrait one cut to 16:9 or 1:1) and spans the whole of
 * the other. The framing may take a smaller window of the same shape (people-framing.ts).
 */
export interface CropWindow {
  axis: 'x' | 'y';
  /** Crop size in source pixels, even for 4:2:0 chroma. */
  width: number;
  height: number;
}

/** Aspect ratios closer than this are the same layout: a 2% stretch is invisible, bars of 2% are not. */
export const SAME_ASPECT_TOLERANCE = 0.02;

export const evenFloor = (value: number) => Math.max(2, 2 * Math.floor(value / 2));

/** The window, or null when the source already has the target's shape (it is only scaled). */
export function subjectCropWindow(
  aspectRatio: AspectRatio,
  source: { width: number; height: number },
): CropWindow | null {
  const target = OUTPUT_DIMENSIONS[aspectRatio];
  const targetAspect = target.width / target.height;
  const sourceAspect = source.width / source.height;
  if (Math.abs(sourceAspect / targetAspect - 1) <= SAME_ASPECT_TOLERANCE) return null;
  if (sourceAspect > targetAspect) {
    return { axis: 'x', width: evenFloor(source.height * targetAspect), height: evenFloor(source.height) };
  }
  return { axis: 'y', width: evenFloor(source.width), height: evenFloor(source.width / targetAspect) };
}

/**
 * Frames are sampled this many times a second to find people: a presenter's walk across the
 * frame takes seconds, and the window follows at a quarter of the frame a second at most. The
 * detector looks at fewer (people-detection.ts: a still picture once, a frame between two alike
 * given the faces between theirs), about 14 ms of CPU a frame on a talk.
 */
export const SUBJECT_SAMPLE_RATE = 1;
/**
 * The sampled frames' longer side, in pixels: the face detector's input side, at which a face of
 * a tenth of a 16:9 frame's height is still 14 pixels, about the smallest it finds.
 */
const SAMPLE_LONG_SIDE = 256;

/** The size frames are sampled at for finding people: the source's shape, its longer side SAMPLE_LONG_SIDE. */
export function subjectSampleSize(source: { width: number; height: number }): { width: number; height: number } {
  const scale = SAMPLE_LONG_SIDE / Math.max(source.width, source.height);
  return { width: evenFloor(source.width * scale), height: evenFloor(source.height * scale) };
}
