import { channel } from 'node:diagnostics_channel';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Config } from '@vladmandic/human';
import { PEOPLE_DETECTOR_MODELS, peopleDetectorFiles, type PeopleDetectorFiles } from '#platform/people-detector-files';
import type { DetectorReply, DetectorRequest, DetectorWorkerData, FoundBox } from '#platform/people-detector-worker';

/**
 * Faces and people in sampled frames, by Human (@vladmandic/human: BlazeFace for faces, MoveNet
 * Lightning for a body's pose) on TensorFlow.js's WebAssembly backend, loaded once per container
 * from the files of lambdas/platform/people-detector-files.ts into threads of its own
 * (people-detector-worker.ts; MAX_THREADS), so that the process goes on while it works and a
 * segment's runs share the cores.
 *
 * Both models take a square: a frame is padded to one, since a 16:9 frame squeezed into a square
 * narrows faces until BlazeFace misses them. Two frames that fit one square with little shrinking
 * (two 16:9 frames stacked make a square 1.125 times a frame's width) are looked at in one run of
 * the face model, which costs the same whatever the square holds.
 *
 * A run is spared where its answer is known:
 * - a frame that is the picture already detected in, to within a camera's noise (a slide, a still
 *   shot), has that picture's people;
 * - in frames sampled at a steady rate (detectSampled), every other frame is looked at first, and a
 *   frame between two that show the same faces in nearly the same places, with no cut between them,
 *   is given the faces half way between theirs; it is looked at where they differ;
 * - bodies cost about what faces do, so a body is looked for only where it is needed: in a frame
 *   without a face shortly after one that had a face (a person who turned away), and in every
 *   BODY_SEARCH_INTERVAL-th frame without faces (a person seen from behind from the start).
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

/** Faces are reported from this score up; the framing trusts them from FACE_SCORE (people-framing.ts). */
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
/**
 * Two frames share one square when its side is at most this many times one frame's square: two
 * 16:9 (or 9:16) frames, whose square is 1.125 times as wide, each reaching the model at 8/9 of
 * its size; not two 4:3 ones, which would be shrunk by a third.
 */
const SHARED_SQUARE_LIMIT = 1.15;
/**
 * Model runs are shared among at most this many threads (and no more than the cores): a function's
 * segment is looked at on both of its vCPUs once its ffmpeg is done, and locally the segments
 * analysed side by side share them.
 */
const MAX_THREADS = 2;
/** Frames are compared in blocks of this many pixels square... */
const BLOCK = 8;
/**
 * ...and are the same picture when no block differs by more than this on average (of 255, per
 * colour): a camera's grain and a codec's flicker at the sampled size stay under 1, a slide's page
 * number turning makes 2 in a 16-pixel block, a face moving or appearing tens.
 */
const STILL_BLOCK_DIFFERENCE = 3;
/** Between two frames, a face moved no more than this share of its width is still "nearly in the same place"... */
const ALIKE_MOVE_SHARE = 0.75;
/** ...nor grew or shrank by more than this factor. */
const ALIKE_SIZE_RATIO = 1.25;
/**
 * A frame between two alike ones that differs from either by this much more (mean, of 255) than
 * they differ from each other is another picture (a cut, a flash): it is looked at.
 */
const BETWEEN_CUT_MARGIN = 3;

export interface PeopleDetector {
  /** The faces and bodies in each frame of `frames`; stops between model runs, throwing its reason, when `signal` aborts. */
  detect(frames: RgbFrames, signal?: AbortSignal): Promise<PeopleInFrame[]>;
  /**
   * The same for frames sampled at a steady rate from a video (the analysis' SUBJECT_SAMPLE_RATE):
   * a frame between two alike neighbours is given the faces between theirs instead of being looked at.
   */
  detectSampled(frames: RgbFrames, signal?: AbortSignal): Promise<PeopleInFrame[]>;
  /** Ends the detector's thread; a closed detector detects nothing more. */
  close(): Promise<void>;
}

