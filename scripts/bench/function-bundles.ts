import { mkdir, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build, type BuildOptions, type Format, type Metafile } from 'esbuild';
import { FUNCTION_BUNDLING, PROJECT_ROOT } from '../../lib/constructs/node-function';

/** An AWS SDK client class a bundle carries: `S3Client` of `@aws-sdk/client-s3`. */
export interface SdkClient {
  readonly name: string;
  readonly packageName: string;
}

export interface FunctionBundle {
  /** The bundled module, which Lambda's runtime loads. */
  readonly file: string;
  readonly bytes: number;
  readonly sdkClients: readonly SdkClient[];
}

const ESBUILD_FORMATS = { [OutputFormat.CJS]: 'cjs', [OutputFormat.ESM]: 'esm' } as const satisfies Record<
  OutputFormat,
  Format
>;

/** NodejsFunction's file name for each format: index.js or index.mjs. */
const OUTPUT_EXTENSIONS = { [OutputFormat.CJS]: '.js', [OutputFormat.ESM]: '.mjs' } as const satisfies Record<
  OutputFormat,
  string
>;

/**
 * esbuild's options for FUNCTION_BUNDLING, as aws-cdk-lib's NodejsFunction turns them into the
 * esbuild command it runs (`--bundle --platform=node`, `externalModules` external, and `@aws-sdk/*`
 * too unless the SDK is bundled), from the project root. Many entries go into one
 * build, each into `<outdir>/<key>/index.js`: esbuild then reads each input once, and every entry's
 * bundle is the file a build of that entry alone makes. test/infra/bundling.test.ts checks that a
 * handler bundled here is byte for byte the file `cdk synth` makes.
 */
function esbuildOptions(outdir: string): BuildOptions {
  const {
    forceDockerBundling,
    bundleAwsSDK,
    minify,
    sourceMap,
    sourcesContent,
    target,
    format,
    mainFields,
    externalModules,
    ...untranslated
  } = FUNCTION_BUNDLING;
  const untranslatedOptions = Object.keys(untranslated satisfies Record<string, never>);
  if (untranslatedOptions.length > 0 || forceDockerBundling) {
    throw new Error(
      `The bench bundles with local esbuild and knows no translation of ${untranslatedOptions.join(', ') || 'forceDockerBundling'}`,
    );
  }
  return {
    bundle: true,
    platform: 'node',
    absWorkingDir: PROJECT_ROOT,
    outdir,
    format: ESBUILD_FORMATS[format],
    outExtension: { '.js': OUTPUT_EXTENSIONS[format] },
    target,
    minify,
    sourcemap: sourceMap,
    sourcesContent,
    mainFields,
    external: [...externalModules, ...(bundleAwsSDK ? [] : ['@aws-sdk/*'])],
    metafile: true,
    logLevel: 'warning',
  };
}

/**
 * A client class's own module in an SDK package, as the metafile names its inputs
 * (`…/node_modules/@aws-sdk/client-s3/dist-es/S3Client.js`): in a bundle exactly when the code
 * uses the class. `@aws-sdk/lib-dynamodb` holds the document client, which wraps a DynamoDBClient.
 */
const CLIENT_MODULE = /node_modules\/(@aws-sdk\/(?:client-[a-z0-9-]+|lib-dynamodb))\/dist-[a-z]+\/(\w+Client)\.js$/;

function sdkClientsOf(inputs: Metafile['outputs'][string]['inputs']): SdkClient[] {
  return Object.entries(inputs)
    .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
    .flatMap(([input]) => {
      const match = CLIENT_MODULE.exec(input);
      return match ? [{ packageName: match[1]!, name: match[2]! }] : [];
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** Each module of `entries` (by key) bundled into `<outdir>/<key>/` as `cdk synth` bundles a function's entry. */
export async function bundleFunctions(
  entries: ReadonlyMap<string, string>,
  outdir: string,
): Promise<Map<string, FunctionBundle>> {
  const { metafile } = await build({
    ...esbuildOptions(outdir),
    entryPoints: Object.fromEntries([...entries].map(([key, entry]) => [join(key, 'index'), entry])),
  });
  const bundles = new Map<string, FunctionBundle>();
  for (const [output, { bytes, inputs }] of Object.entries(metafile!.outputs)) {
    if (!output.endsWith(OUTPUT_EXTENSIONS[FUNCTION_BUNDLING.format])) continue;
    const file = resolve(PROJECT_ROOT, output);
    bundles.set(basename(dirname(file)), { file, bytes, sdkClients: sdkClientsOf(inputs) });
  }
  return bundles;
}

/**
 * The source of an empty handler that makes `clients` when it loads. Each client is made with its
 * defaults; the document client wraps a DynamoDBClient of its own. The packages are imported from
 * where this process finds them, since the source is written outside the project.
 */
function referenceSource(clients: readonly SdkClient[]): string {
  const wrapped = clients.some(({ name }) => name === 'DynamoDBDocumentClient');
  const made = clients.flatMap(({ name }) => {
    if (name === 'DynamoDBDocumentClient') return ['DynamoDBDocumentClient.from(new DynamoDBClient({}))'];
    if (name === 'DynamoDBClient' && wrapped) return [];
    return [`new ${name}({})`];
  });
  return [
    ...clients.map(
      ({ name, packageName }) =>
        `import { ${name} } from ${JSON.stringify(dirname(require.resolve(`${packageName}/package.json`)))};`,
    ),
    `const clients = [${made.join(', ')}];`,
    'export const handler = async () => clients.length;',
  ].join('\n');
}

/** For each set of clients (by key), an empty handler that makes them when it loads, bundled the same way. */
export async function bundleReferences(
  clientSets: ReadonlyMap<string, readonly SdkClient[]>,
  outdir: string,
): Promise<Map<string, FunctionBundle>> {
  const sources = join(outdir, 'sources');
  await mkdir(sources, { recursive: true });
  const entries = new Map<string, string>();
  for (const [key, clients] of clientSets) {
    const entry = join(sources, `${key}.js`);
    await writeFile(entry, referenceSource(clients));
    entries.set(key, entry);
  }
  return bundleFunctions(entries, outdir);
}
