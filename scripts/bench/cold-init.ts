import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import { stop } from 'esbuild';
import { appWithoutBundling } from '../../lib/app-without-bundling';
import { NodeFunction, PROJECT_ROOT } from '../../lib/constructs/node-function';
import { VideoApiStack } from '../../lib/video-api-stack';
import { bundleFunctions, bundleReferences, type FunctionBundle, type SdkClient } from './function-bundles';
import { BENCH_SETTINGS } from './settings';
import { median, round } from './statistics';

const execFileAsync = promisify(execFile);

/** Lambda sets the region in every function's environment; the stack leaves it to the deployment. */
const LAMBDA_ENVIRONMENT = { AWS_REGION: 'us-east-1' };

interface StackFunction {
  /** Its entry below lambdas/, without the extension: `handlers/me/get`, `tasks/relay-events`. */
  readonly name: string;
  readonly entry: string;
  /** As the template gives it, a value resolved at deploy time as the JSON of its expression. */
  readonly environment: Record<string, string>;
}

/**
 * Every function of VideoApiStack, constructed from cdk.json's context without bundling. Its
 * environment is resolved as the template gives it, without synthesizing the whole app.
 */
function functionsOfStack(outdir: string): StackFunction[] {
  const stack = new VideoApiStack(appWithoutBundling({}, { outdir }), 'VideoApiStack');
  return stack.node
    .findAll()
    .filter((construct) => construct instanceof NodeFunction)
    .map((fn) => {
      const { variables = {} } = (stack.resolve((fn.node.defaultChild as CfnFunction).environment) ?? {}) as {
        variables?: Record<string, unknown>;
      };
      return {
        name: relative(join(PROJECT_ROOT, 'lambdas'), fn.entry).replace(/\.ts$/, ''),
        entry: fn.entry,
        environment: Object.fromEntries(
          Object.entries(variables).map(([name, value]) => [
            name,
            typeof value === 'string' ? value : JSON.stringify(value),
          ]),
        ),
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** What loading one bundle took. */
interface InitSample {
  /** Wall time: what Lambda reports as the init, on a machine that runs nothing else. */
  readonly wallMs: number;
  /** CPU time of the process, all its threads: what the wall time is made of, less the waits for a core. */
  readonly cpuMs: number;
}

/**
 * What loading `file` takes in a fresh Node process, timed inside it around `require`, as Lambda's
 * runtime loads a CommonJS handler before the first invocation. An empty module is loaded first:
 * Lambda's runtime has loaded modules of its own by then, so the loader is warm.
 */
async function initSample(file: string, warmUp: string, environment: Record<string, string>): Promise<InitSample> {
  const script = [
    'const [warmUp, file] = process.argv.slice(1);',
    'require(warmUp);',
    'const cpu = process.cpuUsage();',
    'const start = performance.now();',
    'require(file);',
    'const wallMs = performance.now() - start;',
    'const { user, system } = process.cpuUsage(cpu);',
    'process.stdout.write(JSON.stringify({ wallMs, cpuMs: (user + system) / 1000 }));',
  ].join(' ');
  const { stdout } = await execFileAsync(process.execPath, ['-e', script, warmUp, file], {
    env: { ...LAMBDA_ENVIRONMENT, ...environment },
    encoding: 'utf8',
  });
  return JSON.parse(stdout) as InitSample;
}

/** A function's bundle and its reference's, and their samples, taken side by side. */
interface Pair {
  readonly name: string;
  readonly bundle: FunctionBundle;
  readonly reference: FunctionBundle;
  readonly environment: Record<string, string>;
  readonly samples: { readonly fn: InitSample; readonly reference: InitSample }[];
}

const kib = (bytes: number) => round(bytes / 1024);

/** Names a set of SDK clients (and its reference's directory): functions with the same clients share a reference. */
const clientsKey = (clients: readonly SdkClient[]) => clients.map(({ name }) => name).join('+') || 'no-clients';

/**
 * Each function of the stack bundled as `cdk synth` bundles it, and its reference: an empty
 * handler bundled the same way that makes, at load, the SDK clients the function's bundle carries
 * (functions with the same clients share one). In each round every function loads at the same
 * moment as its reference, one on each of two cores, so that whatever else the machine runs
 * falls on both alike; a function's ratio is the median over the rounds of its CPU time over its
 * reference's.
 */
export async function measureColdInit(progress: (message: string) => void) {
  const dir = await mkdtemp(join(tmpdir(), 'video-api-cold-init-'));
  try {
    progress('cold init: constructing the stack without bundling');
    const functions = functionsOfStack(join(dir, 'assembly'));
    progress(`cold init: bundling its ${functions.length} functions and their references`);
    const bundles = await bundleFunctions(
      new Map(functions.map((fn, index) => [`${index}`, fn.entry])),
      join(dir, 'functions'),
    );
    const bundleOf = (index: number) => bundles.get(`${index}`)!;
    const clientSets = new Map([...bundles.values()].map(({ sdkClients }) => [clientsKey(sdkClients), sdkClients]));
    const references = await bundleReferences(clientSets, join(dir, 'references'));
    // esbuild's service process would otherwise stay, idle but holding its memory, until the bench exits.
    await stop();
    const pairs: Pair[] = functions.map(({ name, environment }, index) => ({
      name,
      bundle: bundleOf(index),
      reference: references.get(clientsKey(bundleOf(index).sdkClients))!,
      environment,
      samples: [],
    }));
    const warmUp = join(dir, 'warm-up.js');
    await writeFile(warmUp, 'module.exports = {};\n');

    for (let pass = 1; pass <= BENCH_SETTINGS.coldInit.rounds; pass++) {
      progress(
        `cold init: round ${pass} of ${BENCH_SETTINGS.coldInit.rounds} (${pairs.length} functions beside their references)`,
      );
      for (const pair of pairs) {
        const [fn, reference] = await Promise.all(
          [pair.bundle, pair.reference].map(({ file }) => initSample(file, warmUp, pair.environment)),
        );
        pair.samples.push({ fn: fn!, reference: reference! });
      }
    }

    const rows = pairs
      .map(({ name, bundle, reference, samples }) => ({
        function: name,
        sdk_clients: bundle.sdkClients.map(({ name: client }) => client),
        bundle_kib: kib(bundle.bytes),
        init_ms: round(median(samples.map(({ fn }) => fn.wallMs))),
        init_cpu_ms: round(median(samples.map(({ fn }) => fn.cpuMs))),
        reference_kib: kib(reference.bytes),
        reference_init_ms: round(median(samples.map((sample) => sample.reference.wallMs))),
        reference_init_cpu_ms: round(median(samples.map((sample) => sample.reference.cpuMs))),
        ratio: round(median(samples.map((sample) => sample.fn.cpuMs / sample.reference.cpuMs)), 2),
      }))
      .sort((a, b) => a.function.localeCompare(b.function));
    const worst = rows.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    return {
      runs: BENCH_SETTINGS.coldInit.rounds,
      target_ratio: BENCH_SETTINGS.coldInit.targetRatio,
      worst_ratio: worst.ratio,
      worst_function: worst.function,
      within_target: worst.ratio <= BENCH_SETTINGS.coldInit.targetRatio,
      functions: rows,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