/** What one call of detect or detectSampled did, published on PEOPLE_DETECTION_CHANNEL. */
export interface PeopleDetectionReport {
  kind: 'detected';
  frames: number;
  /** Runs of the face model (each over one frame, or two sharing a square), and of the body model. */
  faceRuns: number;
  bodyRuns: number;
  /** Frames given the people of the same picture, and frames given faces between their neighbours'. */
  stillFrames: number;
  betweenFrames: number;
  /** CPU time of the detector's thread for the runs, and wall time of the call. */
  cpuMs: number;
  wallMs: number;
}

/** The loading of a detector: its first thread started, the engine, the WebAssembly and both models loaded in it. */
export interface PeopleDetectorLoadReport {
  kind: 'loaded';
  wallMs: number;
  /** CPU time of that thread to load. */
  cpuMs: number;
}

/** Where each detector's loading and each detection call are reported (the benchmark reads them). */
export const PEOPLE_DETECTION_CHANNEL = 'video-api:people-detection';
const reports = channel(PEOPLE_DETECTION_CHANNEL);

const detectorConfig = (files: PeopleDetectorFiles): Partial<Config> => ({
  backend: 'wasm',
  wasmPath: files.wasmDirectory,
  modelBasePath: `file://${files.modelsDirectory}/`,
  debug: false,
  async: false,
  warmup: 'none',
  // Frames are compared here, knowing which are consecutive: Human's own cache would compare whatever came last.
  cacheSensitivity: 0,
  filter: { enabled: false },
  face: {
    enabled: true,
    detector: {
      modelPath: `${PEOPLE_DETECTOR_MODELS.faces}.json`,
      rotation: false,
      // Two frames share a square: room for each one's faces.
      maxDetected: 2 * MAX_FACES,
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

/** The detector's thread: requests go out in order, each answered by its id. */
interface DetectorThread {
  /** CPU time the thread took to load. */
  loadCpuMs: number;
  run(
    part: DetectorRequest['part'],
    side: number,
    rgb: Uint8Array<ArrayBuffer>,
  ): Promise<{ found: FoundBox[]; cpuMs: number }>;
  close(): Promise<void>;
}

/** Starts the thread and waits until it has loaded; `onEnded` is called if it ends, whatever the reason. */
function startThread(files: PeopleDetectorFiles, onEnded: () => void): Promise<DetectorThread> {
  const worker = new Worker(files.worker, {
    // Plain bundled CommonJS: none of the process's loaders (tsx's, locally) is needed, nor wanted running twice.
    execArgv: [],
    workerData: { engine: files.engine, config: detectorConfig(files) } satisfies DetectorWorkerData,
  });
  const pending = new Map<
    number,
    { resolve: (reply: { found: FoundBox[]; cpuMs: number }) => void; reject: (error: Error) => void }
  >();
  let nextId = 0;
  let ended: Error | undefined;
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      if (!ended) onEnded();
      ended ??= error;
      reject(error);
      for (const waiting of pending.values()) waiting.reject(error);
      pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`The people detector's thread ended (exit code ${code})`)));
    // The thread keeps the process alive while it loads or works, not while it waits for work.
    const idle = () => {
      if (pending.size === 0) worker.unref();
    };
    worker.on('message', (reply: DetectorReply) => {
      if (reply.kind === 'loaded') {
        idle();
        resolve({
          loadCpuMs: reply.cpuMs,
          run(part, side, rgb) {
            if (ended) return Promise.reject(ended);
            const id = nextId++;
            return new Promise((resolveRun, rejectRun) => {
              pending.set(id, { resolve: resolveRun, reject: rejectRun });
              worker.ref();
              worker.postMessage({ id, part, side, rgb } satisfies DetectorRequest, [rgb.buffer]);
            });
          },
          async close() {
            fail(new Error('The people detector was closed'));
            await worker.terminate();
          },
        });
        return;
      }
      const waiting = reply.id === undefined ? undefined : pending.get(reply.id);
      if (reply.kind === 'failed') {
        const error = new Error(`People detection failed: ${reply.message}`);
        if (waiting) {
          pending.delete(reply.id!);
          idle();
          waiting.reject(error);
        } else fail(error);
        return;
      }
      pending.delete(reply.id);
      idle();
      waiting?.resolve({ found: reply.found, cpuMs: reply.cpuMs });
    });
  });
}

