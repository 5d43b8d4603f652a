import type { AspectRatio } from '#contract/types';
import { OUTPUT_DIMENSIONS } from '#domain/video-jobs/providers/port';

/**
 * How a picture of one shape is put into a frame of another, for split clips and for generated
 * videos alike. A source whose aspect ratio is the target's (within 2%) is scaled to the target
 * size. Any other source is shown whole, scaled to fit and centred, over a blurred copy of itself
 * that fills the frame (a "blurred fill"). Cropping to the target would cut away half of a slide,
 * one of two people in an interview, the edge of on-screen text or whatever a video model drew off
 * centre (a centre crop of 16:9 to 9:16 keeps less than a third of the width, and enlarges it
 * 1.8 times); following the subject needs a tracking pass. The blurred fill loses nothing and
 * never enlarges the picture. The blur is made at an eighth of the target size and scaled back
 * up: rendering 30 s of 1280x720 to 720x1280 took about a fifth more CPU time than a plain crop
 * this way, and three quarters more with the blur done at full size.
 */

/** Aspect ratios closer than this are the same layout: a 2% stretch is invisible, bars of 2% are not. */
const SAME_ASPECT_TOLERANCE = 0.02;
/** The blurred background is made at this fraction of the target size. */
const BACKGROUND_SCALE = 1 / 8;
/** Box blur radius (at the reduced size) and passes: the background is colour, not detail. */
const BACKGROUND_BLUR = '10:2';

const even = (value: number) => Math.max(2, 2 * Math.round(value / 2));

/**
 * The filter graph from the first input's video to the `[v]` output: `rateFilter` (the frame-rate
 * cap or conversion the caller wants), the framing, the pixel format.
 */
export function framingFilterGraph(
  aspectRatio: AspectRatio,
  source: { width: number; height: number },
  rateFilter: string,
): string {
  const { width, height } = OUTPUT_DIMENSIONS[aspectRatio];
  const sourceAspect = source.width / source.height;
  const targetAspect = width / height;
  if (Math.abs(sourceAspect / targetAspect - 1) <= SAME_ASPECT_TOLERANCE) {
    return `[0:v]${rateFilter},scale=${width}:${height},setsar=1,format=yuv420p[v]`;
  }
  const backgroundWidth = even(width * BACKGROUND_SCALE);
  const backgroundHeight = even(height * BACKGROUND_SCALE);
  // -2 keeps the source's proportions with an even size along the side that does not fill the target.
  const fit = sourceAspect > targetAspect ? `${width}:-2` : `-2:${height}`;
  return [
    `[0:v]${rateFilter},split=2[background][foreground]`,
    `[background]scale=${backgroundWidth}:${backgroundHeight}:force_original_aspect_ratio=increase,` +
      `crop=${backgroundWidth}:${backgroundHeight},boxblur=${BACKGROUND_BLUR},` +
      // The cheapest scaler is enough for a picture that is a blur anyway.
      `scale=${width}:${height}:flags=fast_bilinear,setsar=1[blurred]`,
    `[foreground]scale=${fit},setsar=1[fitted]`,
    `[blurred][fitted]overlay=(W-w)/2:(H-h)/2,format=yuv420p[v]`,
  ].join(';');
}
