import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { buildSync } from 'esbuild';
import {
  PEOPLE_DETECTOR_MODELS,
  PEOPLE_DETECTOR_PACKAGE,
  WASM_BACKEND_PACKAGE,
  peopleDetectorFilesIn,
} from '#platform/people-detector-files';

/** The installed version of a package whose `exports` do not offer its package.json. */
function installedVersion(packageName: string): string {
  let directory = dirname(require.resolve(packageName));
  while (!existsSync(join(directory, 'package.json'))) directory = dirname(directory);
  return (JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The thread that runs the engine, from its source in lambdas/ (people-detector-worker.ts). */
const WORKER_SOURCE = join(__dirname, '..', 'lambdas', 'platform', 'people-detector-worker.ts');

/** The worker bundled into one CommonJS file: only Node's modules are left to require. */
function workerBundle(): Uint8Array {
  const built = buildSync({
    entryPoints: [WORKER_SOURCE],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    legalComments: 'none',
    logLevel: 'error',
    write: false,
  });
  return built.outputFiles[0]!.contents;
}

/** What the directory is made of, to describe it: the packages' versions and the models. */
export function peopleDetectorContents(): string {
  const versions = [PEOPLE_DETECTOR_PACKAGE, WASM_BACKEND_PACKAGE].map(installedVersion).join('-');
  return `${versions}-${Object.values(PEOPLE_DETECTOR_MODELS).join('-')}`;
}

/**
 * What names one build of the directory: its contents and the worker's code (the first 12 hex
 * digits of its bundle's SHA-256), so that a changed worker makes a new directory and layer.
 */
export function peopleDetectorBuild(): string {
  const worker = createHash('sha256').update(workerBundle()).digest('hex').slice(0, 12);
  return `${peopleDetectorContents()}-${worker}`;
}

/**
 * Writes the people detector's directory (lambdas/platform/people-detector-files.ts) into `target`
 * from the installed packages: the layer's bundling and the local stack both make it this way.
 * Synchronous, as CDK's local bundling is.
 *
 * The engine is Human's build for Node on the WebAssembly backend, which the package's `exports`
 * do not name (they offer only the build on the native backend, whose install downloads a
 * binary): it is taken by its path and bundled with the TensorFlow.js modules it requires. The
 * thread that runs it (lambdas/platform/people-detector-worker.ts) is bundled beside it. The
 * licences go with it: Human's (MIT) and TensorFlow.js's (Apache 2.0, stated in its package.json).
 */
export function writePeopleDetectorDirectory(target: string): void {
  const files = peopleDetectorFilesIn(target);
  const humanDirectory = dirname(dirname(require.resolve(PEOPLE_DETECTOR_PACKAGE)));
  const wasmDirectory = dirname(require.resolve(WASM_BACKEND_PACKAGE));
  mkdirSync(files.wasmDirectory, { recursive: true });
  mkdirSync(files.modelsDirectory, { recursive: true });
  buildSync({
    entryPoints: [join(humanDirectory, 'dist', 'human.node-wasm.js')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    minify: true,
    legalComments: 'none',
    logLevel: 'error',
    outfile: files.engine,
  });
  writeFileSync(files.worker, workerBundle());
  for (const file of readdirSync(wasmDirectory).filter(
    (name) => name.endsWith('.wasm') && !name.includes('threaded'),
  )) {
    copyFileSync(join(wasmDirectory, file), join(files.wasmDirectory, file));
  }
  for (const model of Object.values(PEOPLE_DETECTOR_MODELS)) {
    for (const extension of ['json', 'bin']) {
      copyFileSync(
        join(humanDirectory, 'models', `${model}.${extension}`),
        join(files.modelsDirectory, `${model}.${extension}`),
      );
    }
  }
  copyFileSync(join(humanDirectory, 'LICENSE'), join(target, 'LICENSE-human.txt'));
}