/** Runs queued for the threads of a pool; `pixels` is drawn only when a thread takes the run. */
interface DetectorPool {
  run(
    part: DetectorRequest['part'],
    side: number,
    pixels: () => Uint8Array<ArrayBuffer>,
    signal?: AbortSignal,
  ): Promise<{ found: FoundBox[]; cpuMs: number }>;
  close(): Promise<void>;
}

/**
 * Starts the first thread and waits until it has loaded, then the others (up to `size`) beside
 * the first runs; each run goes to the first thread free. A thread that fails to load leaves the
 * pool smaller; one that ends after loading ends the pool (`onEnded`).
 */
async function startPool(files: PeopleDetectorFiles, size: number, onEnded: () => void): Promise<DetectorPool> {
  let ended = false;
  const end = () => {
    if (!ended) onEnded();
    ended = true;
  };
  const startedAt = performance.now();
  const first = await startThread(files, end);
  reports.publish({
    kind: 'loaded',
    wallMs: performance.now() - startedAt,
    cpuMs: first.loadCpuMs,
  } satisfies PeopleDetectorLoadReport);
  const idle: DetectorThread[] = [first];
  const threads = [...idle];
  const queue: {
    start: (thread: DetectorThread) => void;
  }[] = [];
  const dispatch = () => {
    while (idle.length > 0 && queue.length > 0) queue.shift()!.start(idle.shift()!);
  };
  for (let more = 1; more < size; more += 1) {
    let joined = false;
    startThread(files, () => joined && end()).then(
      (thread) => {
        if (ended) return void thread.close();
        joined = true;
        threads.push(thread);
        idle.push(thread);
        dispatch();
      },
      () => {},
    );
  }
  return {
    run(part, side, pixels, signal) {
      return new Promise((resolve, reject) => {
        queue.push({
          start(thread) {
            const ran = signal?.aborted
              ? Promise.reject(signal.reason as Error)
              : Promise.resolve().then(() => thread.run(part, side, pixels()));
            ran.then(resolve, reject).finally(() => {
              idle.push(thread);
              dispatch();
            });
          },
        });
        dispatch();
      });
    },
    async close() {
      end();
      await Promise.all(threads.map((thread) => thread.close()));
    },
  };
}

/** The largest mean absolute difference (of 255, per colour) of a BLOCK x BLOCK block between two frames. */
function largestBlockDifference(frames: RgbFrames, first: number, second: number): number {
  const { rgb, width, height } = frames;
  const a = first * width * height * 3;
  const b = second * width * height * 3;
  const blocksAcross = Math.ceil(width / BLOCK);
  const sums = new Float64Array(blocksAcross);
  let largest = 0;
  for (let top = 0; top < height; top += BLOCK) {
    sums.fill(0);
    const rows = Math.min(BLOCK, height - top);
    for (let row = top; row < top + rows; row += 1) {
      const rowEnd = (row + 1) * width * 3;
      let offset = row * width * 3;
      for (let block = 0; block < blocksAcross; block += 1) {
        const end = Math.min(offset + BLOCK * 3, rowEnd);
        let sum = 0;
        for (; offset < end; offset += 1) sum += Math.abs(rgb[a + offset]! - rgb[b + offset]!);
        sums[block]! += sum;
      }
    }
    for (let block = 0; block < blocksAcross; block += 1) {
      const columns = Math.min(BLOCK, width - block * BLOCK);
      largest = Math.max(largest, sums[block]! / (rows * columns * 3));
    }
  }
  return largest;
}

/** The mean absolute difference (of 255) between two frames, over every other pixel of every other row: enough to tell a cut. */
function meanDifference(frames: RgbFrames, first: number, second: number): number {
  const { rgb, width, height } = frames;
  const a = first * width * height * 3;
  const b = second * width * height * 3;
  let sum = 0;
  let values = 0;
  for (let row = 0; row < height; row += 2) {
    const rowEnd = (row + 1) * width * 3;
    for (let offset = row * width * 3; offset < rowEnd; offset += 6) {
      sum +=
        Math.abs(rgb[a + offset]! - rgb[b + offset]!) +
        Math.abs(rgb[a + offset + 1]! - rgb[b + offset + 1]!) +
        Math.abs(rgb[a + offset + 2]! - rgb[b + offset + 2]!);
      values += 3;
    }
  }
  return sum / values;
}

