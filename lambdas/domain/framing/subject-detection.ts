import smartcropModule from 'smartcrop';

/**
 * Where the subject is in sampled frames, by smartcrop (content-aware cropping from skin tones,
 * saturation and detail; https://github.com/jwagner/smartcrop.js), run on raw RGB frames without a
 * canvas. For each frame: smartcrop's best window of the crop's size, and how the frame's
 * salience (what smartcrop scores) spreads along the axis the window slides on, from which the
 * path is judged (subject-path.ts).
 *
 * Tuned from smartcrop's defaults, which rank photographs: skin counts by its area (skinBias 1)
 * and not only at its edges, since a face lit flat has little detail at 128 pixels; detail weighs
 * a quarter as much (0.05), so that film grain, text or a busy background do not outweigh a
 * person; no rule of thirds, since a vertical clip centres its subject.
 */

interface SmartcropImage {
  width: number;
  height: number;
  data: Uint8ClampedArray;
}

interface SmartcropCrop {
  x: number;
  y: number;
  width: number;
  height: number;
}

interface Smartcrop {
  ImgData: new (width: number, height: number, data?: Uint8ClampedArray) => SmartcropImage;
  crop(
    image: SmartcropImage,
    options: Record<string, unknown>,
  ): Promise<{ topCrop: SmartcropCrop; debugOutput?: SmartcropImage }>;
}

// The package's typings describe the browser entry (a canvas image); its engine takes any image
// through `imageOperations`, as used here.
const smartcrop = smartcropModule as unknown as Smartcrop;

const SKIN_WEIGHT = 1.8;
const SKIN_BIAS = 1;
const DETAIL_WEIGHT = 0.05;
const SATURATION_WEIGHT = 0.1;
const SATURATION_BIAS = 0.2;

const TUNING = {
  skinWeight: SKIN_WEIGHT,
  skinBias: SKIN_BIAS,
  detailWeight: DETAIL_WEIGHT,
  saturationWeight: SATURATION_WEIGHT,
  saturationBias: SATURATION_BIAS,
  ruleOfThirds: false,
  prescale: false,
  // Candidate windows every second pixel, scored on a grid of every second pixel: a 128-pixel
  // frame is placed to within 1/64 of its width, which the path's smoothing refines.
  step: 2,
  scoreDownSample: 2,
  // The feature map (skin, detail, saturation per pixel), from which the salience is read.
  debug: true,
};

/** The frames are used as they are: already small, already RGB. */
const AS_GIVEN = {
  open: (image: SmartcropImage) => Promise.resolve(image),
  resample: (image: SmartcropImage) => Promise.resolve(image),
  getData: (image: SmartcropImage) => Promise.resolve(image),
};

export interface SubjectSample {
  /** Where smartcrop's best window starts along the axis, in sample pixels. */
  bestStart: number;
  /** The frame's salience per column (axis x) or row (axis y). */
  profile: number[];
  /** The frame's salience per pixel: next to nothing in a plain frame. */
  meanSalience: number;
}

export interface SampledFrames {
  /** Consecutive rgb24 frames of `width` × `height`. */
  rgb: Uint8Array;
  width: number;
  height: number;
}

/** The crop window at the sampled frames' scale: what smartcrop looks for. */
export interface SampleWindow {
  axis: 'x' | 'y';
  width: number;
  height: number;
}

/** Per pixel, what smartcrop's score adds up for it, before weighting by its place in the window. */
function salience(skin: number, detail: number, saturation: number): number {
  const detailShare = detail / 255;
  return (
    (skin / 255) * (detailShare + SKIN_BIAS) * SKIN_WEIGHT +
    (saturation / 255) * (detailShare + SATURATION_BIAS) * SATURATION_WEIGHT +
    detailShare * DETAIL_WEIGHT
  );
}

function profileOf(features: SmartcropImage, axis: 'x' | 'y'): number[] {
  const { width, height, data } = features;
  const profile = new Array<number>(axis === 'x' ? width : height).fill(0);
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      const p = (y * width + x) * 4;
      profile[axis === 'x' ? x : y]! += salience(data[p]!, data[p + 1]!, data[p + 2]!);
    }
  }
  return profile;
}

/** The subject in each sampled frame. */
export async function findSubjects(frames: SampledFrames, window: SampleWindow): Promise<SubjectSample[]> {
  const { width, height } = frames;
  const frameBytes = width * height * 3;
  const count = Math.floor(frames.rgb.length / frameBytes);
  const samples: SubjectSample[] = [];
  for (let index = 0; index < count; index += 1) {
    const rgba = new Uint8ClampedArray(width * height * 4);
    const offset = index * frameBytes;
    for (let pixel = 0; pixel < width * height; pixel += 1) {
      rgba[pixel * 4] = frames.rgb[offset + pixel * 3]!;
      rgba[pixel * 4 + 1] = frames.rgb[offset + pixel * 3 + 1]!;
      rgba[pixel * 4 + 2] = frames.rgb[offset + pixel * 3 + 2]!;
      rgba[pixel * 4 + 3] = 255;
    }
    const result = await smartcrop.crop(new smartcrop.ImgData(width, height, rgba), {
      ...TUNING,
      width: window.width,
      height: window.height,
      imageOperations: AS_GIVEN,
    });
    if (!result.debugOutput) throw new Error('smartcrop returned no feature map');
    const profile = profileOf(result.debugOutput, window.axis);
    samples.push({
      bestStart: window.axis === 'x' ? result.topCrop.x : result.topCrop.y,
      profile,
      meanSalience: profile.reduce((total, value) => total + value, 0) / (width * height),
    });
  }
  return samples;
}
