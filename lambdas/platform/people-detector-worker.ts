import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { io as tfio } from '@tensorflow/tfjs-core';
import type { Config, Human } from '@vladmandic/human';

/**
 * The people detector's engine in a thread of its own: Human (@vladmandic/human) on TensorFlow.js's
 * WebAssembly backend runs synchronously, tens of milliseconds a model run, and in the function's
 * own thread it would hold up everything else the process does (the job's watch, a local stack's
 * requests and its storage emulator feeding ffmpeg) for as long as a segment's detection lasts.
 *
 * Not imported by anything: lib/people-detector-directory.ts bundles it into the detector's
 * directory (people-detector-files.ts, `worker`), and people-detection.ts starts it from there with
 * the engine's files and Human's configuration. It answers each square picture it is sent with the
 * faces, or the bodies, Human finds in it, their boxes in shares of the square, and the CPU time
 * the run took in this thread.
 */

export interface DetectorWorkerData {
  engine: string;
  config: Partial<Config>;
}

/** What the thread is asked: the faces or the bodies in a square `side` x `side` rgb24 picture. */
export interface DetectorRequest {
  id: number;
  part: 'faces' | 'bodies';
  side: number;
  rgb: Uint8Array;
}

export interface FoundBox {
  /** x, y, width, height in shares of the square's side. */
  box: [number, number, number, number];
  score: number;
}

export type DetectorReply =
  | { kind: 'loaded'; cpuMs: number }
  | { kind: 'found'; id: number; found: FoundBox[]; cpuMs: number }
  | { kind: 'failed'; id?: number; message: string };

type HumanModule = typeof import('@vladmandic/human');

const threadCpuMs = () => {
  const used = process.threadCpuUsage();
  return (used.user + used.system) / 1000;
};

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

async function serve(port: NonNullable<typeof parentPort>, { engine, config }: DetectorWorkerData): Promise<void> {
  const loadStarted = threadCpuMs();
  const module: HumanModule = createRequire(engine)(engine);
  const human = new module.Human(config);
  registerFileLoader(human);
  await human.load();
  const { tf } = human;
  port.postMessage({ kind: 'loaded', cpuMs: threadCpuMs() - loadStarted } satisfies DetectorReply);

  // One request at a time, in the order sent: each is synchronous WebAssembly behind a promise.
  let queue = Promise.resolve();
  port.on('message', (request: DetectorRequest) => {
    queue = queue.then(async () => {
      const started = threadCpuMs();
      const input = tf.tensor4d(request.rgb, [1, request.side, request.side, 3], 'int32');
      try {
        const result = await human.detect(input, {
          face: { enabled: request.part === 'faces' },
          body: { enabled: request.part === 'bodies' },
        });
        const found = (request.part === 'faces' ? result.face : result.body).map(
          ({ boxRaw: [x, y, width, height], score }): FoundBox => ({ box: [x, y, width, height], score }),
        );
        port.postMessage({
          kind: 'found',
          id: request.id,
          found,
          cpuMs: threadCpuMs() - started,
        } satisfies DetectorReply);
      } catch (error) {
        port.postMessage({ kind: 'failed', id: request.id, message: String(error) } satisfies DetectorReply);
      } finally {
        input.dispose();
      }
    });
  });
}

if (parentPort) {
  const port = parentPort;
  serve(port, workerData as DetectorWorkerData).catch((error: unknown) =>
    port.postMessage({ kind: 'failed', message: String(error) } satisfies DetectorReply),
  );
}