/** Whether two frames are the same picture, to within a camera's noise. */
const samePicture = (frames: RgbFrames, first: number, second: number) =>
  largestBlockDifference(frames, first, second) <= STILL_BLOCK_DIFFERENCE;

/** Where frames sit in a square: its side, and each frame's top left corner. */
interface Square {
  side: number;
  corners: { x: number; y: number }[];
}

function squareFor(count: 1 | 2, { width, height }: { width: number; height: number }): Square {
  if (count === 1) {
    const side = Math.max(width, height);
    return { side, corners: [{ x: Math.floor((side - width) / 2), y: Math.floor((side - height) / 2) }] };
  }
  // Stacked across their shorter side: above each other when wide, beside each other when tall.
  const wide = width >= height;
  const side = wide ? Math.max(width, 2 * height) : Math.max(2 * width, height);
  const x = Math.floor((side - (wide ? width : 2 * width)) / 2);
  const y = Math.floor((side - (wide ? 2 * height : height)) / 2);
  return {
    side,
    corners: wide
      ? [
          { x, y },
          { x, y: y + height },
        ]
      : [
          { x, y },
          { x: x + width, y },
        ],
  };
}

/** The frames drawn into their square, black around them. */
function drawSquare(frames: RgbFrames, indexes: readonly number[], square: Square): Uint8Array<ArrayBuffer> {
  const { rgb, width, height } = frames;
  const pixels = new Uint8Array(square.side * square.side * 3);
  indexes.forEach((index, place) => {
    const corner = square.corners[place]!;
    for (let row = 0; row < height; row += 1) {
      const from = (index * height + row) * width * 3;
      pixels.set(rgb.subarray(from, from + width * 3), ((corner.y + row) * square.side + corner.x) * 3);
    }
  });
  return pixels;
}

/** A box found in the square, in shares of the frame whose corner is given. */
function inFrame(found: FoundBox, side: number, corner: { x: number; y: number }, frames: RgbFrames): Detection {
  const [x, y, width, height] = found.box;
  return {
    x: (x * side - corner.x) / frames.width,
    y: (y * side - corner.y) / frames.height,
    width: (width * side) / frames.width,
    height: (height * side) / frames.height,
    score: found.score,
  };
}

/** Whether every face of one frame has its counterpart in the other, nearly in the same place and of the same size. */
function matchedFaces(first: readonly Detection[], second: readonly Detection[], frames: RgbFrames) {
  if (first.length !== second.length) return undefined;
  const left = [...second];
  const pairs: [Detection, Detection][] = [];
  const centre = (face: Detection) => ({
    x: (face.x + face.width / 2) * frames.width,
    y: (face.y + face.height / 2) * frames.height,
  });
  for (const face of first) {
    const at = centre(face);
    let best = -1;
    let bestDistance = Infinity;
    left.forEach((other, index) => {
      const to = centre(other);
      const distance = Math.hypot(at.x - to.x, at.y - to.y);
      if (distance < bestDistance) [best, bestDistance] = [index, distance];
    });
    const other = left[best];
    if (!other) return undefined;
    const ratio = face.width / other.width;
    const widest = Math.max(face.width, other.width) * frames.width;
    if (bestDistance > ALIKE_MOVE_SHARE * widest || ratio > ALIKE_SIZE_RATIO || ratio < 1 / ALIKE_SIZE_RATIO) {
      return undefined;
    }
    pairs.push([face, other]);
    left.splice(best, 1);
  }
  return pairs;
}

const halfway = ([a, b]: [Detection, Detection]): Detection => ({
  x: (a.x + b.x) / 2,
  y: (a.y + b.y) / 2,
  width: (a.width + b.width) / 2,
  height: (a.height + b.height) / 2,
  score: Math.min(a.score, b.score),
});

