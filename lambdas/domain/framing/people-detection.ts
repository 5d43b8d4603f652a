import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { io as tfio } from '@tensorflow/tfjs-core';
import type { Config, Human } from '@vladmandic/human';
import { PEOPLE_DETECTOR_MODELS, peopleDetectorFiles, type PeopleDetectorFiles } from '#platform/people-detector-files';

/**
 * Faces and people in sampled frames, by Human (@vladmandic/human: BlazeFace for faces, MoveNet
 * Lightning for a body's pose) on TensorFlow.js's WebAssembly backend, loaded once per container
 * from the files of lambdas/platform/people-detector-files.ts. A frame is padded to a square before
 * it is detected in: both models take a square input, and a 16:9 frame squeezed into one
 * narrows faces until BlazeFace misses them.
 *
 * Bodies cost twice what faces do, so a body is looked for only where it is needed: in a frame
 * without a face shortly after one that had a face (a person who turned away), and in every
 * BODY_SEARCH_INTERVAL-th frame without faces (a person seen from behind from the start).
 */

/** A detected face or body, its box in shares (0 to 1) of the frame's width and height. */
export interface Detection {
  x: number;
  y: number;
  width: number;
  height: number;
  score: number;
}

export interface PeopleInFrame {
  faces: Detection[];
  bodies: Detection[];
}

export interface RgbFrames {
  /** Consecutive rgb24 frames of `width` × `height`. */
  rgb: Uint8Array;
  width: number;
  height: number;
}

/** Faces are reported from this score up; the framing trusts them from FACE_SCORE (people-tracks.ts). */
const MIN_FACE_SCORE = 0.3;
const MIN_BODY_SCORE = 0.3;
/** At most this many faces a frame: a panel of guests, not a crowd. */
const MAX_FACES = 6;
/** A face this confident makes a body search needless. */
const CONFIDENT_FACE_SCORE = 0.6;
/** A frame without a face within this many frames after one with a face is searched for a body. */
const BODY_BRIDGE_FRAMES = 8;
/** Otherwise every this-many-th frame without a face is. */
const BODY_SEARCH_INTERVAL = 4;

type HumanModule = typeof import('@vladmandic/human');

const detectorConfig = (files: PeopleDetectorFiles): Partial<Config> => ({
  backend: 'wasm',
  wasmPath: files.wasmDirectory,
  modelBasePath: `file://${files.modelsDirectory}/`,
  debug: false,
  async: false,
  warmup: 'none',
  // Every frame is a different moment: nothing to skip or cache between them.
  cacheSensitivity: 0,
  filter: { enabled: false },
  face: {
    enabled: true,
    detector: {
      modelPath: `${PEOPLE_DETECTOR_MODELS.faces}.json`,
      rotation: false,
      maxDetected: MAX_FACES,
      minConfidence: MIN_FACE_SCORE,
      return: false,
    },
    mesh: { enabled: false },
    iris: { enabled: false },
    description: { enabled: false },
    emotion: { enabled: false },
    antispoof: { enabled: false },
    liveness: { enabled: false },
  },
  body: {
    enabled: true,
    modelPath: `${PEOPLE_DETECTOR_MODELS.bodies}.json`,
    maxDetected: 1,
    minConfidence: MIN_BODY_SCORE,
  },
  hand: { enabled: false },
  object: { enabled: false },
  gesture: { enabled: false },
  segmentation: { enabled: false },
});

/**
 * TensorFlow.js's loaders fetch `file://` URLs only on its native backend: the models are read
 * from disk by a load router instead.
 */
