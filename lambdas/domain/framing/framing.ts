import type { AspectRatio } from '#contract/types';
import { OUTPUT_DIMENSIONS } from '#domain/video-jobs/providers/port';
import { filterGraphPath } from '#platform/media-tools';
import { PATH_FRAME_RATE, type MovingCrop } from './subject-path';
import { SAME_ASPECT_TOLERANCE } from './subject-window';

/**
 * How a picture of one shape is put into a frame of another, for split clips and for generated
 * videos alike. A source whose aspect ratio is the target's (within 2%) is scaled to the target
 * size. Any other source is shown whole, scaled to fit and centred, over a blurred copy of itself
 * that fills the frame (a "blurred fill"). Cropping to the target would cut away half of a slide,
 * one of two people in an interview, the edge of on-screen text or whatever a video model drew off
 * centre (a centre crop of 16:9 to 9:16 keeps less than a third of the width, and enlarges it
 * 1.8 times). Split clips whose subject holds the frame are cropped to a window that follows it
 * instead (subject-path.ts, subjectFramingFilterGraph below). The blurred fill loses nothing and
 * never enlarges the picture. The blur is made at an eighth of the target size and scaled back
 * up: rendering 30 s of 1280x720 to 720x1280 took about a fifth more CPU time than a plain crop
 * this way, and three quarters more with the blur done at full size. The picture and the two
 * bands of blur beside it are stacked, not overlaid: overlaying the picture on the whole blurred
 * frame took 12 to 58% of the CPU of decoding and framing a clip; stacking copies each pixel once.
 * The blur is made from the fitted picture, not from the source: shrinking a 1080p frame twice
 * took a third more of the framing's CPU than shrinking it once (3% of a clip's render).
 */

/** The blurred background is made at this fraction of the target size. */
const BACKGROUND_SCALE = 1 / 8;
/** Box blur radius (at the reduced size) and passes: the background is colour, not detail. */
const BACKGROUND_BLUR = '10:2';

const even = (value: number) => Math.max(2, 2 * Math.round(value / 2));

/**
 * The filter graph from the first input's video (or the `input` pad) to the `[v]` output:
 * `rateFilter` (the frame-rate cap or conversion the caller wants), the framing, the `overlays`
 * (filters drawing on the framed picture, such as captions), the pixel format.
 */
export function framingFilterGraph(
  aspectRatio: AspectRatio,
  source: { width: number; height: number },
  rateFilter: string,
  overlays: readonly string[] = [],
  input = '[0:v]',
): string {
  const { width, height } = OUTPUT_DIMENSIONS[aspectRatio];
  const finish = [...overlays, 'format=yuv420p'].join(',');
  const sourceAspect = source.width / source.height;
  const targetAspect = width / height;
  if (Math.abs(sourceAspect / targetAspect - 1) <= SAME_ASPECT_TOLERANCE) {
    return `${input}${rateFilter},scale=${width}:${height},setsar=1,${finish}[v]`;
  }
  const backgroundWidth = even(width * BACKGROUND_SCALE);
  const backgroundHeight = even(height * BACKGROUND_SCALE);
  // A wider source fills the target's width and leaves bands above and below; a narrower one fills
  // its height and leaves bands either side. Both keep the source's proportions at an even size.
  const wider = sourceAspect > targetAspect;
  const fitted = wider ? `${width}:${even(width / sourceAspect)}` : `${even(height * sourceAspect)}:${height}`;
  const bandsTotal = wider ? height - even(width / sourceAspect) : width - even(height * sourceAspect);
  // Even, for 4:2:0 chroma; the second band takes the odd pair when the two cannot be equal.
  const firstBand = 2 * Math.floor(bandsTotal / 4);
  const secondBand = bandsTotal - firstBand;
  const [firstCrop, secondCrop, stack] = wider
    ? [`${width}:${firstBand}:0:0`, `${width}:${secondBand}:0:${height - secondBand}`, 'vstack']
    : [`${firstBand}:${height}:0:0`, `${secondBand}:${height}:${width - secondBand}:0`, 'hstack'];
  return [
    `${input}${rateFilter},scale=${fitted},setsar=1,split=2[background][fitted]`,
    `[background]scale=${backgroundWidth}:${backgroundHeight}:force_original_aspect_ratio=increase,` +
      `crop=${backgroundWidth}:${backgroundHeight},boxblur=${BACKGROUND_BLUR},` +
      // The cheapest scaler is enough for a picture that is a blur anyway.
      `scale=${width}:${height}:flags=fast_bilinear,setsar=1,split=2[fill1][fill2]`,
    `[fill1]crop=${firstCrop}[band1]`,
    `[fill2]crop=${secondCrop}[band2]`,
    `[band1][fitted][band2]${stack}=inputs=3,${finish}[v]`,
  ].join(';');
}