async function loadDetector(files: PeopleDetectorFiles, onEnded: () => void = () => {}): Promise<PeopleDetector> {
  const pool = await startPool(files, Math.min(MAX_THREADS, availableParallelism()), onEnded);

  async function detectFrames(frames: RgbFrames, sampled: boolean, signal?: AbortSignal): Promise<PeopleInFrame[]> {
    const startedAt = performance.now();
    const count = Math.floor(frames.rgb.length / (frames.width * frames.height * 3));
    const report: PeopleDetectionReport = {
      kind: 'detected',
      frames: count,
      faceRuns: 0,
      bodyRuns: 0,
      stillFrames: 0,
      betweenFrames: 0,
      cpuMs: 0,
      wallMs: 0,
    };
    /** Runs `work` on this thread, its CPU time counted as the detector's. */
    const measured = <T>(work: () => T): T => {
      const before = process.threadCpuUsage();
      try {
        return work();
      } finally {
        const used = process.threadCpuUsage(before);
        report.cpuMs += (used.user + used.system) / 1000;
      }
    };
    const faces = new Array<Detection[] | undefined>(count);
    /** Per frame, the frame whose picture its faces were found in (itself when looked at). */
    const facesFrom = new Array<number>(count);
    const single = squareFor(1, frames);
    const shared = squareFor(2, frames);
    const share = shared.side <= SHARED_SQUARE_LIMIT * single.side;

    /** One run of a model over these frames in their square; runs asked for together share the pool's threads. */
    const run = async (part: DetectorRequest['part'], indexes: readonly number[], square: Square) => {
      signal?.throwIfAborted();
      const draw = () => measured(() => drawSquare(frames, indexes, square));
      const { found, cpuMs } = await pool.run(part, square.side, draw, signal);
      report.cpuMs += cpuMs;
      return found;
    };

    /** Looks for faces in these frames (in one square, two at most). */
    const lookAtGroup = async (group: readonly number[]) => {
      const square = group.length === 2 ? shared : single;
      const found = await run('faces', group, square);
      report.faceRuns += 1;
      for (const index of group) faces[index] = [];
      for (const box of found) {
        const [x, y, width, height] = box.box;
        // Each face belongs to the frame its centre is in.
        const centre = { x: (x + width / 2) * square.side, y: (y + height / 2) * square.side };
        const place =
          group.length === 1
            ? 0
            : frames.width >= frames.height
              ? Number(centre.y >= square.corners[1]!.y)
              : Number(centre.x >= square.corners[1]!.x);
        faces[group[place]!]!.push(inFrame(box, square.side, square.corners[place]!, frames));
      }
    };

    /** Looks for faces in these frames, two to a square where they fit, the squares looked at together. */
    const lookAt = async (indexes: readonly number[]) => {
      const step = share ? 2 : 1;
      const groups = Array.from({ length: Math.ceil(indexes.length / step) }, (_, group) =>
        indexes.slice(group * step, group * step + step),
      );
      await Promise.all(groups.map(lookAtGroup));
    };

    /** The faces half way between those of the frames either side of `index`, when they are alike and `index` is no other picture. */
    const facesBetween = (index: number): Detection[] | undefined => {
      const [before, after] = [index - 1, index + 1];
      const pairs = matchedFaces(faces[before]!, faces[after]!, frames);
      if (!pairs) return undefined;
      return measured(() => {
        const apart = meanDifference(frames, before, after) + BETWEEN_CUT_MARGIN;
        const fits = (neighbour: number) => meanDifference(frames, index, neighbour) <= apart;
        return fits(before) && fits(after) ? pairs.map(halfway) : undefined;
      });
    };

    /** Gives `index` the faces of `neighbour`'s picture when it is that picture; whether it did. */
    const sameAs = (index: number, neighbour: number | undefined) => {
      if (neighbour === undefined) return false;
      const picture = facesFrom[neighbour]!;
      if (!measured(() => samePicture(frames, index, picture))) return false;
      facesFrom[index] = picture;
      report.stillFrames += 1;
      return true;
    };

    /** Looks at `indexes`, each but those that are the picture of their `previous` (decided before any is looked at). */
    const lookAtChanged = async (indexes: readonly number[], previous: (index: number) => number | undefined) => {
      const toLookAt: number[] = [];
      for (const index of indexes) {
        if (sameAs(index, previous(index))) continue;
        facesFrom[index] = index;
        toLookAt.push(index);
      }
      await lookAt(toLookAt);
      for (const index of indexes) faces[index] = faces[facesFrom[index]!];
    };

    if (sampled) {
      const even = Array.from({ length: Math.ceil(count / 2) }, (_, half) => 2 * half);
      await lookAtChanged(even, (index) => (index >= 2 ? index - 2 : undefined));
      const toLookAt: number[] = [];
      for (let index = 1; index < count; index += 2) {
        if (sameAs(index, index - 1)) {
          faces[index] = faces[index - 1];
          continue;
        }
        const between = index + 1 < count ? facesBetween(index) : undefined;
        if (between) {
          faces[index] = between;
          report.betweenFrames += 1;
          continue;
        }
        toLookAt.push(index);
      }
      await lookAt(toLookAt);
    } else {
      await lookAtChanged(
        Array.from({ length: count }, (_, index) => index),
        (index) => (index >= 1 ? index - 1 : undefined),
      );
    }

    // Bodies, in order: where a face was lost a moment ago, and now and then where there is none.
    // Which frames are looked at follows from the faces alone: decided first, then looked at together.
    const bodies = new Array<Detection[]>(count);
    /** Per frame searched for a body, the frame whose picture it is (itself when looked at). */
    const bodiesFrom = new Array<number | undefined>(count);
    const bodiesToLookAt: number[] = [];
    let lastFaceFrame = -Infinity;
    let facelessFrames = 0;
    for (let index = 0; index < count; index += 1) {
      if (faces[index]!.some((face) => face.score >= CONFIDENT_FACE_SCORE)) {
        lastFaceFrame = index;
        continue;
      }
      facelessFrames += 1;
      if (index - lastFaceFrame > BODY_BRIDGE_FRAMES && facelessFrames % BODY_SEARCH_INTERVAL !== 1) continue;
      const before = index > 0 ? bodiesFrom[index - 1] : undefined;
      if (before !== undefined && measured(() => samePicture(frames, index, before))) {
        bodiesFrom[index] = before;
        continue;
      }
      bodiesFrom[index] = index;
      bodiesToLookAt.push(index);
    }
    await Promise.all(
      bodiesToLookAt.map(async (index) => {
        const found = await run('bodies', [index], single);
        report.bodyRuns += 1;
        bodies[index] = found.map((box) => inFrame(box, single.side, single.corners[0]!, frames));
      }),
    );
    for (let index = 0; index < count; index += 1) {
      const from = bodiesFrom[index];
      bodies[index] = from === undefined ? [] : bodies[from]!;
    }

    report.wallMs = performance.now() - startedAt;
    if (reports.hasSubscribers) reports.publish(report);
    return faces.map((found, index) => ({ faces: found!, bodies: bodies[index]! }));
  }

  return {
    detect: (frames, signal) => detectFrames(frames, false, signal),
    detectSampled: (frames, signal) => detectFrames(frames, true, signal),
    close: () => pool.close(),
  };
}

/** A detector of its own, loaded now: its thread, the WebAssembly and both models (the benchmark times this). */
export function loadPeopleDetector(files: PeopleDetectorFiles = peopleDetectorFiles()): Promise<PeopleDetector> {
  return loadDetector(files);
}

let loaded: Promise<PeopleDetector> | undefined;

/** The container's detector, loaded on first use (about half a second: its thread, the WebAssembly and both models). */
export function peopleDetector(files: PeopleDetectorFiles = peopleDetectorFiles()): Promise<PeopleDetector> {
  // A detector whose thread ended (it failed, or was closed) is loaded again on next use.
  const forget = () => (loaded = undefined);
  loaded ??= loadDetector(files, forget).catch((error: unknown) => {
    forget();
    throw error;
  });
  return loaded;
}