function registerFileLoader(human: Human): void {
  const { io } = human.tf;
  io.registerLoadRouter((url: string | string[]) => {
    if (typeof url !== 'string' || !url.startsWith('file://')) return null;
    const modelFile = url.slice('file://'.length);
    return {
      load: () =>
        io.getModelArtifactsForJSON(
          JSON.parse(readFileSync(modelFile, 'utf8')),
          async (manifest: tfio.WeightsManifestConfig) => {
            const weights = Buffer.concat(
              await Promise.all(
                manifest.flatMap((group) => group.paths.map((path) => readFile(join(dirname(modelFile), path)))),
              ),
            );
            return [
              manifest.flatMap((group) => group.weights),
              weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
            ];
          },
        ),
    };
  });
}

export interface PeopleDetector {
  /** The faces and bodies in each frame of `frames`; stops between frames, throwing its reason, when `signal` aborts. */
  detect(frames: RgbFrames, signal?: AbortSignal): Promise<PeopleInFrame[]>;
}

async function loadDetector(files: PeopleDetectorFiles): Promise<PeopleDetector> {
  const engine: HumanModule = createRequire(files.engine)(files.engine);
  const human = new engine.Human(detectorConfig(files));
  registerFileLoader(human);
  await human.load();
  const { tf } = human;

  /** The faces, or the bodies, in the padded square whose frame of `frame`'s size starts `padding` pixels in. */
  async function detectIn(
    square: Int32Array,
    side: number,
    frame: { width: number; height: number; padding: { x: number; y: number } },
    part: 'faces' | 'bodies',
  ): Promise<Detection[]> {
    const input = tf.tensor4d(square, [1, side, side, 3], 'int32');
    try {
      const result = await human.detect(input, {
        face: { enabled: part === 'faces' },
        body: { enabled: part === 'bodies' },
      });
      const found = part === 'faces' ? result.face : result.body;
      return found.map(({ boxRaw: [x, y, width, height], score }) => ({
        x: (x * side - frame.padding.x) / frame.width,
        y: (y * side - frame.padding.y) / frame.height,
        width: (width * side) / frame.width,
        height: (height * side) / frame.height,
        score,
      }));
    } finally {
      input.dispose();
    }
  }

  return {
    async detect({ rgb, width, height }, signal) {
      const side = Math.max(width, height);
      const square = new Int32Array(side * side * 3);
      const frame = {
        width,
        height,
        padding: { x: Math.floor((side - width) / 2), y: Math.floor((side - height) / 2) },
      };
      const offset = (frame.padding.y * side + frame.padding.x) * 3;
      const frameBytes = width * height * 3;
      const frames: PeopleInFrame[] = [];
      let lastFaceFrame = -Infinity;
      let facelessFrames = 0;
      for (let index = 0; index < Math.floor(rgb.length / frameBytes); index += 1) {
        // Detection is synchronous WebAssembly behind a promise: without a turn of the event loop
        // between frames, nothing else in the process (the job's watch, other requests) would run
        // until the last frame.
        await new Promise((resolve) => setImmediate(resolve));
        signal?.throwIfAborted();
        for (let row = 0; row < height; row += 1) {
          const from = index * frameBytes + row * width * 3;
          square.set(rgb.subarray(from, from + width * 3), offset + row * side * 3);
        }
        const faces = await detectIn(square, side, frame, 'faces');
        if (faces.some((face) => face.score >= CONFIDENT_FACE_SCORE)) {
          lastFaceFrame = index;
          frames.push({ faces, bodies: [] });
          continue;
        }
        facelessFrames += 1;
        const searchBody = index - lastFaceFrame <= BODY_BRIDGE_FRAMES || facelessFrames % BODY_SEARCH_INTERVAL === 1;
        frames.push({ faces, bodies: searchBody ? await detectIn(square, side, frame, 'bodies') : [] });
      }
      return frames;
    },
  };
}

let loaded: Promise<PeopleDetector> | undefined;

/** The container's detector, loaded on first use (about a second: the WebAssembly and both models). */
export function peopleDetector(files: PeopleDetectorFiles = peopleDetectorFiles()): Promise<PeopleDetector> {
  loaded ??= loadDetector(files).catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}