/** The `crop` filter named `name` (so that sendcmd moves it only), sized to the crop and scaled to `width`:`height`. */
const movingCropFilter = (
  name: string,
  crop: { width: number; height: number },
  commandsPath: string,
  width: number,
  height: number,
) =>
  `sendcmd=f=${filterGraphPath(commandsPath)},crop@${name}=w=${crop.width}:h=${crop.height}:x=0:y=0,` +
  `scale=${width}:${height},setsar=1`;

/**
 * The filter graph from the first input's video to the `[v]` output for a crop that follows the
 * subject: `sendcmd` moves the window as the commands file says (cropCommands), and the window
 * is scaled to the target size, then drawn on by the `overlays`.
 */
export function subjectFramingFilterGraph(
  aspectRatio: AspectRatio,
  crop: { width: number; height: number },
  commandsPath: string,
  rateFilter: string,
  overlays: readonly string[] = [],
): string {
  const { width, height } = OUTPUT_DIMENSIONS[aspectRatio];
  return (
    `[0:v]${rateFilter},${movingCropFilter(SUBJECT_CROP, crop, commandsPath, width, height)},` +
    `${[...overlays, 'format=yuv420p'].join(',')}[v]`
  );
}

/**
 * The filter graph for two people stacked: each crop follows one person (its own commands file)
 * and fills one half of the frame, the first on top; the `overlays` draw across both.
 */
export function stackedFramingFilterGraph(
  aspectRatio: AspectRatio,
  crops: readonly [{ width: number; height: number }, { width: number; height: number }],
  commandsPaths: readonly [string, string],
  rateFilter: string,
  overlays: readonly string[] = [],
): string {
  const { width, height } = OUTPUT_DIMENSIONS[aspectRatio];
  const upperHeight = 2 * Math.floor(height / 4);
  return [
    `[0:v]${rateFilter},split=2[first][second]`,
    `[first]${movingCropFilter(STACKED_CROPS[0], crops[0], commandsPaths[0], width, upperHeight)}[upper]`,
    `[second]${movingCropFilter(STACKED_CROPS[1], crops[1], commandsPaths[1], width, height - upperHeight)}[lower]`,
    `[upper][lower]vstack=inputs=2,${[...overlays, 'format=yuv420p'].join(',')}[v]`,
  ].join(';');
}

/** The names of the moving crop filters, which their commands address. */
export const SUBJECT_CROP = 'subject';
export const STACKED_CROPS = ['upper', 'lower'] as const;

/**
 * The `sendcmd` commands that move the crop filter `name`: one at each time the window's position
 * (in even source pixels) changes along an axis, the positions being shares of its travel
 * PATH_FRAME_RATE times a second.
 */
export function cropCommands(name: string, crop: MovingCrop): string {
  const lines: string[] = [];
  const offsetOf = (position: number | undefined, travel: number) =>
    2 * Math.round((Math.max(0, Math.min(1, position ?? 0)) * travel) / 2);
  let previous: { x: number; y: number } | undefined;
  const frames = Math.max(crop.xs.length, crop.ys.length);
  for (let frame = 0; frame < frames; frame += 1) {
    const x = offsetOf(crop.xs[frame], crop.travelX);
    const y = offsetOf(crop.ys[frame], crop.travelY);
    const time = (frame / PATH_FRAME_RATE).toFixed(3);
    if (x !== previous?.x) lines.push(`${time} crop@${name} x ${x};`);
    if (y !== previous?.y) lines.push(`${time} crop@${name} y ${y};`);
    previous = { x, y };
  }
  return `${lines.join('\n')}\n`;
}
