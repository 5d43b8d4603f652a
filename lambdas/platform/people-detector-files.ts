import { join } from 'node:path';
import { PEOPLE_DETECTOR_DIR, requiredSetting } from './settings';

/**
 * The files of the people detector (lambdas/domain/framing/people-detection.ts): Human
 * (@vladmandic/human, MIT) on TensorFlow.js's WebAssembly backend, with the two models it ships
 * that the framing uses, BlazeFace (faces) and MoveNet Lightning (a body's pose). Nothing is
 * downloaded: the engine is bundled from the installed packages into one CommonJS file, the thread
 * that runs it (people-detector-worker.ts) into another, and the WebAssembly binaries and model
 * files are copied beside them. In AWS the directory is a layer
 * (lib/constructs/people-detector-layer.ts) found through PEOPLE_DETECTOR_DIR; locally the stack
 * writes the same directory (local/people-detector.ts). Both are written by lib/people-detector-directory.ts.
 */

export const PEOPLE_DETECTOR_PACKAGE = '@vladmandic/human';
export const WASM_BACKEND_PACKAGE = '@tensorflow/tfjs-backend-wasm';
/** The models used, by the names of their files in the package's models/ directory. */
export const PEOPLE_DETECTOR_MODELS = { faces: 'blazeface', bodies: 'movenet-lightning' } as const;

export interface PeopleDetectorFiles {
  /** The bundled engine, a CommonJS module exporting Human's classes. */
  engine: string;
  /** The thread that runs it (people-detector-worker.ts, bundled). */
  worker: string;
  /** The directory of the WebAssembly backend's .wasm files, with a trailing slash as the backend wants it. */
  wasmDirectory: string;
  modelsDirectory: string;
}

export const ENGINE_FILE_NAME = 'engine.cjs';
export const WORKER_FILE_NAME = 'worker.cjs';
const WASM_SUBDIRECTORY = 'wasm';
const MODELS_SUBDIRECTORY = 'models';

export function peopleDetectorFilesIn(directory: string): PeopleDetectorFiles {
  return {
    engine: join(directory, ENGINE_FILE_NAME),
    worker: join(directory, WORKER_FILE_NAME),
    wasmDirectory: `${join(directory, WASM_SUBDIRECTORY)}/`,
    modelsDirectory: join(directory, MODELS_SUBDIRECTORY),
  };
}

/** The detector's files for this function, from PEOPLE_DETECTOR_DIR. */
export function peopleDetectorFiles(): PeopleDetectorFiles {
  return peopleDetectorFilesIn(requiredSetting(PEOPLE_DETECTOR_DIR));
}
